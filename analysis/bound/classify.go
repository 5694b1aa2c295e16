package bound

import (
	"fmt"

	"github.com/poolsweep/poolsweep/results"
)

// Values of StepResult.Bound.
const (
	BoundClient  = "client"
	BoundPool    = "pool"
	BoundServer  = "server"
	BoundNetwork = "network"
	// BoundRouterPool and BoundRouterCPU: a sharded cluster's routers, not
	// its shards, were the limit: their pools to a shard host, or their CPU.
	BoundRouterPool = "router_pool"
	BoundRouterCPU  = "router_cpu"
	BoundNone       = "none"
	// BoundFailed: the target failed during the window
	// (StepResult.TargetFailed); the engine marks the step, Judge labels it.
	BoundFailed = results.BoundFailed
)

// Classifier holds the thresholds Classify judges a step by. The zero value
// is not useful; start from DefaultClassifier.
//
// Precedence, first match wins:
//  1. client  — client CPU ≥ ClientCPUFrac of its cores; or, with a server
//     poolsweep runs on this machine (LocalServerHost), the client uses
//     ≥ ClientMachineFrac of the host's cores and the two together ≥
//     ClientCPUFrac: neither can get more CPU than the other leaves it, so
//     the limit is this machine. When the client is saturated every other
//     number is a symptom of it, so it goes first.
//  2. server  — hard evidence on any host of a server on another machine
//     (a sharded cluster's shards' primaries, sampled behind the routers,
//     then the URI's hosts; the reason names the host): one side's
//     admission tickets, read or write, judged apart — before 7.0 exhausted
//     (mean available ≤ TicketsFreeMax while some are in use), from 7.0
//     (which sizes tickets to the load) by the queue only; ops queued on
//     one side (mean queue length, or mean waiting by the growth of
//     totalTimeQueuedMicros, ≥ ServerQueueMin); the server's
//     connection-establishment rate limiter (8.2) queued or rejected
//     connections in the window; or CPU ≥ ServerCPUFrac of
//     the host's cores (ServerCores when set, else the host's hostInfo core
//     count). A server that is out of capacity with P
//     connections is the limit even when the pool also makes callers wait
//     (a bigger pool would only queue more at the server), and even when
//     this machine is contended (its queue was full regardless).
//     Then, for a sharded cluster, its routers: router_cpu, a router's
//     CPU ≥ ServerCPUFrac of its cores; router_pool, a router's pools to
//     a shard host full (in use ≥ RouterPoolFullFrac of
//     ShardingTaskExecutorPoolMaxSize per pool, ≤ RouterIdleMax idle) or
//     growing at MaxConnecting (being opened ≥ RouterConnectingFrac of it
//     per pool, some created, none idle). The shards go first: a full
//     shard keeps the routers' connections to it busy too.
//  3. server  — at least a tenth of the ops ran into the op timeout.
//  4. client  — the load host is contended: this process was kept from
//     the CPU (its threads spent ≥ RunQueueWaitMin % of their runnable time
//     waiting in the kernel's run queue, or its goroutines waited p99 ≥
//     SchedP99MinMS to run) while other processes used ≥ OthersCPUMin % of
//     all cores (not counting the server poolsweep runs here: that is what
//     is being measured) and the host was out of CPUs (PSI CPU "some" ≥
//     PressureMin %). A source the platform lacks is skipped; with neither
//     others' CPU nor PSI the wait alone decides. This holds even when our
//     own CPU is low: a starved client issues calls late and reads replies
//     late, so throughput falls and latency grows as if the server were
//     slow.
//  5. server  — rule 2 for a server on this machine, which the same
//     contention slows, so rule 4 goes first.
//  6. pool    — concurrency > maxPoolSize and checkout wait (per op × ops
//     per call) ≥ PoolWaitShare of the mean call latency.
//  7. server  — soft evidence against the previous step of the same series:
//     server-side latency grew by ≥ LatencyGrowth of the concurrency growth
//     while throughput grew by < ThroughputGrowth of it.
//  8. server  — the same test on the client's side, for a server that
//     reports no latency, queue or tickets (FerretDB): call latency net of
//     pool wait grew by ≥ LatencyGrowth of the concurrency growth, ops/s
//     by < ThroughputGrowth of it, with pool wait under PoolWaitNegligible
//     of the call and the host healthy (rules 1 and 4 did not fire). The
//     limit is then past the pool: the server or the network.
//  9. network — only with LinkBytesPerS set: the busier direction of the
//     server's network ≥ LinkFrac of the link and server-side latency
//     < NetworkShare of the client-observed latency net of pool wait.
//     A rough heuristic, rarely decisive.
//  10. none.
type Classifier struct {
	ClientCPUFrac     float64 // of CPUs×100; 0.85
	ClientMachineFrac float64 // the client's own share of the host's cores for the full-machine test; 0.25

	RunQueueWaitMin float64 // % of our threads' runnable time spent waiting; see DefaultClassifier
	SchedP99MinMS   float64 // goroutine runnable wait p99, ms
	PressureMin     float64 // PSI CPU some, % of wall time
	OthersCPUMin    float64 // others' CPU, % of all cores
	// LocalServerHost is the host:port of a server poolsweep started on
	// this machine (the embedded server, a simulator child): its CPU is the
	// system under test, not someone else's load.
	LocalServerHost string

	// RouterPoolFullFrac: a router's pool to a shard host is full at this
	// share of ShardingTaskExecutorPoolMaxSize in use; 0.95. RouterIdleMax:
	// mean idle connections per pool at most; 0.5. RouterConnectingFrac:
	// connections being opened per pool at this share of MaxConnecting
	// say its growth was capped; 0.9.
	RouterPoolFullFrac, RouterIdleMax, RouterConnectingFrac float64

	ServerQueueMin float64 // mean queued ops; 1
	TicketsFreeMax float64 // mean available tickets; 0.5
	ServerCPUFrac  float64 // of cores×100; 0.85
	// ServerCores overrides every host's core count (--server-cores);
	// 0 means each host's own (hostInfo), and the CPU rule is off for a
	// host whose cores are unknown.
	ServerCores int

	PoolWaitShare      float64 // of mean call latency; 0.30
	PoolWaitNegligible float64 // of mean call latency, for rule 8; 0.10
	LatencyGrowth      float64 // fraction of concurrency growth; 0.5
	ThroughputGrowth   float64 // fraction of concurrency growth; 0.25

	LinkBytesPerS float64 // one direction; 0 = unknown, network rule off
	LinkFrac      float64 // 0.8
	NetworkShare  float64 // 0.25
}

// DefaultClassifier returns the documented thresholds, with server cores
// (beyond what hosts report) and link speed unknown.
func DefaultClassifier() Classifier {
	return Classifier{
		ClientCPUFrac:        0.85,
		ClientMachineFrac:    0.25,
		RunQueueWaitMin:      defaultRunQueueWaitMin,
		SchedP99MinMS:        defaultSchedP99MinMS,
		PressureMin:          defaultPressureMin,
		OthersCPUMin:         defaultOthersCPUMin,
		RouterPoolFullFrac:   0.95,
		RouterIdleMax:        0.5,
		RouterConnectingFrac: 0.9,
		ServerQueueMin:       1,
		TicketsFreeMax:       0.5,
		ServerCPUFrac:        0.85,
		PoolWaitShare:        0.30,
		PoolWaitNegligible:   0.10,
		LatencyGrowth:        0.5,
		ThroughputGrowth:     0.25,
		LinkFrac:             0.8,
		NetworkShare:         0.25,
	}
}

// Classify says what bound step and why, in one line with the numbers. prev
// is the step before it in the same series (same target, workload, pool
// setting and clients, lower concurrency) or nil; any other prev is ignored.
// It is a pure function of its arguments.
func (c Classifier) Classify(step, prev *results.StepResult) (bound, reason string) {
	if step == nil {
		return BoundNone, "no step"
	}
	if ok, r := c.clientBound(step); ok {
		return BoundClient, r
	}
	// A queue at a server on another machine is that server's whatever
	// this machine did; a server sharing this machine is slowed by the same
	// contention as the client, so there contention is judged first.
	local := c.LocalServerHost != ""
	if !local {
		if b, r := c.hardBound(step); b != "" {
			return b, r
		}
	}
	if ok, r := timeoutBound(step); ok {
		return BoundServer, r
	}
	if ok, r := c.contended(step); ok {
		return BoundClient, r
	}
	if local {
		if b, r := c.hardBound(step); b != "" {
			return b, r
		}
	}
	if ok, r := c.poolBound(step); ok {
		return BoundPool, r
	}
	if ok, r := c.serverSoft(step, prev); ok {
		return BoundServer, r
	}
	if ok, r := c.serverInferred(step, prev); ok {
		return BoundServer, r
	}
	if ok, r := c.networkBound(step); ok {
		return BoundNetwork, r
	}
	return BoundNone, c.noneReason(step)
}

// hardBound is the hard evidence of rules 2 and 5: a shard's (or the
// server's) own counters first, since a saturated shard also fills the
// routers' pools to it and keeps their connections busy; then the
// routers' CPU, which every operation passes through; then their pools to
// the shards. "" when none holds.
func (c Classifier) hardBound(step *results.StepResult) (bound, reason string) {
	if ok, r := c.serverHard(step); ok {
		return BoundServer, r
	}
	if ok, r := c.routerCPU(step); ok {
		return BoundRouterCPU, r
	}
	if ok, r := c.routerPool(step); ok {
		return BoundRouterPool, r
	}
	return "", ""
}

// opsPerCall is ops per workload call (1 when unknown).
func opsPerCall(s *results.StepResult) float64 {
	if s.Calls > 0 && s.Ops > 0 {
		return float64(s.Ops) / float64(s.Calls)
	}
	return 1
}

// poolShare is the fraction of a call spent waiting for pool checkouts.
func poolShare(s *results.StepResult) (float64, bool) {
	if s.Latency.Mean <= 0 {
		return 0, false
	}
	return s.Pool.CheckoutWait.Mean * opsPerCall(s) / s.Latency.Mean, true
}

func (c Classifier) poolBound(s *results.StepResult) (bool, string) {
	share, ok := poolShare(s)
	if !ok || s.MaxPoolSize <= 0 || s.Concurrency <= s.MaxPoolSize || share < c.PoolWaitShare {
		return false, ""
	}
	perCall := ""
	if n := opsPerCall(s); n != 1 {
		perCall = fmt.Sprintf(" × %.3g ops/call", n)
	}
	if s.Open != nil {
		// Open loop: the calls in flight, not a worker count, outnumber
		// the pool.
		return true, fmt.Sprintf("pool checkout wait mean %.2f ms/op%s is %.0f%% of call latency %.2f ms; %.0f calls in flight on average (%d at most) for maxPoolSize %d",
			s.Pool.CheckoutWait.Mean, perCall, share*100, s.Latency.Mean, s.Open.InFlightMean, s.Open.InFlightMax, s.MaxPoolSize)
	}
	return true, fmt.Sprintf("pool checkout wait mean %.2f ms/op%s is %.0f%% of call latency %.2f ms; concurrency %d > maxPoolSize %d",
		s.Pool.CheckoutWait.Mean, perCall, share*100, s.Latency.Mean, s.Concurrency, s.MaxPoolSize)
}

// sameSeries reports whether prev is an earlier point of step's curve.
func sameSeries(step, prev *results.StepResult) bool {
	return prev != nil && prev.Target == step.Target && prev.Workload == step.Workload &&
		prev.PoolSetting == step.PoolSetting && prev.Clients == step.Clients &&
		prev.Concurrency > 0 && prev.Concurrency < step.Concurrency
}

func (c Classifier) noneReason(s *results.StepResult) string {
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
	queueAt := s.Server.Total
	if s.Server.ShardTotal != nil {
		queueAt = s.Server.ShardTotal
	}
	if q := queueAt.Queued(); q != nil {
		msg += fmt.Sprintf(" server queue %.1f", *q)
	} else {
		msg += " server queue not reported"
	}
	if sampled := s.Server.ShardsSampled; sampled != nil && !*sampled {
		msg += "; shards not sampled (" + s.Server.ShardsNotSampled + "), so a saturated shard may not show here"
	}
	if c.ServerCores == 0 {
		for _, h := range judgedHosts(s.Server) {
			if h.sample.CoresMayMissQuota {
				msg += "; " + quotaNote(h)
				break
			}
		}
	}
	return msg
}

// quotaNote says that the CPU rule may miss a container's CPU quota on h.
func quotaNote(h judgedHost) string {
	who := h.name
	if who == "" {
		who = "the server"
	}
	cores := "its host's cores"
	if h.sample.Cores != nil {
		cores = fmt.Sprintf("its host's %d cores", *h.sample.Cores)
	}
	return fmt.Sprintf("%s looks like a container (hostInfo: memory limit below the host's memory): the CPU rule uses %s and may miss a CPU quota; give --server-cores", who, cores)
}
