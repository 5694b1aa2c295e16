package bound

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/poolsweep/poolsweep/internal/serverversion"
	"github.com/poolsweep/poolsweep/results"
)

// judgedHost is one server the hard rules look at, with the words that
// name it in a reason.
type judgedHost struct {
	name   string // "" when the target is this one host
	sample *results.ServerSample
	router bool // a sharded cluster's mongos, judged by the router rules
}

// judgedHosts returns the servers whose own counters can show saturation,
// in a stable order: the shards' primaries when they were sampled (by
// shard name; "shard rs1 (db3:27018)"), then the URI's hosts (the routers
// of a cluster, whose CPU still counts). The total stands in when no host
// is listed.
func judgedHosts(t *results.ServerTelemetry) []judgedHost {
	if t == nil {
		return nil
	}
	var out []judgedHost
	shards := slices.Sorted(maps.Keys(t.ShardHosts))
	for _, name := range shards {
		if sh := t.ShardHosts[name]; sh != nil && sh.Sample != nil {
			out = append(out, judgedHost{fmt.Sprintf("shard %s (%s)", name, sh.Host), sh.Sample, false})
		}
	}
	hosts := slices.Sorted(maps.Keys(t.Hosts))
	for _, h := range hosts {
		if s := t.Hosts[h]; s != nil {
			name := h
			if len(hosts) == 1 && len(out) == 0 {
				name = ""
			}
			out = append(out, judgedHost{name, s, isRouter(t, s)})
		}
	}
	if len(out) == 0 && t.Total != nil {
		out = append(out, judgedHost{"", t.Total, false})
	}
	return out
}

// dynamicTickets says whether the server sizes its tickets to the load
// (7.0+: throughput probing), where available ≈ 0 is normal and only the
// queue says saturation.
func dynamicTickets(version string) bool {
	v, ok := serverversion.Parse(version)
	return ok && v.AtLeast(7, 0)
}

// cores is the core count the CPU rule judges host h by: the override when
// set, else what the host reported; 0 when unknown. src says which.
func (c Classifier) cores(h *results.ServerSample) (n int, src string) {
	if c.ServerCores > 0 {
		return c.ServerCores, "as configured"
	}
	if h.Cores != nil && *h.Cores > 0 {
		return *h.Cores, "hostInfo"
	}
	return 0, ""
}

// serverHard looks for hard evidence on each judged host: one side's
// tickets exhausted or queued, or the host's CPU full. Read and write
// tickets are separate pools and are judged apart, never summed.
func (c Classifier) serverHard(s *results.StepResult) (bool, string) {
	for _, h := range judgedHosts(s.Server) {
		at := ""
		if h.name != "" {
			at = h.name + ": "
		}
		// Both sides may be out: name the one with more ops waiting.
		okR, whyR, waitR := c.ticketsBound(h.sample, true)
		okW, whyW, waitW := c.ticketsBound(h.sample, false)
		switch {
		case okR && (!okW || waitR >= waitW):
			return true, at + whyR
		case okW:
			return true, at + whyW
		}
		if ok, why := establishmentBound(h.sample); ok {
			return true, at + why
		}
		if h.router {
			continue // a router's CPU is router_cpu's
		}
		if n, src := c.cores(h.sample); n > 0 && h.sample.CPUPct != nil {
			frac := *h.sample.CPUPct / (float64(n) * 100)
			if frac >= c.ServerCPUFrac {
				return true, fmt.Sprintf("%sserver CPU %.0f%% is %.0f%% of %d cores (%s; ≥ %.0f%%)",
					at, *h.sample.CPUPct, frac*100, n, src, c.ServerCPUFrac*100)
			}
		}
	}
	return false, ""
}

// establishmentBound: the server's connection-establishment rate limiter
// (8.2) queued or rejected connections in the window. The pool's
// connections then wait for the server's admission, or fail, whatever its
// capacity for ops.
func establishmentBound(h *results.ServerSample) (bool, string) {
	e := h.Establishment
	if !e.Limited() {
		return false, ""
	}
	n := func(v *float64) string {
		if v == nil {
			return "n/r"
		}
		return strconv.FormatFloat(*v, 'f', 0, 64)
	}
	return true, fmt.Sprintf("the server's connection-establishment rate limiter (ingressConnectionEstablishmentRatePerSec) queued %s and rejected %s connections (admitted %s)",
		n(e.Queued), n(e.Rejected), n(e.Admitted))
}

// ticketsBound judges one side of one host. Before 7.0 tickets are a fixed
// pool: none available while some are in use is exhaustion, and so is a
// queue (globalLock.currentQueue counts the ops waiting for a ticket). From
// 7.0 the server sizes them to the load, so available says nothing; the
// queue does: its mean length, or the mean number of ops waiting by the
// growth of totalTimeQueuedMicros, whichever is larger. A server that
// reports no tickets for the side is judged by its queue alone.
//
// waiting is the side's mean number of ops waiting (0 when not reported),
// by which serverHard names the worse side.
func (c Classifier) ticketsBound(h *results.ServerSample, read bool) (ok bool, why string, waiting float64) {
	name := "write"
	if read {
		name = "read"
	}
	ts := h.Tickets.Side(read)
	q := h.SideQueued(read)
	queuedText := ""
	if q != nil {
		queuedText = fmt.Sprintf(", %.1f queued", *q)
		waiting = *q
	}
	if ts != nil && ts.QueuedFromTime != nil {
		queuedText += fmt.Sprintf(" (%.1f waiting on average by queue time)", *ts.QueuedFromTime)
		waiting = max(waiting, *ts.QueuedFromTime)
	}
	dynamic := dynamicTickets(h.Version)
	exhausted := ts != nil && !dynamic && ts.Available != nil && ts.InUse != nil && *ts.InUse > 0 && *ts.Available <= c.TicketsFreeMax
	if !exhausted && waiting < c.ServerQueueMin {
		return false, "", waiting
	}
	switch {
	case ts == nil:
		return true, fmt.Sprintf("server %s queue: %.1f ops waiting on average (≥ %.0f)", name, waiting, c.ServerQueueMin), waiting
	case dynamic:
		return true, fmt.Sprintf("%s tickets exhausted%s: server %s sizes its tickets to the load, so its queue (≥ %.0f) says it, not available tickets",
			name, queuedText, h.Version, c.ServerQueueMin), waiting
	}
	held := ""
	if ts.Available != nil && ts.InUse != nil {
		held = fmt.Sprintf(": %.1f available and %.1f in use on average", *ts.Available, *ts.InUse)
	}
	return true, fmt.Sprintf("%s tickets exhausted%s%s", name, queuedText, held), waiting
}

// timeoutBound catches a server that stopped answering (FerretDB on a
// small PostgreSQL pool deadlocks under concurrent updates): when at least
// a tenth of the operations ran into the operation timeout, the step's
// throughput is the server's failure, whatever its counters say. Checkout
// timeouts are counted separately (CheckoutFailed) and are the pool's.
func timeoutBound(s *results.StepResult) (bool, string) {
	total := s.Ops + s.OpsAfterClose
	if total <= 0 || s.Errors.Timeout*10 < total {
		return false, ""
	}
	return true, fmt.Sprintf("%d of %d operations (%.0f%%) timed out: the server stopped answering within the operation timeout (p99 %.0f ms)",
		s.Errors.Timeout, total, 100*float64(s.Errors.Timeout)/float64(total), s.Latency.P99)
}

// serverLatencyUS is the server-side mean op latency, reads and writes
// weighted by their ops (opLatencies.*.ops: one per command, where
// opcounters count documents).
func serverLatencyUS(s *results.ServerSample) *float64 {
	if s == nil {
		return nil
	}
	r, w := s.ReadLatencyUS, s.WriteLatencyUS
	switch {
	case r != nil && w != nil:
		var rw, ww float64
		if s.ReadOpsPerS != nil {
			rw = *s.ReadOpsPerS
		}
		if s.WriteOpsPerS != nil {
			ww = *s.WriteOpsPerS
		}
		if rw+ww > 0 {
			return new((*r*rw + *w*ww) / (rw + ww))
		}
		return new((*r + *w) / 2)
	case r != nil:
		return r
	default:
		return w
	}
}

// latencySample is where a step's server latency is read: the URI's hosts'
// total, or, for routers that report none (a mongos before 7.0), the
// shards' primaries'.
func latencySample(t *results.ServerTelemetry) *results.ServerSample {
	if t == nil {
		return nil
	}
	if serverLatencyUS(t.Total) == nil && t.ShardTotal != nil {
		return t.ShardTotal
	}
	return t.Total
}

func (c Classifier) serverSoft(s, prev *results.StepResult) (bool, string) {
	if !sameSeries(s, prev) || s.Server == nil || prev.Server == nil || prev.OpsPerS <= 0 {
		return false, ""
	}
	cur, old := serverLatencyUS(latencySample(s.Server)), serverLatencyUS(latencySample(prev.Server))
	if cur == nil || old == nil || *old <= 0 {
		return false, ""
	}
	cGrowth := float64(s.Concurrency)/float64(prev.Concurrency) - 1
	latGrowth := *cur / *old - 1
	tputGrowth := s.OpsPerS/prev.OpsPerS - 1
	if latGrowth < c.LatencyGrowth*cGrowth || tputGrowth >= c.ThroughputGrowth*cGrowth {
		return false, ""
	}
	return true, fmt.Sprintf("server latency %.0f→%.0f µs (×%.2f) while ops/s %.0f→%.0f (×%.2f) as concurrency went %d→%d",
		*old, *cur, *cur / *old, prev.OpsPerS, s.OpsPerS, s.OpsPerS/prev.OpsPerS, prev.Concurrency, s.Concurrency)
}

// serverSilent reports whether the server said nothing that could show
// saturation: no latency, no queue and no tickets on any host.
func serverSilent(t *results.ServerTelemetry) bool {
	if t == nil {
		return true
	}
	samples := []*results.ServerSample{t.Total, t.ShardTotal}
	for _, h := range judgedHosts(t) {
		samples = append(samples, h.sample)
	}
	for _, h := range samples {
		if h != nil && (serverLatencyUS(h) != nil || h.Queued() != nil || h.Tickets != nil) {
			return false
		}
	}
	return true
}

// netCallLatency is the mean call latency without the pool checkout waits.
func netCallLatency(s *results.StepResult) float64 {
	return s.Latency.Mean - s.Pool.CheckoutWait.Mean*opsPerCall(s)
}

// serverInferred is serverSoft from the client's side, for a server that
// reports nothing to judge by: in a closed loop, more calls in flight that
// buy no throughput and only latency are waiting somewhere past the pool.
// The client telemetry must exist (rules 1 and 4 have then judged the host
// healthy); without it a starved client could not be told from a slow
// server.
func (c Classifier) serverInferred(s, prev *results.StepResult) (bool, string) {
	if !sameSeries(s, prev) || s.Client == nil || !serverSilent(s.Server) || prev.OpsPerS <= 0 {
		return false, ""
	}
	if share, ok := poolShare(s); !ok || share >= c.PoolWaitNegligible {
		return false, ""
	}
	cur, old := netCallLatency(s), netCallLatency(prev)
	if cur <= 0 || old <= 0 {
		return false, ""
	}
	k := float64(s.Concurrency) / float64(prev.Concurrency)
	latGrowth := cur/old - 1
	tputGrowth := s.OpsPerS/prev.OpsPerS - 1
	if latGrowth < c.LatencyGrowth*(k-1) || tputGrowth >= c.ThroughputGrowth*(k-1) {
		return false, ""
	}
	return true, fmt.Sprintf("throughput flat while in-flight calls grew: concurrency %d→%d (×%.2g), ops/s %.0f→%.0f (×%.2f), call latency net of pool wait %.2f→%.2f ms (×%.2f); "+
		"the limit is past the pool (server or network); the server reports no queue",
		prev.Concurrency, s.Concurrency, k, prev.OpsPerS, s.OpsPerS, s.OpsPerS/prev.OpsPerS, old, cur, cur/old)
}

func (c Classifier) networkBound(s *results.StepResult) (bool, string) {
	if c.LinkBytesPerS <= 0 || s.Server == nil || s.Server.Total == nil {
		return false, ""
	}
	t := s.Server.Total
	var busy *float64 // the busier direction; a link is full one way at a time
	for _, v := range []*float64{t.NetInBytesPerS, t.NetOutBytesPerS} {
		if v != nil && (busy == nil || *v > *busy) {
			busy = v
		}
	}
	srv := serverLatencyUS(t)
	if busy == nil || srv == nil {
		return false, ""
	}
	clientOpMS := s.Latency.Mean/opsPerCall(s) - s.Pool.CheckoutWait.Mean
	if clientOpMS <= 0 {
		return false, ""
	}
	linkFrac := *busy / c.LinkBytesPerS
	latFrac := (*srv / 1000) / clientOpMS
	if linkFrac < c.LinkFrac || latFrac >= c.NetworkShare {
		return false, ""
	}
	return true, fmt.Sprintf("network %.1f MB/s is %.0f%% of the %.1f MB/s link, and server latency %.0f µs is %.0f%% of the %.2f ms/op the client saw",
		*busy/1e6, linkFrac*100, c.LinkBytesPerS/1e6, *srv, latFrac*100, clientOpMS)
}
