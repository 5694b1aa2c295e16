package results

// Event actions (sweep --event T=ACTION): what is done to the target at T
// into a profile step.
const (
	// EventStepDown: replSetStepDown on the replica set's primary.
	EventStepDown = "stepdown"
	// EventSlow: the server's service time × Factor for Duration.
	EventSlow = "slow"
	// EventFreeze: the server answers nothing for Duration.
	EventFreeze = "freeze"
	// EventReset: the server closes every client connection.
	EventReset = "reset"
	// EventRouterRestart: a mongos closes its connections and is
	// unavailable for its restart time.
	EventRouterRestart = "router-restart"
)

// How an event was performed on the target.
const (
	// EventViaSimulator: the simulator's own administrative command,
	// which no real server has.
	EventViaSimulator = "simulator"
	// EventViaStepDown: the replSetStepDown command.
	EventViaStepDown = "replSetStepDown"
	// EventViaFailPoint: the failCommand fail point (blockConnection),
	// on a server whose test commands are enabled.
	EventViaFailPoint = "failCommand"
	// EventViaLeader: another agent of the run, its leader, fired the
	// event for the whole fleet (agent mode); this agent's record holds
	// it at its planned time, and the leader's when and how.
	EventViaLeader = "leader"
)

// EventSpec is one --event as planned: its time into the profile, its
// action, and the action's factor and length where it has them.
type EventSpec struct {
	Spec      string  `json:"spec"` // as given, e.g. "20s=slow=10:5s"
	AtS       float64 `json:"at_s"`
	Action    string  `json:"action"`
	Factor    float64 `json:"factor,omitempty"`     // slow
	DurationS float64 `json:"duration_s,omitempty"` // slow, freeze
}

// StepEvent is one event as it happened in a profile step: when it was
// fired and ended on the timeline's clock, how, on which host, and what
// it did to the load (its summary, computed from the timeline once as the
// step is recorded).
type StepEvent struct {
	EventSpec
	// FiredS is when the action was sent, EndS when its trigger was gone
	// (the slowdown or freeze over, the new primary elected as the
	// clients saw it, the router back), on the timeline's clock; EndS is
	// absent when the step ended first.
	FiredS float64  `json:"fired_s"`
	EndS   *float64 `json:"end_s,omitempty"`
	Via    string   `json:"via"`
	Host   string   `json:"host,omitempty"`
	// Error is why the action could not be performed; the step then
	// measured no event.
	Error   string        `json:"error,omitempty"`
	Summary *EventSummary `json:"summary,omitempty"`
	// Storms are the reconnect storms the event set off, one per host
	// the clients opened connections to after it, busiest first; absent
	// when they opened none.
	Storms []ReconnectStorm `json:"reconnect_storms,omitempty"`
}

// EventSummary is what an event did to the load.
type EventSummary struct {
	// TimeToRecoverS is from the event until the first interval after
	// which throughput and p99 stay within the steady state's interval;
	// nil when the load never recovered in the step (see DegradedAfter)
	// or the step has no steady state to recover to.
	TimeToRecoverS *float64 `json:"time_to_recover_s"`
	// Errors are the failed operations from the event until the later of
	// its recovery and its trigger's end (the step's end when it did not
	// recover), by kind; RetriedOK the operations that failed once and
	// succeeded on the driver's retry in that span.
	Errors    ErrorCounts `json:"errors"`
	RetriedOK int64       `json:"retried_ok"`
	// TimeToRefillS is from the event until the connections open over
	// every host, having fallen below what the steady state before it
	// held in use (RefillTarget), reached that again (0 when they never
	// fell below it); nil when they had not by the step's end, or there
	// is no steady state. A stepped-down primary is left out: it keeps
	// its connections, idle, while the load moves to the new primary.
	TimeToRefillS *float64 `json:"time_to_refill_s"`
	// RefillTarget is the connections a refill reaches: the steady
	// state's mean in use, rounded up, capped by the pools (absent
	// without a steady state).
	RefillTarget int `json:"refill_target,omitempty"`
	// RefillHosts is each host's own refill: the new primary's, the
	// other router's (absent without per-host counts or a steady state).
	RefillHosts []HostRefill `json:"refill_hosts,omitempty"`
	// The churn in that span.
	ConnectionsCreated int64 `json:"connections_created"`
	ConnectionsClosed  int64 `json:"connections_closed"`
	PoolClears         int64 `json:"pool_clears"`
	// PeakConnections is each host's most connections open in that
	// span, against its limit where the server said it.
	PeakConnections []HostPeak `json:"peak_connections,omitempty"`
	// P99DuringMS is the worst interval p99 from the event until its
	// trigger was gone.
	P99DuringMS *float64 `json:"p99_during_ms"`
	// DegradedAfter says the load stayed outside the steady interval
	// after the trigger was gone, until the step ended.
	DegradedAfter *bool    `json:"degraded_after"`
	Notes         []string `json:"notes,omitempty"`
}

// HostRefill is one host's refill in an event.
type HostRefill struct {
	Host string `json:"host"`
	// TimeToRefillS is from the event until the end of the first
	// interval in which this run's clients held the refill target of
	// connections to the host, having held fewer at or after the event
	// (none, for a host they had no connection to yet); 0 when they
	// never held fewer; nil when they had not reached it by the step's
	// end (a host the load left, or shares with others).
	TimeToRefillS *float64 `json:"time_to_refill_s"`
}

// HostPeak is one host's peak connections in an event.
type HostPeak struct {
	Host string `json:"host"`
	// Peak is the most connections this run's clients held to the host
	// (pool events); ServerPeak the most the server reported open
	// (connections.current), nil without telemetry; Limit the server's
	// connections.current + available, nil where it did not say.
	Peak       int  `json:"peak"`
	ServerPeak *int `json:"server_peak,omitempty"`
	Limit      *int `json:"limit,omitempty"`
}
