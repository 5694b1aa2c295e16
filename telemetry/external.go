package telemetry

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/results"
)

// Replies the sampler did not collect: a deployment's own diagnostic data
// (FTDC, package telemetry/fromftdc) holds the same serverStatus (and, on a
// router, connPoolStats; on a replica-set member, replSetGetStatus) the
// sampler asks for, every second. WindowOf summarises them with the
// sampler's own parser and window code, so that a step's server numbers
// mean the same whichever collected them.

// StatusReply is one sample of a host collected elsewhere: its
// serverStatus, when it was taken, and the replies taken with it (nil when
// not collected).
type StatusReply struct {
	At               time.Time
	ServerStatus     bson.Raw
	ConnPoolStats    bson.Raw
	ReplSetGetStatus bson.Raw
}

// HostReplies is one host's samples over a window, oldest first,
// bracketing it as the sampler's do (the first at or before the window's
// start, the last at or after its end), and its hostInfo (nil when not
// known).
type HostReplies struct {
	Host     string
	Replies  []StatusReply
	HostInfo bson.Raw
}

// WindowOf summarises hosts' samples over one window as the sampler's Stop
// summarises its own: each host's numbers (rates between the first and the
// last sample, gauges averaged), their total, and the replication lag the
// primary's replSetGetStatus shows. Nothing of the sampler's own traffic is
// in these replies, so none is taken out; a router's pools are its totals
// (no listShards was read).
func WindowOf(hosts []HostReplies) *results.ServerTelemetry {
	st := &results.ServerTelemetry{Hosts: make(map[string]*results.ServerSample, len(hosts))}
	windows := make([]hostWindow, 0, len(hosts))
	samplers := make([]*hostSampler, 0, len(hosts))
	for _, h := range hosts {
		hs := &hostSampler{host: h.Host}
		if h.HostInfo != nil {
			hs.info = parseHostInfo(h.HostInfo)
		}
		for _, r := range h.Replies {
			snap := parseServerStatus(r.ServerStatus, r.At)
			if r.ConnPoolStats != nil {
				snap.addConnPoolStats(r.ConnPoolStats)
			}
			if r.ReplSetGetStatus != nil {
				snap.repl = parseReplSetGetStatus(r.ReplSetGetStatus)
			}
			hs.snaps = append(hs.snaps, snap)
		}
		hw := hs.window(nil)
		st.Hosts[h.Host] = hw.sample
		windows = append(windows, hw)
		samplers = append(samplers, hs)
	}
	st.Total = totalOf(windows)
	st.Replication = replicationOf(samplers)
	return st
}

// MemberState is the state a replica-set member's replSetGetStatus gives
// the member itself (its self entry's stateStr: PRIMARY, SECONDARY, …), the
// role its hello would announce; "" when the reply has no self entry.
func MemberState(replSetGetStatus bson.Raw) string {
	for _, m := range parseReplSetGetStatus(replSetGetStatus) {
		if m.self {
			return m.state
		}
	}
	return ""
}
