package results

import (
	"fmt"
	"strconv"
	"time"
)

// SchemaVersion is the version of results.jsonl this package writes. Readers
// accept any file whose schema is <= SchemaVersion; later additions are new
// keys only, so old readers keep working.
const SchemaVersion = 1

// MaxConcurrency is the most concurrency (workers, or calls in flight,
// per client) a step may have: a plan asking for more is refused, and an
// analysis leaves out a step that claims more.
const MaxConcurrency = 100000

// Record kinds, the value of "kind" on each line of results.jsonl.
const (
	KindRun  = "run"
	KindStep = "step"
	KindEnd  = "end"
)

// End statuses.
const (
	// StatusComplete: every planned step was measured.
	StatusComplete = "complete"
	// StatusPartial: the run went to its end, but some steps failed or
	// were skipped (--keep-going); EndRecord.FailedSteps names them.
	StatusPartial = "partial"
	// StatusInterrupted: a signal (Ctrl-C, SIGTERM, SIGHUP) stopped the run.
	StatusInterrupted = "interrupted"
	// StatusFailed: the run stopped on an error (a step failed without
	// --keep-going, the error-rate stop, a write error).
	StatusFailed = "failed"
)

// RunHeader is the first line of results.jsonl: everything needed to know
// what produced the steps that follow, with credentials redacted.
type RunHeader struct {
	Kind        string         `json:"kind"`
	Schema      int            `json:"schema"`
	RunID       string         `json:"run_id"`
	ToolVersion string         `json:"tool_version"`
	StartedAt   time.Time      `json:"started_at"`
	Workload    WorkloadInfo   `json:"workload"`
	Plan        PlanInfo       `json:"plan"`
	Client      ClientInfo     `json:"client"`
	Targets     []TargetHeader `json:"targets"`
	// Agents describes agent mode (several processes measuring one plan
	// in lock step, or their merged results); nil for one process.
	Agents *AgentsHeader `json:"agents,omitempty"`
}

// WorkloadInfo describes the workload(s) of a run as recorded in the header.
type WorkloadInfo struct {
	Name  string             `json:"name"`
	Mix   map[string]float64 `json:"mix,omitempty"`
	Mixes []string           `json:"mixes,omitempty"` // the series' labels when there are several
	// ReadPreferences and WriteConcerns are the values of the
	// --read-preference and --write-concern axes, when swept.
	ReadPreferences []string `json:"read_preferences,omitempty"`
	WriteConcerns   []string `json:"write_concerns,omitempty"`
	OpsPerCall      float64  `json:"ops_per_call,omitempty"`
	Distribution    string   `json:"distribution"`
	Records         int      `json:"records"`
	FieldCount      int      `json:"field_count"`
	FieldLength     int      `json:"field_length"`
	MaxScanLength   int      `json:"max_scan_length"`
	Database        string   `json:"database"`
	Collection      string   `json:"collection"`
	File            string   `json:"file,omitempty"`
	// Replay is the workload file replayed (--workload-file; replay.go).
	Replay *ReplayInfo `json:"replay,omitempty"`
}

// PlanInfo is the plan as the user gave it and as it was expanded.
type PlanInfo struct {
	Concurrency []int   `json:"concurrency"`
	Pool        string  `json:"pool"`            // "match" or the list as given
	Pools       []int   `json:"pools,omitempty"` // expanded pool list; empty for match
	Clients     int     `json:"clients"`
	Trials      int     `json:"trials"`
	WarmupS     float64 `json:"warmup_s"`
	DurationS   float64 `json:"duration_s"`
	OpTimeoutS  float64 `json:"op_timeout_s"`
	Order       string  `json:"order,omitempty"`
	Steps       int     `json:"steps"`

	// Open loop (--rate): the offered calls/s levels, the arrival process
	// and the most calls in flight per client; absent for a closed loop.
	Rate        []int  `json:"rate,omitempty"`
	Arrivals    string `json:"arrivals,omitempty"`
	MaxInFlight int    `json:"max_in_flight,omitempty"`
	// Search is the adaptive search's settings; absent for a grid.
	Search *SearchPlan `json:"search,omitempty"`
	// Storm is a storm run's settings (poolsweep storm); absent otherwise.
	Storm *StormPlan `json:"storm,omitempty"`
	// Auto is how warm-ups and windows end from the data; absent when both
	// are fixed (WarmupS and DurationS are then the lengths; with auto,
	// the minimums).
	Auto *AutoPlan `json:"auto,omitempty"`
	// TrialsAtMost says Trials is a maximum (issue 25): a grid with auto
	// windows measures every level once, and takes further trials only
	// where neighbouring levels' intervals overlap where the knee is
	// decided (each such step says why in ExtraTrial). False: every level
	// gets Trials trials.
	TrialsAtMost bool `json:"trials_at_most,omitempty"`
}

// ClientInfo describes the machine and software that generated the load.
type ClientInfo struct {
	CPUs          int    `json:"cpus"`
	GoVersion     string `json:"go_version"`
	DriverVersion string `json:"driver_version"`
	OS            string `json:"os,omitempty"`
	Arch          string `json:"arch,omitempty"`
	Hostname      string `json:"hostname,omitempty"`
}

// TargetHeader is one target as detected before the sweep started.
type TargetHeader struct {
	Name          string   `json:"name"`
	URI           string   `json:"uri"` // always redacted
	Topology      string   `json:"topology"`
	SetName       string   `json:"set_name,omitempty"`
	ServerVersion string   `json:"server_version"`
	ServerKind    string   `json:"server_kind"` // mongodb, ferretdb, simulator
	Hosts         []string `json:"hosts"`
	Shards        []string `json:"shards,omitempty"`
	SimSpec       string   `json:"sim_spec,omitempty"`
	Note          string   `json:"note,omitempty"`
}

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
// election). --resume measures the others again.
func (s StepResult) Measured() bool {
	return !s.Interrupted && s.TargetFailed == nil && s.PrimaryChange == nil
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

// ServerTelemetry is what the server(s) said about themselves during the
// window; nil fields mean "not reported by this server", never zero.
type ServerTelemetry struct {
	// Hosts are the hosts of the URI: a standalone, a replica set's
	// members, or a sharded cluster's mongos routers.
	Hosts         map[string]*ServerSample `json:"hosts"`
	Total         *ServerSample            `json:"total"`
	SamplerErrors int                      `json:"sampler_errors"`
	SamplerError  string                   `json:"sampler_error,omitempty"`
	Shards        []string                 `json:"shards,omitempty"`
	// Replication is each secondary's replication lag during the window,
	// from the primary's replSetGetStatus; absent on a target that is no
	// replica set, or when no primary answered it.
	Replication []MemberLag `json:"replication,omitempty"`
	// ShardsSampled says, for a sharded cluster, whether its shards'
	// primaries were sampled behind the routers (nil for other
	// topologies); ShardsNotSampled says why not.
	ShardsSampled    *bool  `json:"shards_sampled,omitempty"`
	ShardsNotSampled string `json:"shards_not_sampled,omitempty"`
	// ShardHosts are the shards' primaries, sampled directly, keyed by
	// shard name (listShards _id); ShardTotal adds them up as Total adds up
	// Hosts.
	ShardHosts map[string]*ShardSample `json:"shard_hosts,omitempty"`
	ShardTotal *ServerSample           `json:"shard_total,omitempty"`
}

// ShardSample is one shard's primary during the window.
type ShardSample struct {
	Host   string        `json:"host"`
	Sample *ServerSample `json:"sample"`
}

// ServerSample is one host's (or the sum of all hosts') window summary.
type ServerSample struct {
	// Version is the server's own (serverStatus.version); empty on Total.
	Version        string             `json:"version,omitempty"`
	Connections    *ConnCounts        `json:"connections"`
	OpcountersPerS map[string]float64 `json:"opcounters_per_s"`
	ReadLatencyUS  *float64           `json:"read_latency_us"`
	WriteLatencyUS *float64           `json:"write_latency_us"`
	// ReadOpsPerS and WriteOpsPerS are the ops the latencies are means of
	// (opLatencies.{reads,writes}.ops): one per command, where opcounters
	// count documents (an insertMany of 1,000 is 1,000 inserts).
	ReadOpsPerS  *float64     `json:"read_ops_per_s"`
	WriteOpsPerS *float64     `json:"write_ops_per_s"`
	Queue        *QueueCounts `json:"queue"`
	// ActiveClients is globalLock.activeClients readers + writers: the
	// ops holding the global lock (its total counts internal threads too).
	ActiveClients   *float64        `json:"active_clients"`
	Tickets         *TicketCounts   `json:"tickets"`
	CPUPct          *float64        `json:"cpu_pct"`
	RSSMB           *float64        `json:"rss_mb"`
	NetInBytesPerS  *float64        `json:"net_in_bytes_per_s"`
	NetOutBytesPerS *float64        `json:"net_out_bytes_per_s"`
	ConnPool        *ConnPoolCounts `json:"conn_pool,omitempty"`
	// Establishment is the server's connection-establishment rate limiter
	// (8.2; 8.0.12 and 7.0.23 backports) over the window; nil where the
	// server reports none of it.
	Establishment *EstablishmentCounts `json:"establishment,omitempty"`
	Samples       int                  `json:"samples"`
	// InFlight is the server's mean ops in flight over the window by
	// Little's law (its read+write ops/s × their mean server latency, queue
	// wait included); nil when the server reports no opLatencies.
	InFlight *float64 `json:"in_flight"`
	// Cores is the host's core count from hostInfo (per host; nil on Total
	// and where the server does not answer).
	Cores *int `json:"cores"`
	// CoresMayMissQuota: hostInfo shows a memory limit below the host's
	// memory (a container, likely), and its core count is the host's, which
	// a CPU quota does not change: the CPU rule may miss a quota.
	CoresMayMissQuota bool `json:"cores_may_miss_quota,omitempty"`
}

// ConnCounts is serverStatus.connections over the window.
type ConnCounts struct {
	Current     *float64 `json:"current"`
	Available   *float64 `json:"available"`
	CreatedPerS *float64 `json:"created_per_s"`
}

// EstablishmentCounts is what the server's connection-establishment rate
// limiter (ingressConnectionEstablishmentRatePerSec and its burst and
// queue depth) did over the window: connections.queuedForEstablishment
// (mean), and the growth of queues.ingressSessionEstablishment's counters
// (connections.establishmentRateLimit.rejected for Rejected when the
// queue section is absent). A field the server does not report is nil,
// never 0.
type EstablishmentCounts struct {
	QueuedMean *float64 `json:"queued_mean"` // connections waiting for a token, mean
	Attempted  *float64 `json:"attempted"`   // connections that asked for a token
	Admitted   *float64 `json:"admitted"`    // given one, at once or after queueing
	Queued     *float64 `json:"queued"`      // that waited in the queue
	Rejected   *float64 `json:"rejected"`    // refused: the queue was full
	// Interrupted left the queue without a token (the client went away,
	// or the server shut down).
	Interrupted *float64 `json:"interrupted"`
}

// Limited says whether the limiter queued or rejected any connection.
func (e *EstablishmentCounts) Limited() bool {
	return e != nil && (e.Queued != nil && *e.Queued > 0 || e.Rejected != nil && *e.Rejected > 0 || e.QueuedMean != nil && *e.QueuedMean > 0)
}

// QueueCounts is globalLock.currentQueue, averaged over the window.
type QueueCounts struct {
	Readers *float64 `json:"readers"`
	Writers *float64 `json:"writers"`
}

// TicketCounts is the execution tickets (queues.execution or
// wiredTiger.concurrentTransactions) over the window, read and write
// apart: they are separate pools, and one exhausted while the other is
// idle is saturation a sum would hide.
type TicketCounts struct {
	Read  *TicketSide `json:"read,omitempty"`
	Write *TicketSide `json:"write,omitempty"`
	// InUse, Available and Queued are both sides added up, as files written
	// before per-side tickets hold them; poolsweep no longer writes them.
	InUse     *float64 `json:"in_use,omitempty"`
	Available *float64 `json:"available,omitempty"`
	Queued    *float64 `json:"queued,omitempty"`
}

// TicketSide is one side's tickets, averaged over the window.
type TicketSide struct {
	InUse     *float64 `json:"in_use"`
	Available *float64 `json:"available"`
	Total     *float64 `json:"total"`
	// Queued is the mean queue length the server reports (7.0+: on the
	// side, or its normalPriority and lowPriority blocks added).
	Queued *float64 `json:"queued"`
	// QueuedFromTime is the mean number of ops waiting over the whole
	// window by Little's law: the growth of totalTimeQueuedMicros (both
	// priorities) over the window's length (7.0+).
	QueuedFromTime *float64 `json:"queued_from_time"`
}

// Side is one side of the tickets (read or write); nil when t is nil.
func (t *TicketCounts) Side(read bool) *TicketSide {
	switch {
	case t == nil:
		return nil
	case read:
		return t.Read
	default:
		return t.Write
	}
}

// SideQueued is the mean number of one side's ops (reads or writes)
// waiting at the server over the window: the tickets' own queue where the
// server reports it (7.0+), else globalLock.currentQueue's readers or
// writers; nil when neither is reported.
func (s *ServerSample) SideQueued(read bool) *float64 {
	if s == nil {
		return nil
	}
	if ts := s.Tickets.Side(read); ts != nil && ts.Queued != nil {
		return ts.Queued
	}
	if s.Queue != nil {
		if read {
			return s.Queue.Readers
		}
		return s.Queue.Writers
	}
	return nil
}

// Queued is the mean number of ops waiting at the server over the window,
// both sides added (SideQueued), or, in a file written before per-side
// tickets, its summed ticket queue; nil when none is reported.
func (s *ServerSample) Queued() *float64 {
	if s == nil {
		return nil
	}
	r, w := s.SideQueued(true), s.SideQueued(false)
	switch {
	case r != nil && w != nil:
		q := *r + *w
		return &q
	case r != nil:
		return r
	case w != nil:
		return w
	case s.Tickets != nil:
		return s.Tickets.Queued
	}
	return nil
}

// ConnPoolCounts is a router's connection pools to its shards
// (connPoolStats, summed over the shards' hosts once listShards has named
// them; before that, the totals, which include the config servers).
type ConnPoolCounts struct {
	InUse     *float64 `json:"in_use"`
	Available *float64 `json:"available"`
	Created   *float64 `json:"created"`
	// Leased are connections checked out of the pool for a while (5.0+).
	Leased *float64 `json:"leased"`
}

// ClientTelemetry is this process, and the load host it runs on, during
// the window. The host fields are nil where the platform has no source.
type ClientTelemetry struct {
	CPUPct     float64 `json:"cpu_pct"`
	CPUs       int     `json:"cpus"`
	GCPauseMS  float64 `json:"gc_pause_ms"`
	Goroutines int     `json:"goroutines"`

	// CPUPressurePct is PSI "some" for CPU (/proc/pressure/cpu): the share
	// of wall time in which at least one runnable task waited for a CPU.
	CPUPressurePct *float64 `json:"cpu_pressure_pct"`
	// HostCPUs is how many CPUs HostCPUPct and OthersCPUPct are shares of.
	HostCPUs *int `json:"host_cpus"`
	// HostCPUPct is the host's busy CPU (/proc/stat), in % of all cores.
	HostCPUPct *float64 `json:"host_cpu_pct"`
	// OthersCPUPct is the host's busy CPU not spent by this process, in %
	// of all cores.
	OthersCPUPct *float64 `json:"others_cpu_pct"`
	// SchedLatencyP50MS and SchedLatencyP99MS are how long this process's
	// runnable goroutines waited to run (runtime/metrics
	// /sched/latencies:seconds over the window).
	SchedLatencyP50MS *float64 `json:"sched_latency_p50_ms"`
	SchedLatencyP99MS *float64 `json:"sched_latency_p99_ms"`
	// RunQueueWaitPct is the share of the time this process's threads
	// wanted a CPU that they spent waiting for one (Linux
	// /proc/self/task/*/schedstat): the starvation the OS imposed on us,
	// which the Go scheduler's own latency cannot see while our threads
	// sleep in epoll.
	RunQueueWaitPct *float64 `json:"run_queue_wait_pct"`
}

// LittlesLaw compares the configured in-flight calls with calls/s × latency.
type LittlesLaw struct {
	ExpectedInFlight float64 `json:"expected_in_flight"`
	MeasuredInFlight float64 `json:"measured_in_flight"`
	DeviationPct     float64 `json:"deviation_pct"`
	OK               bool    `json:"ok"`
}

// EndRecord is the last line of a results file. A resumed run appends
// steps after an earlier end record and then its own; the last one counts.
type EndRecord struct {
	Kind       string    `json:"kind"`
	Status     string    `json:"status"`
	Reason     string    `json:"reason"`
	FinishedAt time.Time `json:"finished_at"`
	Steps      int       `json:"steps"` // step records in the file
	// Planned is how many steps the plan has in all (0 when unknown).
	Planned int `json:"planned,omitempty"`
	// FailedSteps are the steps that could not be measured in this
	// session (status partial or failed).
	FailedSteps []FailedStep `json:"failed_steps,omitempty"`
	// Signal names the signal that interrupted the run (SIGINT, SIGTERM,
	// SIGHUP), when one did.
	Signal string `json:"signal,omitempty"`
	// Thresholds are the run's --threshold outcomes; absent when it had
	// none.
	Thresholds []ThresholdOutcome `json:"thresholds,omitempty"`
}

// FailedStep is a planned step that was not measured, and why.
type FailedStep struct {
	Target      string `json:"target"`
	Workload    string `json:"workload"`
	Concurrency int    `json:"concurrency"`
	PoolSetting string `json:"pool_setting"`
	Clients     int    `json:"clients"`
	Trial       int    `json:"trial"`
	Error       string `json:"error"`
	// Rate is an open-loop step's offered calls/s; absent in closed loop.
	Rate int `json:"rate,omitempty"`
	// TargetFailed says the step was measured and recorded, but the target
	// failed during its window (its record has the target_failed mark).
	TargetFailed bool `json:"target_failed,omitempty"`
}
