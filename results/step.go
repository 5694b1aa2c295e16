package results

import (
	"fmt"
	"strconv"
	"time"
)

// StepResult is one measured step: (target, concurrency, pool, clients,
// trial) after its warm-up. Counts include errors; latencies cover the
// measured window only.
type StepResult struct {
	Kind     string `json:"kind"`
	Target   string `json:"target"`
	Workload string `json:"workload"`
	// ReadPreference and WriteConcern are the step's values on the
	// --read-preference and --write-concern axes (ReadPreferences,
	// WriteConcerns); absent when the axis was not swept (the URI's or
	// the driver's default applied). Workload's label carries them too.
	ReadPreference string                 `json:"read_preference,omitempty"`
	WriteConcern   string                 `json:"write_concern,omitempty"`
	PoolSetting    string                 `json:"pool_setting"` // "match" or the number, the series key
	Concurrency    int                    `json:"concurrency"`
	MaxPoolSize    int                    `json:"max_pool_size"`
	Clients        int                    `json:"clients"`
	Connections    int                    `json:"connections"` // open connections seen by pool events at window start
	Trial          int                    `json:"trial"`
	StartedAt      time.Time              `json:"started_at"`
	DurationS      float64                `json:"duration_s"`
	Calls          int64                  `json:"calls"`
	Ops            int64                  `json:"ops"`
	CallsPerS      float64                `json:"calls_per_s"`
	OpsPerS        float64                `json:"ops_per_s"`
	Errors         ErrorCounts            `json:"errors"`
	ErrorSample    string                 `json:"error_sample,omitempty"`
	Latency        LatencySummary         `json:"latency_ms"` // per call
	OpsByType      map[string]OpTypeStats `json:"ops_by_type"`
	Pool           PoolStats              `json:"pool"`
	Interrupted    bool                   `json:"interrupted,omitempty"`
	// InFlightAtClose counts the calls still running when the window
	// closed, and OldestInFlightMS is the age of the oldest of them then.
	// Those calls are not dropped: each is recorded in the latency
	// histograms with its full latency when it ends, or as a timeout of at
	// least its age when it does not end within the operation timeout.
	InFlightAtClose  int     `json:"in_flight_at_close"`
	OldestInFlightMS float64 `json:"oldest_in_flight_ms"`
	// OpsAfterClose are the operations that started in the window and
	// ended after it (or were sealed as timeouts): in the latency
	// histograms and the error counts, not in Ops or the rates.
	OpsAfterClose int64 `json:"ops_after_close"`
	// LoadedKeyOps counts the reads, scans and updates (ending in the
	// window, or straddling its end) by a key poolsweep loaded, or found
	// loaded, before the sweep: each should find its document. NotFound
	// counts those that found none: the target lost the data (restarted
	// empty, dropped, reloaded by someone else). Both are absent (zero) in
	// older files and where no op reads by a loaded key.
	LoadedKeyOps int64 `json:"loaded_key_ops,omitempty"`
	NotFound     int64 `json:"not_found,omitempty"`
	// Phases is where the step's wall time went.
	Phases *StepPhases `json:"phases_s,omitempty"`
	// Search says why an adaptive search chose this step; absent in a grid.
	Search *SearchInfo `json:"search,omitempty"`
	// ExtraTrial says why a grid whose --trials is a maximum took this
	// trial beyond the first (PlanInfo.TrialsAtMost); absent otherwise.
	ExtraTrial *ExtraTrial `json:"extra_trial,omitempty"`
	// Steady is how the warm-up and window were chosen and the window's
	// batch-means interval (steady.go); absent in older files.
	Steady *StepSteady `json:"steady,omitempty"`

	// Mode is "open" for an open-loop step (--rate) and absent for the
	// closed loop. Rate is its offered calls/s as planned; Open has what
	// it offered and carried and where its calls' time went (latency_ms
	// is then the corrected latency, from each call's intended start).
	Mode string         `json:"mode,omitempty"`
	Rate int            `json:"rate,omitempty"`
	Open *OpenLoopStats `json:"open_loop,omitempty"`
	// PoolOptions are the pool options beyond maxPoolSize the step ran
	// with; absent in older files and in steps that swept none of them.
	PoolOptions *PoolOptions `json:"pool_options,omitempty"`
	// ServerParams are the server parameters the step ran with on a
	// --server-param axis, each with the value getParameter read back on
	// every host it was set on; absent when no parameter was swept.
	ServerParams []ServerParam `json:"server_params,omitempty"`
	// Profile is a profile step's timeline and summary (Mode "profile").
	Profile *ProfileStats `json:"profile,omitempty"`

	// Telemetry; absent (nil) until a sampler fills it.
	Server      *ServerTelemetry `json:"server,omitempty"`
	Client      *ClientTelemetry `json:"client,omitempty"`
	LittlesLaw  *LittlesLaw      `json:"littles_law,omitempty"`
	Bound       string           `json:"bound,omitempty"`
	BoundReason string           `json:"bound_reason,omitempty"`
	Warnings    []string         `json:"warnings,omitempty"`
	// TargetFailed marks a step during which the target failed (it died,
	// or stopped answering); nil when it did not. Such a step is not a
	// measurement of the deployment: analyses leave it out and --resume
	// measures it again.
	TargetFailed *TargetFailed `json:"target_failed,omitempty"`
	// PrimaryChange says a replica set's primary changed (or none was
	// known) during the window, as the step's clients saw it; nil when it
	// held or the target has no primary. The step measured an election.
	PrimaryChange *PrimaryChange `json:"primary_change,omitempty"`

	// Histograms are the window's HDR histograms in HdrHistogram's
	// standard compressed base64 encoding, so that steps measured by
	// several agents merge exactly.
	Histograms *StepHistograms `json:"histograms,omitempty"`
	// Agent is this agent's part in a step measured in lock step.
	Agent *AgentStep `json:"agent,omitempty"`
	// Partial says the step ran without some of the run's agents;
	// MissingAgents names them and why.
	Partial       bool           `json:"partial,omitempty"`
	MissingAgents []MissingAgent `json:"missing_agents,omitempty"`
	// Agents (merged results) is each agent's share of the step, and
	// WindowSkew how far their windows were apart.
	Agents     []AgentShare `json:"agents,omitempty"`
	WindowSkew *WindowSkew  `json:"window_skew,omitempty"`
}

// Key identifies a step across runs and files (its target, workload, pool
// setting, concurrency, clients, trial and offered rate): --resume skips
// the planned steps whose key is in the file, and merge lines agents'
// records up by it. A later record of a key replaces an earlier one.
func (s StepResult) Key() string {
	return StepKey(s.Target, s.Workload, s.PoolSetting, s.Concurrency, s.Clients, s.Trial, s.Rate)
}

// StepKey is the key of a step with these levels (see StepResult.Key);
// rate is 0 for the closed loop, whose keys have no rate part.
func StepKey(target, workload, pool string, concurrency, clients, trial, rate int) string {
	k := fmt.Sprintf("%s|%s|%d|%s|%d|%d", target, workload, concurrency, pool, clients, trial)
	if rate > 0 {
		k += "|r" + strconv.Itoa(rate)
	}
	return k
}

// Measured says whether the step counts as a measurement of the
// deployment: its window ran to its end, the target did not fail during
// it, and no election changed the primary in it (such a step measured the
// election) unless the step stepped the primary down itself (SteppedDown:
// the election is what it measured). --resume measures the others again.
func (s StepResult) Measured() bool {
	return !s.Interrupted && s.TargetFailed == nil && (s.PrimaryChange == nil || s.SteppedDown())
}

// SteppedDown says the step fired a step-down into its load
// (sweep --event stepdown) and the primary stepped down.
func (s StepResult) SteppedDown() bool {
	if s.Profile == nil {
		return false
	}
	for _, ev := range s.Profile.Events {
		if ev.Action == EventStepDown && ev.Error == "" {
			return true
		}
	}
	return false
}

// TargetFailed is the mark of a step during which the target failed: the
// evidence the engine saw. Times are seconds from the window's opening
// (past duration_s: during the drain after it closed).
type TargetFailed struct {
	Failed bool   `json:"failed"`
	Reason string `json:"reason"`
	// FirstFailureS is when the first failure was seen: an operation
	// that failed on the network or timed out, a connection closed by an
	// error, or the driver clearing a pool.
	FirstFailureS float64 `json:"first_failure_s"`
	// StalledFromS and StalledS are the longest stretch after a failure
	// in which no operation succeeded: from the last success before it to
	// the next success, or to the end of the step when none came
	// (Recovered false).
	StalledFromS float64 `json:"stalled_from_s"`
	StalledS     float64 `json:"stalled_s"`
	Recovered    bool    `json:"recovered"`
	// PoolCleared counts the pools the driver cleared because it saw the
	// server fail (a network error that was not a timeout).
	PoolCleared     int64       `json:"pool_cleared"`
	ConnectionsLost int64       `json:"connections_lost"`
	SamplerErrors   int         `json:"sampler_errors"`
	InFlightAtClose int         `json:"in_flight_at_close"`
	Errors          ErrorCounts `json:"errors"`
	// Cause is what the mark rests on: CauseOutage (absent in older
	// files: a stall after failures the driver or the sampler saw),
	// CauseFrozen (calls hung far past the window's own latencies) or
	// CauseDataLost (reads by loaded keys found no document).
	Cause string `json:"cause,omitempty"`
	// StuckCalls counts the calls that took StuckAfterMS or longer:
	// those in flight at the close, or inside the window, that hung;
	// StuckAfterMS is max(1 s, 10 × WindowP99MS), and WindowP99MS the
	// p99 of the calls that ended inside the window, less the slowest
	// one per worker. OldestInFlightMS is the step's oldest_in_flight_ms.
	StuckCalls       int64   `json:"stuck_calls,omitempty"`
	StuckAfterMS     float64 `json:"stuck_after_ms,omitempty"`
	WindowP99MS      float64 `json:"window_p99_ms,omitempty"`
	OldestInFlightMS float64 `json:"oldest_in_flight_ms,omitempty"`
	// NotFound and LoadedKeyOps are the step's own counts.
	NotFound     int64 `json:"not_found,omitempty"`
	LoadedKeyOps int64 `json:"loaded_key_ops,omitempty"`
}

// Causes of a target_failed mark (TargetFailed.Cause).
const (
	CauseOutage   = "outage"
	CauseFrozen   = "frozen"
	CauseDataLost = "data_lost"
)

// TargetFailedCauses are the values of TargetFailed.Cause ("" reads as
// CauseOutage).
var TargetFailedCauses = []string{"", CauseOutage, CauseFrozen, CauseDataLost}

// StepPhases is a step's wall time by phase, in seconds: checking that
// the target answers, opening the pool's connections, the warm-up, the
// measured window, and the teardown (workers finishing their calls,
// telemetry, closing the connections).
type StepPhases struct {
	Check    float64 `json:"check"`
	Prewarm  float64 `json:"prewarm"`
	Warmup   float64 `json:"warmup"`
	Window   float64 `json:"window"`
	Teardown float64 `json:"teardown"`
	// Barrier is the wait for the other agents (agent mode).
	Barrier float64 `json:"barrier,omitempty"`
}

// Total is the step's wall time.
func (p StepPhases) Total() float64 {
	return p.Check + p.Prewarm + p.Warmup + p.Window + p.Teardown + p.Barrier
}

// ErrorCounts counts failed ops by kind.
type ErrorCounts struct {
	Timeout int64 `json:"timeout"`
	Network int64 `json:"network"`
	Server  int64 `json:"server"`
	// Of the errors above, NotWritablePrimary are the replies of a member
	// that is not (or no longer) the primary, or that stepped down while
	// the operation ran (codes 10107, 13435, 13436, 189, 11602), and
	// PoolCleared the operations refused because their pool was cleared
	// after another failed. They are counted in Total through their kind
	// (server, network), not again.
	NotWritablePrimary int64 `json:"not_writable_primary,omitempty"`
	PoolCleared        int64 `json:"pool_cleared,omitempty"`
}

// Total is the number of failed ops of every kind.
func (e ErrorCounts) Total() int64 { return e.Timeout + e.Network + e.Server }

// FailedShare is the fraction of the step's operations that failed,
// counting those that straddled the window's end (whose errors are in
// Errors but which are not in Ops); 0 when there were none.
func (s StepResult) FailedShare() float64 {
	n := s.Ops + s.OpsAfterClose
	if n <= 0 {
		return 0
	}
	return float64(s.Errors.Total()) / float64(n)
}

// LatencySummary is a latency distribution in milliseconds.
type LatencySummary struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// OpTypeStats is the count, rate and latency of one driver operation type
// (find, update, insert, scan).
type OpTypeStats struct {
	Count   int64          `json:"count"`
	PerS    float64        `json:"per_s"`
	Errors  int64          `json:"errors"`
	Latency LatencySummary `json:"latency_ms"`
}

// PoolStats is what the driver's pool events said during the window.
type PoolStats struct {
	CheckoutWait       Quantiles `json:"checkout_wait_ms"`
	CheckoutFailed     int64     `json:"checkout_failed"`
	ConnectionsOpen    int       `json:"connections_open"`
	ConnectionsMax     int       `json:"connections_max"`
	ConnectionsCreated int64     `json:"connections_created"`
	// ConnectionsLost were closed by an error during the window (a reset,
	// a server gone): a fault the driver's retries may hide from the ops.
	ConnectionsLost int64   `json:"connections_lost"`
	PrewarmS        float64 `json:"prewarm_s"`
	// Hosts are the same numbers per server the clients kept a pool to
	// (the driver keeps one per member of a replica set, one per mongos),
	// from the pool events, which name the server; sorted by host. Absent
	// from files written before it.
	Hosts []HostPool `json:"hosts,omitempty"`
	// HeartbeatsPerS is the hellos the clients' monitors sent per second
	// during the window, to all servers together (the driver's
	// heartbeats; a streaming monitor's round-trip hellos are not among
	// them): the monitoring traffic the step's clients cost. Absent where
	// the URI set its own server monitor, and in files written before it.
	HeartbeatsPerS *float64 `json:"heartbeats_per_s,omitempty"`
}

// PrimaryChange is a replica set's primary changing during a window.
type PrimaryChange struct {
	Before string `json:"before"` // primary when the window opened ("" none known)
	After  string `json:"after"`  // primary when it closed ("" none known)
	// Changes counts the new primaries seen in the window; NoPrimaryMS is
	// how long in it no primary was known (writes could not be served).
	Changes     int     `json:"changes"`
	NoPrimaryMS float64 `json:"no_primary_ms"`
}

// MemberLag is one secondary's replication lag during a window: how far
// its applied optime was behind the primary's, as the primary saw them.
type MemberLag struct {
	Host    string  `json:"host"`
	StartMS float64 `json:"lag_start_ms"` // at the window's first sample
	EndMS   float64 `json:"lag_end_ms"`   // at its last
	MaxMS   float64 `json:"lag_max_ms"`
	Samples int     `json:"samples"`
	// PrecisionMS is 1 when the server gives applied times in
	// milliseconds (lastAppliedWallTime, 4.4+), 1000 when only in seconds
	// (optimeDate).
	PrecisionMS float64 `json:"precision_ms"`
	// FellBehind says its lag grew by 1.5 s or more over the window, or
	// reached 10 s: it could not keep up with the primary's writes.
	FellBehind bool `json:"fell_behind,omitempty"`
}

// HostPool is the step's pools to one server, summed over its clients.
type HostPool struct {
	Host string `json:"host"`
	// Role is what the server was when the window opened: primary,
	// secondary, mongos, standalone; absent when not known.
	Role            string `json:"role,omitempty"`
	ConnectionsOpen int    `json:"connections_open"` // at window start
	ConnectionsMax  int    `json:"connections_max"`  // most open during the window
	// InUseMax is the most connections checked out at once during the
	// window: what the workload needed of this server's pools.
	InUseMax           int       `json:"in_use_max"`
	ConnectionsCreated int64     `json:"connections_created"` // during the window
	ConnectionsLost    int64     `json:"connections_lost"`
	Checkouts          int64     `json:"checkouts"` // during the window
	CheckoutFailed     int64     `json:"checkout_failed"`
	CheckoutWait       Quantiles `json:"checkout_wait_ms"`
}

// Quantiles is a short distribution summary in milliseconds.
type Quantiles struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// LittlesLaw compares the configured in-flight calls with calls/s × latency.
type LittlesLaw struct {
	ExpectedInFlight float64 `json:"expected_in_flight"`
	MeasuredInFlight float64 `json:"measured_in_flight"`
	DeviationPct     float64 `json:"deviation_pct"`
	OK               bool    `json:"ok"`
}
