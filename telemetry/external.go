package telemetry

import (
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/results"
)

// Replies the sampler did not collect: a deployment's own diagnostic data
// (FTDC, package telemetry/fromftdc) holds the same serverStatus (and, on a
// router, connPoolStats; on a replica-set member, replSetGetStatus) the
// sampler asks for, every second. WindowOf summarises them with the
// sampler's own parser (ParseSample) and window code, so that a step's
// server numbers mean the same whichever collected them.

// StatusReply is one sample of a host collected elsewhere: its
// serverStatus, when it was taken, and the replies taken with it (nil when
// not collected).
type StatusReply struct {
	At               time.Time
	ServerStatus     bson.Raw
	ConnPoolStats    bson.Raw
	ReplSetGetStatus bson.Raw
}

// Sample is a StatusReply as the sampler's parser reads it: the few
// numbers a window summary needs, so that a long capture costs a few
// hundred bytes a sample, not the reply's tens of kilobytes.
type Sample struct{ snap snapshot }

// ParseSample reads one reply with the sampler's parser. It never fails:
// what it cannot read stays not reported.
func ParseSample(r StatusReply) Sample {
	snap := parseServerStatus(r.ServerStatus, r.At)
	if r.ConnPoolStats != nil {
		snap.addConnPoolStats(r.ConnPoolStats)
	}
	if r.ReplSetGetStatus != nil {
		snap.repl = parseReplSetGetStatus(r.ReplSetGetStatus)
	}
	return Sample{snap: snap}
}

// MemberState is the state a replica-set member's replSetGetStatus gave
// the member itself (its self entry's stateStr: PRIMARY, SECONDARY, …),
// the role its hello would announce; "" when the sample has no self entry.
func (s Sample) MemberState() string {
	for _, m := range s.snap.repl {
		if m.self {
			return m.state
		}
	}
	return ""
}

// HostSamples is one host's samples over a window, oldest first, and its
// hostInfo (nil when not known).
type HostSamples struct {
	Host     string
	Samples  []Sample
	HostInfo bson.Raw
}

// WindowOf summarises hosts' samples over one window as the sampler's Stop
// summarises its own: each host's numbers (rates between the first and the
// last sample, gauges averaged), their total, and the replication lag the
// primary's replSetGetStatus shows. Nothing of the sampler's own traffic is
// in these replies, so none is taken out; a router's pools are its totals
// (no listShards was read).
//
// shards, on a sharded cluster (hosts are then its routers), are its
// shards' primaries by shard name, as the sampler samples them behind the
// routers; nil for any other topology.
func WindowOf(hosts []HostSamples, shards map[string]HostSamples) *results.ServerTelemetry {
	st := &results.ServerTelemetry{Hosts: make(map[string]*results.ServerSample, len(hosts))}
	windows := make([]hostWindow, 0, len(hosts))
	samplers := make([]*hostSampler, 0, len(hosts))
	for _, h := range hosts {
		hs, hw := h.window()
		st.Hosts[h.Host] = hw.sample
		windows = append(windows, hw)
		samplers = append(samplers, hs)
	}
	st.Total = totalOf(windows)
	st.Replication = replicationOf(samplers)
	if shards == nil {
		return st
	}
	sampled := len(shards) > 0
	st.ShardsSampled = &sampled
	if !sampled {
		st.ShardsNotSampled = "no shard primary's FTDC covers the window; only the mongos routers'"
		return st
	}
	st.ShardHosts = make(map[string]*results.ShardSample, len(shards))
	windows = windows[:0]
	for name, h := range shards {
		_, hw := h.window()
		st.ShardHosts[name] = &results.ShardSample{Host: h.Host, Sample: hw.sample}
		st.Shards = append(st.Shards, name)
		windows = append(windows, hw)
	}
	sort.Strings(st.Shards)
	st.ShardTotal = totalOf(windows)
	return st
}

// window is h's window summary, as a sampler of h would make it.
func (h HostSamples) window() (*hostSampler, hostWindow) {
	hs := &hostSampler{host: h.Host}
	if h.HostInfo != nil {
		hs.info = parseHostInfo(h.HostInfo)
	}
	for _, s := range h.Samples {
		hs.snaps = append(hs.snaps, s.snap)
	}
	return hs, hs.window(nil)
}
