package results

import (
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
	Concurrency []int  `json:"concurrency"`
	Pool        string `json:"pool"`            // "match" or the list as given
	Pools       []int  `json:"pools,omitempty"` // expanded pool list; empty for match
	Clients     int    `json:"clients"`
	// ClientLevels are the client counts of the steps when --clients is
	// a list (Clients is then the largest); absent for one count.
	ClientLevels []int   `json:"client_levels,omitempty"`
	Trials       int     `json:"trials"`
	WarmupS      float64 `json:"warmup_s"`
	DurationS    float64 `json:"duration_s"`
	OpTimeoutS   float64 `json:"op_timeout_s"`
	Order        string  `json:"order,omitempty"`
	Steps        int     `json:"steps"`

	// TargetConcurrency is each target's own level list, by target
	// name, when the targets were given their own (--concurrency
	// NAME=LIST); Concurrency is then the union of them. Absent: every
	// target took Concurrency.
	TargetConcurrency []TargetLevels `json:"target_concurrency,omitempty"`

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
	// TrialsAtMost says Trials is a maximum: a grid with auto
	// windows measures every level once, and takes further trials only
	// where neighbouring levels' intervals overlap where the knee is
	// decided (each such step says why in ExtraTrial). False: every level
	// gets Trials trials.
	TrialsAtMost bool `json:"trials_at_most,omitempty"`

	// Profile is the --profile the run's steps followed, as given (a
	// trace file by its name); absent when the steps were steady. A
	// profile step's rate is the profile's peak rounded up (Rate is then
	// absent: the profile is not a rate level).
	Profile string `json:"profile,omitempty"`
	// Cold says the profile steps' pools started empty (--cold) instead
	// of pre-warmed.
	Cold bool `json:"cold,omitempty"`
	// The pool options swept as series axes, as given (each value its own
	// series, crossed with the others): --min-pool, --max-connecting,
	// --max-idle and --timeout; absent when not swept.
	MinPool       []int   `json:"min_pool,omitempty"`
	MaxConnecting []int   `json:"max_connecting,omitempty"`
	MaxIdleMS     []int64 `json:"max_idle_ms,omitempty"`
	TimeoutMS     []int64 `json:"timeout_ms,omitempty"`
	// The driver's options swept the same way: --retry (retryReads and
	// retryWrites together, "on" or "off"), --server-selection-timeout
	// and --heartbeat (heartbeatFrequencyMS); absent when not swept.
	Retry                    []string `json:"retry,omitempty"`
	ServerSelectionTimeoutMS []int64  `json:"server_selection_timeout_ms,omitempty"`
	HeartbeatMS              []int64  `json:"heartbeat_ms,omitempty"`
	// Events are the --event actions fired into every profile step, in
	// time order; absent without events.
	Events []EventSpec `json:"events,omitempty"`
}

// TargetLevels is one target's own concurrency levels.
type TargetLevels struct {
	Target      string `json:"target"`
	Concurrency []int  `json:"concurrency"`
}

// LevelsOf is the concurrency levels target t was planned at: its own
// list, or the plan's.
func (p PlanInfo) LevelsOf(t string) []int {
	for _, tl := range p.TargetConcurrency {
		if tl.Target == t {
			return tl.Concurrency
		}
	}
	return p.Concurrency
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
