package telemetry

import (
	"fmt"
	"slices"

	"github.com/poolsweep/poolsweep/sweep"
)

// Values of StepResult.Bound.
const (
	BoundClient  = "client"
	BoundPool    = "pool"
	BoundServer  = "server"
	BoundNetwork = "network"
	BoundNone    = "none"
)

// Classifier holds the thresholds Classify judges a step by. The zero value
// is not useful; start from DefaultClassifier.
//
// Precedence, first match wins:
//  1. client  — client CPU ≥ ClientCPUFrac of its cores. When the client is
//     saturated every other number is a symptom of it, so it goes first.
//  2. server  — hard evidence on any host: admission tickets exhausted (mean
//     available ≤ TicketsFreeMax while some are in use), ops queued (mean
//     ≥ ServerQueueMin), or CPU ≥ ServerCPUFrac of ServerCores. A server
//     that is out of capacity with P connections is the limit even when
//     the pool also makes callers wait: a bigger pool would only queue more
//     at the server.
//  3. pool    — concurrency > maxPoolSize and checkout wait (per op × ops
//     per call) ≥ PoolWaitShare of the mean call latency.
//  4. server  — soft evidence against the previous step of the same series:
//     server-side latency grew by ≥ LatencyGrowth of the concurrency growth
//     while throughput grew by < ThroughputGrowth of it.
//  5. network — only with LinkBytesPerS set: the busier direction of the
//     server's network ≥ LinkFrac of the link and server-side latency
//     < NetworkShare of the client-observed latency net of pool wait.
//     A rough heuristic, rarely decisive.
//  6. none.
type Classifier struct {
	ClientCPUFrac    float64 // of CPUs×100; 0.85
	ServerQueueMin   float64 // mean queued ops; 1
	TicketsFreeMax   float64 // mean available tickets; 0.5
	ServerCPUFrac    float64 // of ServerCores×100; 0.85
	ServerCores      int     // cores per server host; 0 = unknown, CPU rule off
	PoolWaitShare    float64 // of mean call latency; 0.30
	LatencyGrowth    float64 // fraction of concurrency growth; 0.5
	ThroughputGrowth float64 // fraction of concurrency growth; 0.25
	LinkBytesPerS    float64 // one direction; 0 = unknown, network rule off
	LinkFrac         float64 // 0.8
	NetworkShare     float64 // 0.25
}

// DefaultClassifier returns the documented thresholds, with server cores and
// link speed unknown (the caller sets them when it knows: the embedded
// server runs on this machine's cores).
func DefaultClassifier() Classifier {
	return Classifier{
		ClientCPUFrac:    0.85,
		ServerQueueMin:   1,
		TicketsFreeMax:   0.5,
		ServerCPUFrac:    0.85,
		PoolWaitShare:    0.30,
		LatencyGrowth:    0.5,
		ThroughputGrowth: 0.25,
		LinkFrac:         0.8,
		NetworkShare:     0.25,
	}
}

// Classify labels step with DefaultClassifier; see Classifier.Classify.
func Classify(step, prev *sweep.StepResult) (bound, reason string) {
	return DefaultClassifier().Classify(step, prev)
}

// Classify says what bound step and why, in one line with the numbers. prev
// is the step before it in the same series (same target, workload, pool
// setting and clients, lower concurrency) or nil; any other prev is ignored.
// It is a pure function of its arguments.
func (c Classifier) Classify(step, prev *sweep.StepResult) (bound, reason string) {
	if step == nil {
		return BoundNone, "no step"
	}
	if ok, r := c.clientBound(step); ok {
		return BoundClient, r
	}
	if ok, r := c.serverHard(step); ok {
		return BoundServer, r
	}
	if ok, r := timeoutBound(step); ok {
		return BoundServer, r
	}
	if ok, r := c.poolBound(step); ok {
		return BoundPool, r
	}
	if ok, r := c.serverSoft(step, prev); ok {
		return BoundServer, r
	}
	if ok, r := c.networkBound(step); ok {
		return BoundNetwork, r
	}
	return BoundNone, c.noneReason(step)
}

func (c Classifier) clientBound(s *sweep.StepResult) (bool, string) {
	ct := s.Client
	if ct == nil || ct.CPUs <= 0 {
		return false, ""
	}
	frac := ct.CPUPct / (float64(ct.CPUs) * 100)
	if frac < c.ClientCPUFrac {
		return false, ""
	}
	return true, fmt.Sprintf("client CPU %.0f%% is %.0f%% of its %d cores (≥ %.0f%%): these numbers are the client's limit, not the server's; run --clients on more machines",
		ct.CPUPct, frac*100, ct.CPUs, c.ClientCPUFrac*100)
}

// hostSamples returns the per-host samples in a stable order, or the total
// when no host is listed.
func hostSamples(t *sweep.ServerTelemetry) ([]string, []*sweep.ServerSample) {
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
	out := make([]*sweep.ServerSample, len(names))
	for i, h := range names {
		out[i] = t.Hosts[h]
	}
	if len(out) == 0 && t.Total != nil {
		return []string{"total"}, []*sweep.ServerSample{t.Total}
	}
	return names, out
}

// queued is the mean number of ops waiting at the server: the ticket queue
// when reported, else globalLock.currentQueue.
func queued(s *sweep.ServerSample) *float64 {
	if s.Tickets != nil && s.Tickets.Queued != nil {
		return s.Tickets.Queued
	}
	if s.Queue != nil {
		return sumPtr(s.Queue.Readers, s.Queue.Writers)
	}
	return nil
}

func (c Classifier) serverHard(s *sweep.StepResult) (bool, string) {
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
		if c.ServerCores > 0 && h.CPUPct != nil {
			frac := *h.CPUPct / (float64(c.ServerCores) * 100)
			if frac >= c.ServerCPUFrac {
				return true, fmt.Sprintf("server CPU%s %.0f%% is %.0f%% of %d cores (≥ %.0f%%)",
					at(i), *h.CPUPct, frac*100, c.ServerCores, c.ServerCPUFrac*100)
			}
		}
	}
	return false, ""
}

// opsPerCall is ops per workload call (1 when unknown).
func opsPerCall(s *sweep.StepResult) float64 {
	if s.Calls > 0 && s.Ops > 0 {
		return float64(s.Ops) / float64(s.Calls)
	}
	return 1
}

// poolShare is the fraction of a call spent waiting for pool checkouts.
func poolShare(s *sweep.StepResult) (float64, bool) {
	if s.Latency.Mean <= 0 {
		return 0, false
	}
	return s.Pool.CheckoutWait.Mean * opsPerCall(s) / s.Latency.Mean, true
}

func (c Classifier) poolBound(s *sweep.StepResult) (bool, string) {
	share, ok := poolShare(s)
	if !ok || s.MaxPoolSize <= 0 || s.Concurrency <= s.MaxPoolSize || share < c.PoolWaitShare {
		return false, ""
	}
	perCall := ""
	if n := opsPerCall(s); n != 1 {
		perCall = fmt.Sprintf(" × %.3g ops/call", n)
	}
	return true, fmt.Sprintf("pool checkout wait mean %.2f ms/op%s is %.0f%% of call latency %.2f ms; concurrency %d > maxPoolSize %d",
		s.Pool.CheckoutWait.Mean, perCall, share*100, s.Latency.Mean, s.Concurrency, s.MaxPoolSize)
}

// serverLatencyUS is the server-side mean op latency, reads and writes
// weighted by their opcounter rates when both are known.
func serverLatencyUS(s *sweep.ServerSample) *float64 {
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
			return ptr((*r*rw + *w*ww) / (rw + ww))
		}
		return ptr((*r + *w) / 2)
	case r != nil:
		return r
	default:
		return w
	}
}

// sameSeries reports whether prev is an earlier point of step's curve.
func sameSeries(step, prev *sweep.StepResult) bool {
	return prev != nil && prev.Target == step.Target && prev.Workload == step.Workload &&
		prev.PoolSetting == step.PoolSetting && prev.Clients == step.Clients &&
		prev.Concurrency > 0 && prev.Concurrency < step.Concurrency
}

func (c Classifier) serverSoft(s, prev *sweep.StepResult) (bool, string) {
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

func (c Classifier) networkBound(s *sweep.StepResult) (bool, string) {
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

func (c Classifier) noneReason(s *sweep.StepResult) string {
	msg := "no limit reached:"
	if s.Client != nil && s.Client.CPUs > 0 {
		msg += fmt.Sprintf(" client CPU %.0f%% of %d cores;", s.Client.CPUPct, s.Client.CPUs)
	} else {
		msg += " client CPU not measured;"
	}
	if share, ok := poolShare(s); ok {
		msg += fmt.Sprintf(" pool wait %.0f%% of call latency;", share*100)
	}
	if s.Server == nil || s.Server.Total == nil {
		return msg + " no server telemetry"
	}
	if q := queued(s.Server.Total); q != nil {
		msg += fmt.Sprintf(" server queue %.1f", *q)
	} else {
		msg += " server queue not reported"
	}
	return msg
}

// timeoutBound catches a server that stopped answering (FerretDB on a
// small PostgreSQL pool deadlocks under concurrent updates): when at least
// a tenth of the operations ran into the operation timeout, the step's
// throughput is the server's failure, whatever its counters say. Checkout
// timeouts are counted separately (CheckoutFailed) and are the pool's.
func timeoutBound(s *sweep.StepResult) (bool, string) {
	total := s.Ops
	if total <= 0 || s.Errors.Timeout*10 < total {
		return false, ""
	}
	return true, fmt.Sprintf("%d of %d operations (%.0f%%) timed out: the server stopped answering within the operation timeout (p99 %.0f ms)",
		s.Errors.Timeout, total, 100*float64(s.Errors.Timeout)/float64(total), s.Latency.P99)
}
