package runner

import (
	"io"
	"time"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/runner/progress"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/threshold"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// Options are a sweep as its command line asked for it, parsed and
// checked on their own (the checks that need no connection); Run checks
// what needs the file system or the targets. Errors name the flags these
// fields come from (--out, --resume, --spawn …): they are the user's words.
type Options struct {
	RunID     string // --run-id; "" names a new run
	Plan      plan.Plan
	Workloads []workload.Workload
	Targets   []topology.Target
	Why       string   // grid or search, and why: the plan line's reason
	Notes     []string // said before the run starts (a workload file's notes and warnings)

	Out    string              // --out; "" is ./poolsweep-out/RUN-ID
	Resume string              // --resume: the directory of the run to continue
	Read   results.ReadOptions // how the run resumed is read (--lenient)
	NoPlot bool                // no figures and no report.html

	Drop, DropForeign, KeepGoing bool
	MaxErrorRate                 float64
	PrewarmTimeout               time.Duration
	LockWait                     time.Duration

	NoTelemetry, NoShardSampling bool
	ServerCores                  int
	// Axes are the series-axis flags given (read-preference,
	// write-concern), which take effect on a replica set or a sharded
	// cluster only.
	Axes []string

	// ParamHosts is --server-param-hosts: where the workloads' server
	// parameters are set (sweep.ParamHostsAuto, …).
	ParamHosts string

	Thresholds []threshold.Threshold // judged once the run has measured what it could
	Fleet      *fleet.Options        // the fleet section of report.html; nil: none

	Metrics *MetricsOptions // --metrics-listen; nil: none
	Agents  *AgentOptions   // this process is one agent of several; nil: alone
	Spawn   *SpawnOptions   // --spawn: agents on this machine; nil: none

	// Messages takes what the run says on its way: servers started,
	// targets detected, resuming, notes, the plan line, step lines and
	// warnings. With JSON, it is that sink (every line an event).
	Messages io.Writer
	// JSON is the events sink of --progress json; nil renders text on
	// Messages.
	JSON *progress.JSON
}

// AgentOptions make this process one agent of a run measured in lock
// step (--agents, --agent-index).
type AgentOptions struct {
	Count, Index     int
	Timeout, Silence time.Duration // --agent-timeout, --agent-silence
}

// SpawnOptions are --spawn: Count agent processes of this program on this
// machine, each started with Args (the sweep's flags that travel, and the
// plan as resolved) and handed the targets through a pipe.
type SpawnOptions struct {
	Count        int
	Args         []string
	AgentTimeout time.Duration
	// URI is --uri when it was given: the agents get it as given;
	// otherwise each target as this process resolved it.
	URI string
}

// MetricsOptions are --metrics-listen.
type MetricsOptions struct {
	Addr string // the address to listen on (a left-out host resolved)
	// FD, for agent 0 of --spawn, is the listening socket the launcher
	// opened at Addr and handed down (the launcher measures nothing; its
	// leading agent serves what it measures).
	FD int
}

// Result is what a run measured and concluded.
type Result struct {
	// Results are the run's results as its file holds them (for --spawn,
	// the agents' merged); nil or without steps when nothing was measured.
	Results *results.Results
	// Analysis is the one analysis of Results (nil with them).
	Analysis *analysis.Analysis
	// Thresholds are the outcomes of Options.Thresholds, as the end record
	// holds them.
	Thresholds []results.ThresholdOutcome
	// Outcome is how the session ended (a run of one process or agent).
	Outcome sweep.Outcome
	// ResultsPath is the results.jsonl written ("" when none was).
	ResultsPath string
	// Merged says Results are --spawn's agents' results, merged.
	Merged bool
	// Err is the run's error; errext.ExitCode(Err) is its exit status.
	Err error
}
