// Package sweep is the sweep command: its flags (Options, NewCmdSweep),
// their checks and the plan they make (grid or search, auto lengths, the
// open loop, agents and the command lines of --spawn's agents), and what
// it prints of the run. The run itself is the runner package (runner.Run):
// this package parses, hands the options over, and prints what comes back.
package sweep

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// Defaults that depend on what is being measured. A deployment (--uri)
// gets auto warm-ups and windows, each step as long as its
// number needs within a minute, and a search for the knee over 1..1024
// (the fast path: the seeds' levels reach 1000, and a search places a
// dozen or so steps where the knee is instead of a grid's every level);
// with at most 3 trials, taken only where neighbouring levels' intervals
// overlap. Where a search cannot run (agents, interleaved targets, a list
// of pool sizes) the default is the seeds' grid. The embedded FerretDB
// server saturates at a handful of connections on a 2-core machine, and
// its throughput swings by 15–35 % within seconds: a search would take
// more steps there than its short grid, so it keeps the grid, auto too,
// with bounds that keep its sweep near two minutes, so that the README's
// first command draws its whole curve and knee. A simulator's capacity is
// known by construction and its runs are demonstrations and tests: a
// grid with a short fixed warm-up and a window of 3 s that runs on, up
// to 2 min, only until it holds ten independent batches of three call
// times and its ops/s is known to ±10% (a deployment verdict needs each
// peak's interval: the API call's callers end their calls in waves, and
// at hundreds of callers a call takes seconds; a tighter precision would
// chase a busy load host's own noise for minutes); --duration 3s asks
// for a fixed window there.
var (
	embeddedDefaults = planDefaults{concurrency: "1..32x2", trials: 1, warmup: time.Second, duration: 4 * time.Second, records: 1000,
		auto: true, maxWarmup: 10 * time.Second, maxDuration: 15 * time.Second,
		why: "the embedded server's default is a grid, 1..32x2, so that its first run draws the whole curve in about two minutes"}
	uriDefaults = planDefaults{concurrency: "1..1024", gridConcurrency: "64,128,256,500,1000", trials: 1, warmup: 10 * time.Second, duration: 30 * time.Second, records: 10000,
		auto: true, maxWarmup: plan.DefaultMaxWarmup, maxDuration: plan.DefaultMaxDuration}
	simDefaults = planDefaults{concurrency: "1..128x2", trials: 1, warmup: time.Second, duration: 3 * time.Second, records: 10000,
		autoWindow: true, minDuration: 3 * time.Second, maxDuration: 2 * time.Minute, precisionPct: 10,
		why: "simulator targets default to a grid, 1..128x2, the whole curve of a capacity known by construction"}
)

// planDefaults are a target kind's defaults. concurrency is a grid or a
// search's span (a range without a step); gridConcurrency is the grid used
// instead when the run cannot be searched and --concurrency was not
// given; why says why the default is a grid. warmup and duration are the
// fixed lengths used when auto is off (by default for a simulator, or
// with --agents); with auto, maxWarmup and maxDuration bound
// each step unless --max-warmup and --max-duration say otherwise.
type planDefaults struct {
	concurrency, gridConcurrency string
	why                          string
	trials                       int
	warmup, duration             time.Duration
	records                      int
	auto                         bool
	maxWarmup, maxDuration       time.Duration
	// autoWindow: the window is auto, from minDuration to maxDuration,
	// while the warm-up keeps its fixed length (auto false).
	autoWindow   bool
	minDuration  time.Duration
	precisionPct float64
}

// Options are the sweep's flags, as parsed.
type Options struct {
	uri           string
	targets       []string
	concurrency   string   // --concurrency LIST: every target's levels
	ownLevels     []string // --concurrency NAME=LIST: a target's own (levels.go)
	pool          string
	clients       string
	trials        int
	warmup        time.Duration
	duration      time.Duration
	opTimeout     time.Duration
	workload      string
	mix           string
	mixes         string
	readPref      string // --read-preference: a list, each its own series
	writeConcern  string // --write-concern: a list, each its own series
	workloadFile  string
	distribution  string
	records       int
	database      string
	drop          bool
	dropForeign   bool // --drop-foreign
	out           string
	order         string
	maxConnecting string // --max-connecting: a list, each its own series (sweepprofile.go)
	keepGoing     bool
	noPlot        bool
	noTelemetry   bool
	resume        string
	read          shared.ReadOptions // --lenient, with --resume
	maxErrorRate  float64
	prewarm       time.Duration
	serverCores   int
	noShardSample bool
	lockWait      time.Duration
	gates         shared.ThresholdFlags // --threshold (cli/shared; gates.go)
	fleet         shared.FleetFlags     // --instances, --storm …: the fleet section of report.html (cli/shared)
	progress      string                // --progress: text or json (runner/progress; cli/root makes stderr JSON lines)
	metricsListen string                // --metrics-listen (metricslisten.go)
	autoOptions                         // --warmup/--duration auto and their bounds (autoflags.go)

	// Open loop (sweepopen.go).
	rate          string
	arrivals      string
	maxInFlight   int
	searchOptions // --search, --resolution, --budget, --slo-p99 (sweepsearch.go)

	// Load that changes and the pool options (sweepprofile.go).
	profile string
	minPool string
	maxIdle string
	// retry, serverSelectionTimeout and heartbeat are the driver's
	// options swept as series (--retry, --server-selection-timeout,
	// --heartbeat).
	retry, serverSelectionTimeout, heartbeat string
	timeout                                  string
	cold                                     bool
	events                                   []string // --event (sweepevents.go)
	serverParamOptions                                // --server-param (sweepserverparams.go)

	changed func(string) bool
	agentOptions
}

// Bounds of sweep flags that no other layer owns.
const (
	// maxServerCores bounds --server-cores.
	maxServerCores = 1_000_000
)

// NewCmdSweep builds the sweep command on e's streams. runF runs it once
// its flags are parsed: nil means the real sweep; tests pass their own to
// check what argv turns into without connecting anywhere (the cli/cli
// seam).
func NewCmdSweep(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	o := &Options{}
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Measure throughput and latency over concurrency × maxPoolSize, find the knee, plot it",
		Long: `sweep steps through concurrency levels (and maxPoolSize values) against one or more
targets, measuring each step after a warm-up, and writes results.jsonl (one line per
step, fsynced as it goes), a throughput-versus-connections plot and a summary with the
knee of each series.

With no --uri or --target it starts the embedded FerretDB server as a child process,
sweeps it with a short default plan, and removes it afterwards. Its numbers are
FerretDB's, not MongoDB's: use it to see how poolsweep works, then point it at your
deployment with --uri.

Grid or search: a list ("64,128,256") or a range with a step ("1..256x2" geometric,
"100..1000+100" linear, or mixes of these) is a grid, every level measured. A range
without a step ("--concurrency 1..1024") is searched: the search places its own levels
between its ends and stops when the knee is located (--search knee; with --pool MIN..MAX
as well, --search pool then finds the smallest maxPoolSize that keeps the knee's
throughput). A deployment's default is the search over 1..1024 (the grid
64,128,256,500,1000 with --agents, --spawn, --order interleaved or a list of pool
sizes, which a search cannot take); the embedded server and simulator targets default to
short grids. The first progress line says grid or search, why, the steps it expects and
at most, and the wall time: about so long with fixed lengths, from every step at its
shortest to every step at its longest with auto ones.

Trials: with auto windows (the default) --trials N is a maximum: every level of a grid
is measured once (its batch-means interval gives it a confidence), and a level gets
another trial only while its throughput interval overlaps its neighbour's where the knee
is decided (the level below the knee and the knee; with no knee, the top two) and the
knee's confidence is below medium, up to N; each such step says why (extra_trial). A
search does the same. With fixed windows, or --order interleaved (compare pairs
trials target by target), every level gets N trials.

Open loop: --rate LIST offers calls at fixed rates instead (total calls/s over the
clients, the list syntax of --concurrency), each call started at its scheduled time
whether or not earlier ones finished, on a pool of --pool (a list gives the grid rate ×
pool; default 100, the driver's own). Latency runs from each call's scheduled start
(corrected for coordinated omission; the uncorrected one, from its send, is recorded
too). --max-in-flight bounds the calls one client runs at once; arrivals beyond it
are counted as dropped. analyze then reports the highest rate carried and the smallest
maxPoolSize that carries it.

Many light clients: --clients LIST with one --rate runs each step at every client
count, the rate shared among them (an application instance each, below one call a
second if need be), so the server's connections grow while its work stays the same:
a connection sweep. analyze then reports what one connection costs the server
(connection_cost: memory and CPU per connection, the monitors per client, its limit).

Load that changes: --profile SPEC runs every step through open-loop phases instead
(idle:D, rate:R:D, ramp:R1:R2:D, sine:LOW:HIGH:PERIOD:D, trace:FILE; docs/profiles.md),
one step per pool size, recording a timeline of 100-ms intervals. The pool's other
options are axes like --read-preference, each combination a series of its own:
--min-pool, --max-connecting, --max-idle and --timeout (the driver's timeoutMS; a reply
later than it costs a connection, docs/sweep.md), and the driver's --retry (retryReads
and retryWrites), --server-selection-timeout and --heartbeat (heartbeatFrequencyMS,
from 500ms). --cold starts every profile step's
pools empty, growing as the driver grows them (maxConnecting the driver's 2 unless
--max-connecting says otherwise); without it they are pre-warmed as a steady step's.
--event T=ACTION (repeatable) fires an action into every profile step T into its
profile: stepdown on a replica set, and on the simulator slow=F:D, freeze=D, reset and
router-restart. Each is recorded with the time it fired and ended, and the timeline
counts the errors by kind, the operations that succeeded on retry and the connections
per host (docs/sweep.md). A target that cannot take an action is refused before any
load.

Server settings within one run: --server-param NAME=V1,V2 (repeatable) makes each value
of a parameter that setParameter changes at run time a series named NAME=V, set on the
servers before its steps (--server-param-hosts: routers, shards, mongods or all), read
back with getParameter into every step, and compared within the run by compare
--baseline NAME=V1 --candidate NAME=V2. The originals are recorded in poolsweep_meta
before the first change and set back at the end, on an error or a signal, and by
--resume after a crash; inspect shows one still pending. What the server refuses is
refused before any load.

Operations still running when a window closes are not dropped: each is recorded with
its full latency when it ends, or as a timeout once past --op-timeout, and the step
records how many there were (in_flight_at_close). Before each step poolsweep checks that
the target still answers (a ping, 5 s), so a dead target fails its steps in seconds.
A step during which the target failed (it died, or stopped answering while the driver
or the server samples saw it fail) is recorded with target_failed and bound "failed":
analyze leaves it out, and --resume measures it again.

Exit status:
  0    every planned step was measured (end status "complete")
  1    the run failed: a step failed without --keep-going, --max-error-rate stopped it,
       the results could not be written, or the data could not be loaded
  2    bad input (a flag, a path, a resumed run with other settings, or whose results hold
       a record that breaks the schema: --lenient skips it); nothing was started. Also
       a target whose collection holds documents poolsweep did not write, refused
       with their count once connected, before anything is dropped or written
       (--drop-foreign drops them with poolsweep's collection and reloads it)
  3    the run went to its end but some steps failed and were skipped (--keep-going),
       or the target failed during some (bound "failed", target_failed in the record):
       end status "partial"; the end record and analyze name them, --resume measures
       them again
  4    the run measured what it could (end status "complete" or "partial") but a
       --threshold failed or could not be evaluated; the end record lists the outcomes
  129, 130, 143
       interrupted by SIGHUP, SIGINT (Ctrl-C) or SIGTERM: the step in progress is
       recorded as interrupted, every finished step is kept, and --resume continues
  141  stdout was closed before poolsweep finished writing to it (… | head): it ends
       quietly, as a tool that SIGPIPE stopped does; every command gives 141 then
The status always follows the end record's status. Agent mode: an agent whose leader
failed, stopped answering or left ends "failed" (1); one whose leader was interrupted
ends "interrupted" (130); steps that ran without some agents make the run "partial"
(3); an agent refused for another plan or version exits 2. --spawn exits with the
merged run's end status.

` + shared.ThresholdHelp,
		Example: `  poolsweep sweep
  poolsweep sweep --uri mongodb://db1:27017                      # a search for the knee over 1..1024
  poolsweep sweep --uri mongodb://db1:27017 --concurrency 8..512 --pool 4..64   # the knee, then the pool size
  poolsweep sweep --uri mongodb://db1:27017 --workload api --concurrency 64,128,256,500,1000   # a grid
  poolsweep sweep --uri mongodb://db1:27017 --concurrency 1..64x2 --trials 3   # a grid, extra trials where they pay
  poolsweep sweep --target standalone=mongodb://a:27017 --target sharded=mongodb://m1:27017,m2:27017 \
      --clients 3 --workload api --trials 3
  poolsweep sweep --target standalone=mongodb://a:27017 --target sharded=mongodb://m1:27017 \
      --concurrency standalone=64,500,1000 --concurrency sharded=32,64,128,300 --clients 3 --workload api   # each its own levels
  poolsweep sweep --uri mongodb://db1:27017 --concurrency 64..512x2 --pool 16,64,256
  poolsweep sweep --uri mongodb://db1:27017 --workload mixed --mix read=70,update=30 --distribution zipfian
  poolsweep sweep --uri mongodb://db1:27017 --workload-file workloads/workloada
  poolsweep sweep --uri mongodb://db1:27017 --workload-file checkout.yaml   # made by: poolsweep workload from-log mongod.log -o checkout.yaml
  poolsweep sweep --uri mongodb://db1:27017 --drop-foreign   # its usertable also holds others' documents: drop them with it
  poolsweep sweep --target sim=sim:slots=8,service=2ms --concurrency 1..64x2
  poolsweep sweep --uri mongodb://db1:27017 --rate 1000..20000x1.5 --pool 16,64,256 --arrivals poisson
  poolsweep sweep --uri mongodb://db1:27017 --rate 500 --clients 100,1000,5000 --pool 2 --max-in-flight 2   # what a connection costs
  poolsweep sweep --target sim=sim:slots=8,service=2ms --profile idle:30s,rate:2000:60s --cold \
      --max-connecting 2,16 --min-pool 0,64 --pool 64 --trials 3   # a burst after a quiet spell on cold pools
  poolsweep sweep --uri mongodb://db1:27017 --profile rate:500:20s,idle:40s,rate:500:20s \
      --max-idle 0,10s --min-pool 0,32 --pool 32   # does the pool shrink between bursts, and does minPoolSize hold it
  poolsweep sweep --uri mongodb://db1:27017 --profile rate:1000:60s --timeout 50ms,2s   # connections closed by timeouts
  poolsweep sweep --target rs=sim:rs=3,election=2s,slots=8,service=2ms --profile rate:2000:30s \
      --event 10s=stepdown --max-connecting 2,16 --trials 3   # a failover under a steady load
  poolsweep sweep --target sim=sim:slots=8,service=2ms --profile rate:1000:30s --event 10s=slow=10:5s   # a slowdown
  poolsweep sweep --uri mongodb://db1:27017 --concurrency 64 --trials 4 \
      --server-param wiredTigerConcurrentReadTransactions=32,128   # a server setting within one run
  poolsweep sweep --target sim=sim:slots=8 --threshold 'p99<20ms@8' --threshold 'ops>500@knee' \
      --threshold 'errors<0.1%' --threshold 'knee>=4'`,
		Args: cmdutil.ArgsUsage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.changed = cmd.Flags().Changed
			o.flagSet = cmd.Flags()
			if err := o.check(); err != nil {
				return err
			}
			if runF != nil {
				return runF(cmd.Context(), o)
			}
			return o.run(cmd.Context(), e)
		},
	}
	f := cmd.Flags()
	cmdutil.TextVar(f, &o.uri, "uri", "", "a MongoDB URI", topology.ValidateURI, "MongoDB connection string of the one deployment to measure")
	cmdutil.TextArrayVar(f, &o.targets, "target", "name=URI or name=sim:SPEC", shared.CheckTarget, "name=URI of a deployment to measure (repeatable); name=sim:SPEC starts a calibrated simulator")
	cmdutil.NamedLevelsVar(f, &o.concurrency, &o.ownLevels, "concurrency", "", plan.MaxConcurrency, levelsOrSpan, plan.ParseLevels, "concurrency levels per client: a list or a range with a step (1..64x2, 100..1000+100) is a grid of every level; a range without a step (1..1024) is searched for the knee (--search knee; --search pool when --pool is MIN..MAX too); NAME=LIST (repeatable) gives target NAME a grid of its own, the bare list being the other targets'. Default "+uriDefaults.concurrency+", a search (with --agents, --spawn, --order interleaved or a list of pools: the grid "+uriDefaults.gridConcurrency+"); embedded server "+embeddedDefaults.concurrency+"; simulator targets "+simDefaults.concurrency)
	cmdutil.LevelsVar(f, &o.pool, "pool", "match", plan.MaxPoolSize, true, levelsOrSpan, `maxPoolSize per client per host: "match" (= concurrency) or a list; a list gives the grid concurrency × pool; a range without a step, MIN..MAX, searches for the pool size (--search pool) within it`)
	cmdutil.LevelsVar(f, &o.clients, "clients", "1", plan.MaxClients, false, plan.ParseLevels, fmt.Sprintf("independent clients in this process, each a driver client with its own monitors, pool and concurrency workers (with --rate, its own share of the rate); a list or range like --concurrency (10,100,1000) runs every step at each, each from 1 to %d", plan.MaxClients))
	cmdutil.IntVar(f, &o.trials, "trials", 0, 1, plan.MaxTrials, "repetitions of every step; 3 or more give confidence intervals across trials. With auto windows a maximum: each level once (its own batch-means interval), more only where neighbouring levels' intervals overlap near the knee (a search defaults to 3)")
	o.autoOptions.addFlags(f, &o.warmup, &o.duration) // autoflags.go
	cmdutil.DurationVar(f, &o.opTimeout, "op-timeout", 5*time.Second, plan.MinOpTimeout, plan.MaxOpTimeout, "timeout of every operation, server selection and pool checkout included (driver v2 has none by default): one still running after it is cancelled and counted as a timeout; 1ms to 1h")
	cmdutil.DurationVar(f, &o.prewarm, "prewarm-timeout", 60*time.Second, time.Second, time.Hour, "how long to wait for each step's pool to open its connections; 1s to 1h")
	cmdutil.ChoiceVar(f, &o.workload, "workload", "read", workload.BuiltinWorkloads, false, "read, update, insert, scan, api (2 finds + 1 update per call) or mixed")
	cmdutil.TextVar(f, &o.mix, "mix", "", "op=share,… (checked with --workload mixed)", nil, "operation shares for --workload mixed, e.g. read=70,update=30 (ops: read, update, insert, scan, rmw)")
	cmdutil.TextVar(f, &o.mixes, "mixes", "", "insert:read:update,… (checked with the workload)", nil, `several insert:read:update mixes, each its own series, e.g. "100:0:0,0:0:100,50:50:0"`)
	cmdutil.ChoiceVar(f, &o.readPref, "read-preference", "", results.ReadPreferences, true, "replica sets and sharded clusters: read preferences to sweep, each its own series, e.g. primary,secondaryPreferred,nearest (default: the URI's)")
	cmdutil.ChoiceVar(f, &o.writeConcern, "write-concern", "", results.WriteConcerns, true, `replica sets and sharded clusters: write concerns to sweep, each its own series: 1 (the primary acknowledges) and/or majority (default: the URI's)`)
	cmdutil.TextVar(f, &o.workloadFile, "workload-file", "", "a path, read as a bounded property or workload file", nil, "a YCSB core-workload property file (workloads/workloada style), or a workload file that poolsweep workload from-log made from your deployment's log (kind: poolsweep-workload), replayed shape by shape in its shares: reads on your collections, read-only; writes on poolsweep's own sampled copy")
	cmdutil.ChoiceVar(f, &o.distribution, "distribution", "uniform", workload.Distributions, false, "key distribution: uniform, zipfian or latest")
	cmdutil.IntVar(f, &o.records, "records", 0, 1, workload.MaxRecords, "documents to load (default 10000; embedded server 1000)")
	cmdutil.TextVar(f, &o.database, "database", "poolsweep", "a MongoDB database name", workload.CheckDatabaseName, "database poolsweep loads and writes (it never writes elsewhere); MongoDB's rules for names: under 64 bytes, none of /\\. \"$*<>:|? or spaces")
	f.BoolVar(&o.drop, "drop", false, "reload poolsweep's own collection even if a matching one exists")
	f.BoolVar(&o.dropForeign, "drop-foreign", false, "drop and reload poolsweep's collection although it also holds documents poolsweep did not write (without it such a collection is refused, exit 2, with their count); a collection poolsweep did not create is refused either way")
	cmdutil.TextVar(f, &o.out, "out", "", "a directory, made through outfile", nil, "output directory, made if absent (its parent must exist; default ./poolsweep-out/<run-id>)")
	cmdutil.ChoiceVar(f, &o.order, "order", plan.OrderSequential, []string{plan.OrderSequential, plan.OrderInterleaved}, false, "with several targets: sequential, or interleaved (A B A B … step by step)")
	f.BoolVar(&o.keepGoing, "keep-going", false, "go on with the next step when a step fails instead of stopping the sweep (the run then ends partial, exit 3)")
	f.BoolVar(&o.noPlot, "no-plot", false, "skip figures and report (results.jsonl and the summary only)")
	cmdutil.FloatVar(f, &o.maxErrorRate, "max-error-rate", 1, 0, 1, false, false, "stop the sweep after a step whose failed operations exceed this fraction, 0 to 1 (1 = never stop)")
	cmdutil.TextVar(f, &o.resume, "resume", "", "a directory holding results.jsonl, written through outfile", nil, "continue the interrupted run in this directory (same flags as the first run): finished steps are kept and skipped")
	f.BoolVar(&o.read.Lenient, "lenient", false, "with --resume: "+shared.LenientHelp+"; such a step is measured again")
	f.BoolVar(&o.noTelemetry, "no-telemetry", false, "do not sample serverStatus, the server process and this process during each window")
	f.BoolVar(&o.noShardSample, "no-shard-sampling", false, "on a sharded cluster, sample the mongos routers only, not the shards' primaries behind them (which poolsweep otherwise finds with listShards and samples directly, with the URI's credentials and TLS)")
	cmdutil.IntVar(f, &o.serverCores, "server-cores", 0, 0, maxServerCores, "CPU cores of each server host, for the server-CPU bound (default 0: what hostInfo reports, or this machine's for a server poolsweep started)")
	cmdutil.DurationVar(f, &o.lockWait, "lock-wait", workload.DefaultLockWait, 0, 24*time.Hour, "how long to wait for another poolsweep run that is loading the same collection, up to 24h")
	o.gates.Add(f)
	o.fleet.Add(f, "adds the fleet section to report.html", false)
	cmdutil.TextVar(f, &o.metricsListen, "metrics-listen", "", "HOST:PORT, HOST an IP address or localhost", checkMetricsListen, "serve Prometheus metrics of the running sweep at http://HOST:PORT/metrics, e.g. 127.0.0.1:9464 (\":9464\" is loopback too); a port in use refuses the sweep")
	cmdutil.ChoiceVar(f, &o.progress, "progress", "text", []string{"text", "json"}, false, "how stderr follows the run: text, or json (one JSON object per line: plan, step_start, progress, step_end, thresholds, end, message; docs/progress.md)")
	addAgentFlags(f, &o.agentOptions)
	cmdutil.LevelsVar(f, &o.rate, "rate", "", plan.MaxRate, false, plan.ParseLevels, "open loop: offered calls/s over all clients, a list or range like --concurrency (1000..20000x1.5); replaces --concurrency")
	cmdutil.ChoiceVar(f, &o.arrivals, "arrivals", results.ArrivalsUniform, []string{results.ArrivalsUniform, results.ArrivalsPoisson}, false, "open loop: uniform (one call every 1/rate) or poisson (independent arrivals)")
	cmdutil.IntVar(f, &o.maxInFlight, "max-in-flight", plan.DefaultMaxInFlight, 1, plan.MaxConcurrency, "open loop: the most calls one client runs at once; arrivals beyond it are dropped and counted (5000: about 250 MB when all wait; with more than 40 clients, by default 200000 over the clients)")

	// Adaptive search.
	o.searchOptions.addFlags(f)
	o.addProfileFlags(f)     // sweepprofile.go
	o.addEventFlags(f)       // sweepevents.go
	o.addServerParamFlags(f) // sweepserverparams.go

	// What the agents of --spawn get (sweepflagtravel.go); the auto
	// lengths', search's and agents' flags say so where they are added.
	travel(f, travelAsGiven, "pool", "clients", "op-timeout", "prewarm-timeout", "workload", "mix", "mixes", "read-preference", "write-concern",
		"workload-file", "distribution", "database", "drop", "drop-foreign", "order", "keep-going", "max-error-rate",
		"lenient", "no-telemetry", "no-shard-sampling", "server-cores", "lock-wait", "threshold", "progress",
		"rate", "arrivals", "max-in-flight")
	travel(f, travelResolved, "concurrency", "trials", "records", "no-plot")
	travel(f, travelNever, "uri", "target", "out", "resume") // the targets go through a pipe; each agent writes its own directory
	travel(f, travelNever, "metrics-listen")                 // the launcher opens it; agent 0 serves it (--metrics-fd)
	travel(f, travelNever, o.fleet.Names()...)               // the launcher writes the report
	return cmd
}
