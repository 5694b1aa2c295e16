package results

import "cmp"

// Arrival processes of an open-loop step (--arrivals).
const (
	// ArrivalsUniform: one arrival every 1/rate, exactly.
	ArrivalsUniform = "uniform"
	// ArrivalsPoisson: independent arrivals at the given mean rate
	// (exponential gaps), the way independent users arrive.
	ArrivalsPoisson = "poisson"
)

// ModeOpen is StepResult.Mode of an open-loop step; closed-loop steps
// leave Mode empty.
const ModeOpen = "open"

// OpenLoopStats is what an open-loop step (--rate) offered, what it
// carried, and where its calls' time went. Rates are calls/s over the
// measured window, summed over the clients; latencies are per call, in
// milliseconds. The window rule is the closed loop's: a call counts
// toward achieved_per_s when it ends inside the window, and one still
// running at the close is recorded with its full latency when it ends, or
// as a timeout of its age.
type OpenLoopStats struct {
	Arrivals string `json:"arrivals"` // uniform or poisson
	// MaxInFlight is the most calls one client runs at once; an arrival
	// that finds that many running is dropped.
	MaxInFlight int `json:"max_in_flight"`
	// Offered is the arrivals due inside the window (issued, dropped or
	// not issued), OfferedPerS their rate.
	Offered     int64   `json:"offered"`
	OfferedPerS float64 `json:"offered_per_s"`
	// AchievedPerS is the calls that ended inside the window, per second
	// (the step's calls_per_s).
	AchievedPerS float64 `json:"achieved_per_s"`
	// Dropped is the arrivals due inside the window that found
	// max_in_flight calls running in their client: counted, never run.
	Dropped int64 `json:"dropped"`
	// NotIssued is the arrivals due inside the window that the client
	// never got round to issuing, because its schedule fell too far
	// behind (a starved load host); 0 when it kept up.
	NotIssued int64 `json:"not_issued"`
	// InFlightMean is the time-average of the calls running in the
	// client over the window (summed over clients), InFlightMax the most
	// at any moment.
	InFlightMean float64 `json:"in_flight_mean"`
	InFlightMax  int     `json:"in_flight_max"`
	// Corrected is each call's latency from its intended start, the
	// arrival time the schedule gave it (corrected for coordinated
	// omission); the step's latency_ms is the same distribution.
	Corrected LatencySummary `json:"corrected_ms"`
	// Uncorrected is each call's latency from the moment its first
	// operation was sent to the server, after it got a connection: what a
	// tool that starts the clock when a request goes out would report.
	// Calls that never got a connection have none; nil when no call did.
	Uncorrected *LatencySummary `json:"uncorrected_ms"`
	// The corrected latency split, per call: StartLag from the intended
	// start to the call starting in the client (the load host's own
	// delay), PoolWait waiting for connections (the rest of the call's
	// time outside the server, summed over its operations), Service from
	// each operation's send to its reply, summed over the call.
	StartLag Quantiles `json:"start_lag_ms"`
	PoolWait Quantiles `json:"pool_wait_ms"`
	Service  Quantiles `json:"service_ms"`
	// LatencyTrend is the mean corrected latency of the calls due in each
	// tenth of the window, in order; null for a tenth with no call. A
	// rising trend is a queue that grows: more offered than carried.
	LatencyTrend []*float64 `json:"latency_trend_ms"`
	// BehindAtCloseMs is how far the arrival schedule was behind the
	// clock when the window closed (0 when it kept up).
	BehindAtCloseMs float64 `json:"behind_at_close_ms"`
	// ClientBusy is the share of this process's cores (GOMAXPROCS) that
	// were busy over the window, and SchedLatencyP99Ms the 99th percentile
	// of how long its runnable goroutines waited for a core (both from the
	// Go runtime); nil when the runtime does not say.
	ClientBusy        *float64 `json:"client_busy"`
	SchedLatencyP99Ms *float64 `json:"sched_latency_p99_ms"`
	// RunQueueWaitPct is the share of the time this process's threads
	// were runnable that they waited for a CPU in the kernel's run queue,
	// and RunQueueMeanWaitMs the mean wait each time one was given a CPU
	// (Linux schedstat); nil where the kernel does not say. Other busy
	// processes on the load host show here, not in the Go scheduler's
	// numbers.
	RunQueueWaitPct    *float64 `json:"run_queue_wait_pct"`
	RunQueueMeanWaitMs *float64 `json:"run_queue_mean_wait_ms"`
	// ClientBehind says the load host, not the target, set part of the
	// numbers: arrivals were not issued or started late (start_lag_ms),
	// the client's cores were busy all the window, or its goroutines
	// waited to run about as long as the server took to reply. The step's
	// warnings say how much.
	ClientBehind bool `json:"client_behind"`
}

// PoolWaitShare is the typical call's share of its latency spent waiting
// for a connection: the median pool wait over the median corrected
// latency; 0 when the latency is unknown. Medians, because a pause of the
// server makes every call wait for a connection whatever the pool, and
// lifts the means; the medians show what the pool size itself does.
func (o *OpenLoopStats) PoolWaitShare() float64 {
	if o == nil || o.Corrected.P50 <= 0 {
		return 0
	}
	return min(1, o.PoolWait.P50/o.Corrected.P50)
}

// AchievedShare is achieved_per_s as a fraction of offered_per_s; 0 when
// nothing was offered.
func (o *OpenLoopStats) AchievedShare() float64 {
	if o == nil || o.OfferedPerS <= 0 {
		return 0
	}
	return o.AchievedPerS / o.OfferedPerS
}

// CompareOpenSteps orders open-loop steps the way their tables list them:
// by target, workload, pool size, offered rate and trial.
func CompareOpenSteps(a, b *StepResult) int {
	return cmp.Or(cmp.Compare(a.Target, b.Target), cmp.Compare(a.Workload, b.Workload),
		cmp.Compare(a.MaxPoolSize, b.MaxPoolSize), cmp.Compare(a.Rate, b.Rate), cmp.Compare(a.Trial, b.Trial))
}
