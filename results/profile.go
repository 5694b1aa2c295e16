package results

// ModeProfile is StepResult.Mode of a step whose load follows a profile
// (sweep --profile): open-loop arrivals at a rate that changes over the
// step (idle spells, bursts, ramps, a sinusoid, a recorded trace), with a
// timeline of short intervals instead of one steady window. Such a step
// measures how the pool meets change; the knee and the open loop's
// "which pool carries which rate" never read it.
const ModeProfile = "profile"

// PoolOptions are the driver's pool options a step ran with beyond
// maxPoolSize (the step's max_pool_size): the values on the
// --min-pool, --max-connecting, --max-idle, --timeout, --retry,
// --server-selection-timeout and --heartbeat axes, or the URI's or the
// driver's where the axis was not swept (recorded as they were in
// effect, so that every step says what it ran with). Cold says the
// step's pools started empty (--cold) instead of pre-warmed.
type PoolOptions struct {
	MinPoolSize   int   `json:"min_pool_size"`
	MaxConnecting int   `json:"max_connecting"`
	MaxIdleMS     int64 `json:"max_idle_ms"` // 0: connections never close for being idle
	TimeoutMS     int64 `json:"timeout_ms"`  // 0: no per-operation timeout beyond --op-timeout
	// RetryReads and RetryWrites are the driver's retryReads and
	// retryWrites, "on" or "off"; ServerSelectionTimeoutMS is how long an
	// operation may wait for a server: the driver's
	// serverSelectionTimeoutMS, or --op-timeout where the driver has none
	// (poolsweep leaves it unset, and each operation's bound includes its
	// wait); HeartbeatMS the driver's heartbeatFrequencyMS. Each is
	// absent ("" or 0) in files from before it was recorded. Values, not
	// pointers: settings are told apart by comparing PoolOptions.
	RetryReads               string `json:"retry_reads,omitempty"`
	RetryWrites              string `json:"retry_writes,omitempty"`
	ServerSelectionTimeoutMS int64  `json:"server_selection_timeout_ms,omitempty"`
	HeartbeatMS              int64  `json:"heartbeat_ms,omitempty"`
	Cold                     bool   `json:"cold,omitempty"`
}

// MinHeartbeatMS is the shortest heartbeatFrequencyMS drivers take (the
// server discovery and monitoring specification's
// minHeartbeatFrequencyMS, 500 ms).
const MinHeartbeatMS = 500

// ProfileStats is what a profile step recorded: the profile as given,
// its phases on the step's clock, the timeline of intervals, and the
// summary computed from them.
type ProfileStats struct {
	// Spec is the --profile value as given (a trace file by its name).
	Spec string `json:"spec"`
	// PeakRate is the highest rate the profile asks for, calls/s.
	PeakRate float64 `json:"peak_rate"`
	// Phases are the profile's phases, each with its start and end on
	// the timeline's clock (seconds from the first arrival's due time).
	Phases []ProfilePhase `json:"phases"`
	// Timeline is the step, interval by interval.
	Timeline Timeline `json:"timeline"`
	// Summary is computed from Timeline and Phases once, as the step is
	// recorded (analysis/timeline.Summarize).
	Summary ProfileSummary `json:"summary"`
	// Events are what was done to the target during the step (sweep
	// --event), each with its summary; absent without events.
	Events []StepEvent `json:"events,omitempty"`
}

// ProfilePhase is one phase of a load profile: its kind (idle, rate,
// ramp, sine, trace), where it lies on the step's clock, and the rates
// at its start and end (for a sine, its low and high; for a trace, its
// lowest and highest).
type ProfilePhase struct {
	Kind   string  `json:"kind"`
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	From   float64 `json:"from_per_s"`
	To     float64 `json:"to_per_s"`
}

// Timeline is a profile step interval by interval. Each interval is
// IntervalS long (at most 0.1 s); interval i covers [i×IntervalS,
// (i+1)×IntervalS) from the first arrival's due time. Calls are filed
// under the interval of their intended start (so a call's latency is
// charged to when the load asked for it, coordinated omission
// corrected); pool events under the interval they happened in.
type Timeline struct {
	IntervalS float64            `json:"interval_s"`
	Intervals []TimelineInterval `json:"intervals"`
}

// TimelineInterval is one interval of a Timeline.
type TimelineInterval struct {
	// Offered is the arrivals due in the interval; Calls the calls that
	// started (by intended start) in it and completed, Ops their
	// operations; Dropped the arrivals that found max_in_flight running.
	Offered int64 `json:"offered"`
	Calls   int64 `json:"calls"`
	Ops     int64 `json:"ops"`
	Dropped int64 `json:"dropped,omitempty"`
	// P50MS and P99MS are the corrected latency of the interval's calls,
	// by intended start; absent (nil) when no call started in it.
	P50MS *float64 `json:"p50_ms,omitempty"`
	P99MS *float64 `json:"p99_ms,omitempty"`
	// CheckoutWaitP99MS and CheckoutWaitMaxMS are the driver's checkout
	// waits that ended in the interval; absent when none did.
	CheckoutWaitP99MS *float64 `json:"checkout_wait_p99_ms,omitempty"`
	CheckoutWaitMaxMS *float64 `json:"checkout_wait_max_ms,omitempty"`
	// Open and InUse are the connections open and checked out at the
	// interval's end, over every client and host; Created, Closed and
	// Clears the pool events in the interval.
	Open    int   `json:"open"`
	InUse   int   `json:"in_use"`
	Created int64 `json:"created,omitempty"`
	Closed  int64 `json:"closed,omitempty"`
	Clears  int64 `json:"clears,omitempty"`
	// Errors are the failed operations of the calls started in the
	// interval, by kind (ErrorCounts' kinds, the step's errors filed by
	// their call's intended start); absent when none failed.
	Errors *ErrorCounts `json:"errors,omitempty"`
	// RetriedOK is the operations of the interval's calls that failed
	// once and succeeded on the driver's retry (retryable reads and
	// writes); absent when none did.
	RetriedOK int64 `json:"retried_ok,omitempty"`
	// Hosts are the same pool figures for each host the clients
	// connected to; absent in steps recorded without them (steps without
	// events), and for a host before its first connection.
	Hosts []HostInterval `json:"hosts,omitempty"`
}

// HostInterval is one host's connections in one timeline interval.
type HostInterval struct {
	Host string `json:"host"`
	// Open is the connections this run's clients held to the host at the
	// interval's end; Created and Closed the pool events in the interval.
	Open    int   `json:"open"`
	Created int64 `json:"created,omitempty"`
	Closed  int64 `json:"closed,omitempty"`
}

// ProfileSummary is a profile step in a few numbers. A figure that the
// step gives no evidence for is absent (nil), with the reason in Notes.
type ProfileSummary struct {
	// TimeToFillS is from the first loaded interval until the pool first
	// held the connections the load needed (the in-flight calls the
	// step settled at, capped by the pool).
	TimeToFillS *float64 `json:"time_to_fill_s"`
	// WorstP99MS is the worst interval p99; FirstSecondP99MS the p99 of
	// the first second after the load first rose.
	WorstP99MS       *float64 `json:"worst_p99_ms"`
	FirstSecondP99MS *float64 `json:"first_second_p99_ms"`
	// SteadyP99MS and SteadyPerS are the steady state the step settled
	// at (the last loaded phase's second half), each with its interval;
	// TimeToSteadyS is from the load's rise until throughput and p99
	// stayed within that state's interval.
	SteadyPerS    *Interval `json:"steady_per_s"`
	SteadyP99MS   *Interval `json:"steady_p99_ms"`
	TimeToSteadyS *float64  `json:"time_to_steady_s"`
	// The churn: connections created and closed over the step, and pool
	// clears.
	ConnectionsCreated int64 `json:"connections_created"`
	ConnectionsClosed  int64 `json:"connections_closed"`
	PoolClears         int64 `json:"pool_clears"`
	// Held is the connections still open some seconds after the load
	// last fell (one entry per delay the profile's tail covers).
	Held []HeldAfter `json:"held_after_load,omitempty"`
	// Bursts are the same figures for each rise of the load after an
	// idle or lower spell, in order: a second burst after an idle spell
	// longer than maxIdleTimeMS shows whether the pool shrank.
	Bursts []BurstSummary `json:"bursts,omitempty"`
	Notes  []string       `json:"notes,omitempty"`
}

// HeldAfter is the connections open AfterS seconds after the load fell.
type HeldAfter struct {
	AfterS      float64 `json:"after_s"`
	Connections int     `json:"connections"`
}

// BurstSummary is one rise of a profile's load.
type BurstSummary struct {
	StartS           float64  `json:"start_s"`
	OpenAtStart      int      `json:"open_at_start"`
	TimeToFillS      *float64 `json:"time_to_fill_s"`
	WorstP99MS       *float64 `json:"worst_p99_ms"`
	FirstSecondP99MS *float64 `json:"first_second_p99_ms"`
	TimeToSteadyS    *float64 `json:"time_to_steady_s"`
	Created          int64    `json:"connections_created"`
}

// Interval is an estimate with its 95 % interval.
type Interval struct {
	Value float64 `json:"value"`
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
}
