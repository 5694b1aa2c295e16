package bound

import (
	"fmt"
	"slices"

	"github.com/poolsweep/poolsweep/results"
)

// hostSamples returns the per-host samples in a stable order, or the total
// when no host is listed.
func hostSamples(t *results.ServerTelemetry) ([]string, []*results.ServerSample) {
	if t == nil {
		return nil, nil
	}
	names := make([]string, 0, len(t.Hosts))
	for h, s := range t.Hosts {
		if s != nil {
			names = append(names, h)
		}
	}
	slices.Sort(names)
	out := make([]*results.ServerSample, len(names))
	for i, h := range names {
		out[i] = t.Hosts[h]
	}
	if len(out) == 0 && t.Total != nil {
		return []string{"total"}, []*results.ServerSample{t.Total}
	}
	return names, out
}

// queued is the mean number of ops waiting at the server: the ticket queue
// when reported, else globalLock.currentQueue.
func queued(s *results.ServerSample) *float64 {
	if s.Tickets != nil && s.Tickets.Queued != nil {
		return s.Tickets.Queued
	}
	if q := s.Queue; q != nil {
		switch {
		case q.Readers != nil && q.Writers != nil:
			return new(*q.Readers + *q.Writers)
		case q.Readers != nil:
			return q.Readers
		default:
			return q.Writers // nil when neither is reported
		}
	}
	return nil
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

func (c Classifier) serverHard(s *results.StepResult) (bool, string) {
	names, samples := hostSamples(s.Server)
	at := func(i int) string {
		if len(names) > 1 {
			return " on " + names[i]
		}
		return ""
	}
	for i, h := range samples {
		if t := h.Tickets; t != nil && t.Available != nil && t.InUse != nil && *t.InUse > 0 && *t.Available <= c.TicketsFreeMax {
			q := ""
			if t.Queued != nil {
				q = fmt.Sprintf(", %.1f ops queued", *t.Queued)
			}
			return true, fmt.Sprintf("server execution tickets exhausted%s: %.1f available and %.1f in use on average%s",
				at(i), *t.Available, *t.InUse, q)
		}
		if q := queued(h); q != nil && *q >= c.ServerQueueMin {
			return true, fmt.Sprintf("server queue%s: %.1f ops waiting on average (≥ %.0f)", at(i), *q, c.ServerQueueMin)
		}
		if n, src := c.cores(h); n > 0 && h.CPUPct != nil {
			frac := *h.CPUPct / (float64(n) * 100)
			if frac >= c.ServerCPUFrac {
				return true, fmt.Sprintf("server CPU%s %.0f%% is %.0f%% of %d cores (%s; ≥ %.0f%%)",
					at(i), *h.CPUPct, frac*100, n, src, c.ServerCPUFrac*100)
			}
		}
	}
	return false, ""
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
// weighted by their opcounter rates when both are known.
func serverLatencyUS(s *results.ServerSample) *float64 {
	if s == nil {
		return nil
	}
	r, w := s.ReadLatencyUS, s.WriteLatencyUS
	switch {
	case r != nil && w != nil:
		oc := s.OpcountersPerS
		rw := oc["query"] + oc["getmore"]
		ww := oc["insert"] + oc["update"] + oc["delete"]
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

func (c Classifier) serverSoft(s, prev *results.StepResult) (bool, string) {
	if !sameSeries(s, prev) || s.Server == nil || prev.Server == nil || prev.OpsPerS <= 0 {
		return false, ""
	}
	cur, old := serverLatencyUS(s.Server.Total), serverLatencyUS(prev.Server.Total)
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
	_, samples := hostSamples(t)
	for _, h := range append(samples, t.Total) {
		if h != nil && (serverLatencyUS(h) != nil || queued(h) != nil || h.Tickets != nil) {
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
