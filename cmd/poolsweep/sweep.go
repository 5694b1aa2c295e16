package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/version"

	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// Defaults that depend on what is being measured. The embedded FerretDB
// server saturates at a handful of connections on a 2-core machine, so its
// plan is small and short enough to show its knee in about two minutes;
// the --uri defaults are the seeds' levels with YCSB-like windows.
var (
	embeddedDefaults = planDefaults{concurrency: "1..32x2", trials: 3, warmup: time.Second, duration: 4 * time.Second, records: 1000}
	uriDefaults      = planDefaults{concurrency: "64,128,256,500,1000", trials: 1, warmup: 10 * time.Second, duration: 30 * time.Second, records: 10000}
	simDefaults      = planDefaults{concurrency: "1..128x2", trials: 1, warmup: time.Second, duration: 3 * time.Second, records: 10000}
)

type planDefaults struct {
	concurrency      string
	trials           int
	warmup, duration time.Duration
	records          int
}

type sweepOptions struct {
	uri           string
	targets       []string
	concurrency   string
	pool          string
	clients       int
	trials        int
	warmup        time.Duration
	duration      time.Duration
	opTimeout     time.Duration
	workload      string
	mix           string
	mixes         string
	workloadFile  string
	distribution  string
	records       int
	database      string
	drop          bool
	out           string
	order         string
	maxConnecting uint64
	keepGoing     bool
	noPlot        bool
	noTelemetry   bool
	resume        string
	maxErrorRate  float64
	prewarm       time.Duration

	changed func(string) bool
}

func newSweepCmd(e *env) *cobra.Command {
	o := &sweepOptions{}
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

Lists (--concurrency, --pool) take values "64,128,256", geometric ranges "1..256x2",
linear ranges "100..1000+100", or mixes of these.`,
		Example: `  poolsweep sweep
  poolsweep sweep --uri mongodb://db1:27017 --workload api --concurrency 64,128,256,500,1000
  poolsweep sweep --target standalone=mongodb://a:27017 --target sharded=mongodb://m1:27017,m2:27017 \
      --clients 3 --workload api --trials 3
  poolsweep sweep --uri mongodb://db1:27017 --concurrency 64..512x2 --pool 16,64,256
  poolsweep sweep --uri mongodb://db1:27017 --workload mixed --mix read=70,update=30 --distribution zipfian
  poolsweep sweep --uri mongodb://db1:27017 --workload-file workloads/workloada
  poolsweep sweep --target sim=sim:slots=8,service=2ms --concurrency 1..64x2`,
		Args: argsUsage(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.changed = cmd.Flags().Changed
			return o.run(cmd.Context(), e)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.uri, "uri", "", "MongoDB connection string of the one deployment to measure")
	f.StringArrayVar(&o.targets, "target", nil, "name=URI of a deployment to measure (repeatable); name=sim:SPEC starts a calibrated simulator")
	f.StringVar(&o.concurrency, "concurrency", "", "concurrency levels per client (default "+uriDefaults.concurrency+"; embedded server "+embeddedDefaults.concurrency+"; simulator targets "+simDefaults.concurrency+")")
	f.StringVar(&o.pool, "pool", "match", `maxPoolSize per client per host: "match" (= concurrency) or a list; a list gives the grid concurrency × pool`)
	f.IntVar(&o.clients, "clients", 1, "independent clients in this process, each with its own pool and concurrency workers")
	f.IntVar(&o.trials, "trials", 0, "repetitions of every step; 3 or more give confidence intervals (default 1; embedded server 3)")
	f.DurationVar(&o.warmup, "warmup", 0, "warm-up before each measured window (default 10s; embedded server 1s; simulator targets 1s)")
	f.DurationVar(&o.duration, "duration", 0, "measured window of each step (default 30s; embedded server 4s; simulator targets 3s)")
	f.DurationVar(&o.opTimeout, "op-timeout", 5*time.Second, "timeout of every operation (driver v2 has none by default)")
	f.DurationVar(&o.prewarm, "prewarm-timeout", 60*time.Second, "how long to wait for each step's pool to open its connections")
	f.StringVar(&o.workload, "workload", "read", "read, update, insert, scan, api (2 finds + 1 update per call) or mixed")
	f.StringVar(&o.mix, "mix", "", "operation shares for --workload mixed, e.g. read=70,update=30 (ops: read, update, insert, scan, rmw)")
	f.StringVar(&o.mixes, "mixes", "", `several insert:read:update mixes, each its own series, e.g. "100:0:0,0:0:100,50:50:0"`)
	f.StringVar(&o.workloadFile, "workload-file", "", "a YCSB core-workload property file (workloads/workloada style)")
	f.StringVar(&o.distribution, "distribution", "uniform", "key distribution: uniform, zipfian or latest")
	f.IntVar(&o.records, "records", 0, "documents to load (default 10000; embedded server 1000)")
	f.StringVar(&o.database, "database", "poolsweep", "database poolsweep loads and writes (it never writes elsewhere)")
	f.BoolVar(&o.drop, "drop", false, "reload poolsweep's own collection even if a matching one exists")
	f.StringVar(&o.out, "out", "", "output directory (default ./poolsweep-out/<run-id>)")
	f.StringVar(&o.order, "order", sweep.OrderSequential, "with several targets: sequential, or interleaved (A B A B … step by step)")
	f.Uint64Var(&o.maxConnecting, "max-connecting", 0, "driver maxConnecting per pool (0 = the URI's or the driver's default, 2)")
	f.BoolVar(&o.keepGoing, "keep-going", false, "go on with the next step when a step fails instead of stopping the sweep")
	f.BoolVar(&o.noPlot, "no-plot", false, "skip figures and report (results.jsonl and the summary only)")
	f.Float64Var(&o.maxErrorRate, "max-error-rate", 1, "stop the sweep after a step whose failed operations exceed this fraction (1 = never stop)")
	f.StringVar(&o.resume, "resume", "", "continue the interrupted run in this directory (same flags as the first run): finished steps are kept and skipped")
	f.BoolVar(&o.noTelemetry, "no-telemetry", false, "do not sample serverStatus, the server process and this process during each window")
	return cmd
}

// sweepTarget is a target with everything the sweep needs about it.
type sweepTarget struct {
	topology.Target
	header  sweep.TargetHeader
	child   *topology.Child // a server this sweep started
	runners map[string]*sweep.Runner
}

// config is the validated, connection-free part of a sweep.
type sweepConfig struct {
	plan      sweep.Plan
	workloads []sweep.Workload
	targets   []topology.Target
	defaults  planDefaults
	notes     []string
}

// validate turns flags into a sweepConfig; every problem is a usage error
// naming its flag, found before anything connects.
func (o *sweepOptions) validate() (*sweepConfig, error) {
	cfg := &sweepConfig{}
	if o.uri != "" && len(o.targets) > 0 {
		return nil, usagef("--uri and --target: give one --uri, or several --target name=URI, not both")
	}
	switch {
	case o.uri != "":
		if err := topology.ValidateURI(o.uri); err != nil {
			return nil, usagef("--uri: %v", err)
		}
		name := "target"
		if hosts := uriHosts(o.uri); hosts != "" {
			name = hosts
		}
		cfg.targets = []topology.Target{{Name: name, URI: o.uri}}
	case len(o.targets) > 0:
		seen := map[string]bool{}
		for _, v := range o.targets {
			t, err := topology.ParseTarget(v)
			if err != nil {
				return nil, usagef("--target: %v", err)
			}
			if t.SimSpec != "" {
				if _, err := sim.ParseSpec(t.SimSpec); err != nil {
					return nil, usagef("--target %s: sim spec: %v", t.Name, err)
				}
			}
			if seen[t.Name] {
				return nil, usagef("--target: name %q is used twice", t.Name)
			}
			seen[t.Name] = true
			cfg.targets = append(cfg.targets, t)
		}
	default:
		cfg.targets = []topology.Target{{Name: "embedded", Embedded: true}}
	}
	allSim := true
	for _, t := range cfg.targets {
		allSim = allSim && t.SimSpec != ""
	}
	switch {
	case cfg.targets[0].Embedded:
		cfg.defaults = embeddedDefaults
	case allSim:
		cfg.defaults = simDefaults
	default:
		cfg.defaults = uriDefaults
	}

	conc := o.concurrency
	if !o.changed("concurrency") {
		conc = cfg.defaults.concurrency
	}
	levels, err := sweep.ParseLevels(conc, sweep.MaxConcurrency)
	if err != nil {
		return nil, usagef("--concurrency: %v", err)
	}
	pool, err := sweep.ParsePool(o.pool)
	if err != nil {
		return nil, usagef("--pool: %v", err)
	}
	p := sweep.Plan{Concurrency: levels, Pool: pool, Clients: o.clients, Trials: o.trials,
		Warmup: o.warmup, Duration: o.duration, OpTimeout: o.opTimeout, Order: o.order}
	if !o.changed("warmup") {
		p.Warmup = cfg.defaults.warmup
	}
	if !o.changed("duration") {
		p.Duration = cfg.defaults.duration
	}
	if !o.changed("trials") {
		p.Trials = cfg.defaults.trials
	}
	if err := p.Validate(); err != nil {
		return nil, usageError{err}
	}
	if !(o.maxErrorRate >= 0 && o.maxErrorRate <= 1) {
		return nil, usagef("--max-error-rate: %g is not a fraction between 0 and 1", o.maxErrorRate)
	}
	if o.prewarm <= 0 {
		return nil, usagef("--prewarm-timeout: %s must be positive", o.prewarm)
	}
	cfg.plan = p

	// Workloads.
	given := 0
	for _, flag := range []string{"mixes", "workload-file"} {
		if o.changed(flag) {
			given++
		}
	}
	if given > 1 || (given == 1 && (o.changed("workload") || o.changed("mix"))) {
		return nil, usagef("--workload, --mixes and --workload-file: choose one way to say the workload")
	}
	base := sweep.DefaultWorkload()
	base.Distribution = o.distribution
	base.Database = o.database
	base.Records = cfg.defaults.records
	if o.changed("records") {
		base.Records = o.records
	}
	switch {
	case o.changed("mixes"):
		ws, err := sweep.ParseMixes(o.mixes, base)
		if err != nil {
			return nil, usagef("--mixes: %v", err)
		}
		cfg.workloads = ws
	case o.workloadFile != "":
		f, err := os.Open(o.workloadFile)
		if err != nil {
			return nil, usagef("--workload-file: %v", err)
		}
		pf, err := sweep.ParsePropertyFile(f, o.workloadFile, base)
		f.Close()
		if err != nil {
			return nil, usagef("--workload-file: %v", err)
		}
		if o.changed("records") {
			pf.Workload.Records = o.records
		}
		if o.changed("distribution") {
			pf.Workload.Distribution = o.distribution
		}
		cfg.notes = append(cfg.notes, pf.Notes...)
		for _, w := range pf.Warnings {
			cfg.notes = append(cfg.notes, "warning: "+w)
		}
		cfg.workloads = []sweep.Workload{pf.Workload}
	default:
		w, err := sweep.BuiltinWorkload(o.workload, o.mix)
		if err != nil {
			return nil, usageError{err}
		}
		w.Distribution, w.Database, w.Records = base.Distribution, base.Database, base.Records
		cfg.workloads = []sweep.Workload{w}
	}
	for _, w := range cfg.workloads {
		if err := w.Validate(); err != nil {
			return nil, usageError{err}
		}
	}
	return cfg, nil
}

// uriHosts is the host list of a URI, for naming a --uri target.
func uriHosts(uri string) string {
	s := uri[strings.Index(uri, "://")+3:]
	if at := strings.LastIndex(strings.SplitN(s, "/", 2)[0], "@"); at >= 0 {
		s = s[at+1:]
	}
	if i := strings.IndexAny(s, "/?"); i >= 0 {
		s = s[:i]
	}
	return s
}

func newRunID() string {
	return time.Now().UTC().Format("20060102-150405") + fmt.Sprintf("-%04x", rand.IntN(1<<16))
}

func (o *sweepOptions) run(ctx context.Context, e *env) error {
	cfg, err := o.validate()
	if err != nil {
		return err
	}
	for _, n := range cfg.notes {
		fmt.Fprintln(e.stderr, "note:", n)
	}
	runID := newRunID()
	outDir := o.out
	var previous *sweep.Results // the run --resume continues
	if o.resume != "" {
		if o.out != "" && filepath.Clean(o.out) != filepath.Clean(o.resume) {
			return usagef("--resume: results go back into %s; drop --out", o.resume)
		}
		outDir = o.resume
		prev, err := sweep.ReadResultsFile(filepath.Join(outDir, "results.jsonl"))
		if err != nil {
			return usagef("--resume: %v", err)
		}
		if err := sameRun(prev.Header, cfg); err != nil {
			return usagef("--resume: %s was made with other settings: %v; give the same flags as the first run", outDir, err)
		}
		previous, runID = prev, prev.Header.RunID
	}
	if outDir == "" {
		outDir = filepath.Join("poolsweep-out", runID)
	}
	resultsPath := filepath.Join(outDir, "results.jsonl")
	if _, err := os.Stat(resultsPath); err == nil && previous == nil {
		return usagef("--out: %s already holds a results.jsonl; choose another directory, or continue it with --resume %s", outDir, outDir)
	}

	// Start the servers this sweep owns, and stop them whatever happens.
	targets := make([]*sweepTarget, len(cfg.targets))
	defer func() {
		for _, t := range targets {
			if t != nil && t.child != nil {
				t.child.Stop()
			}
		}
	}()
	for i, t := range cfg.targets {
		st := &sweepTarget{Target: t, runners: map[string]*sweep.Runner{}}
		targets[i] = st
		switch {
		case t.Embedded:
			fmt.Fprintln(e.stderr, "starting the embedded FerretDB server (a child process; its numbers are FerretDB's, not MongoDB's)…")
			if st.child, err = topology.StartChild(ctx, topology.ChildConfig{}); err != nil {
				return fmt.Errorf("embedded server: %w", err)
			}
			st.URI = st.child.URI
		case t.SimSpec != "":
			fmt.Fprintf(e.stderr, "starting simulator %s for target %s (a measuring instrument, not a database)…\n", t.SimSpec, t.Name)
			if st.child, err = topology.StartChild(ctx, topology.ChildConfig{Args: []string{"serve", "--sim", t.SimSpec}, NoData: true}); err != nil {
				return fmt.Errorf("target %s: simulator: %w", t.Name, err)
			}
			st.URI = st.child.URI
		}
		info, err := topology.Detect(ctx, st.URI)
		if err != nil {
			if ctx.Err() != nil {
				return errInterrupted
			}
			return fmt.Errorf("target %s (%s): %w", t.Name, st.Redacted(), err)
		}
		st.header = sweep.TargetHeader{Name: t.Name, URI: topology.Redact(st.URI), Topology: info.Topology, SetName: info.SetName,
			ServerVersion: info.ServerVersion, ServerKind: info.ServerKind, Hosts: info.Hosts, Shards: info.Shards, SimSpec: info.SimSpec, Note: info.Note}
		fmt.Fprintf(e.stderr, "target %s: %s %s %s, hosts %s\n", t.Name, info.ServerKind, info.ServerVersion, info.Topology, strings.Join(info.Hosts, ","))
	}

	steps := cfg.plan.Steps(names(targets), labels(cfg.workloads))
	header := sweep.RunHeader{Kind: sweep.KindRun, Schema: sweep.SchemaVersion, RunID: runID, ToolVersion: toolVersion(), StartedAt: time.Now().UTC(),
		Workload: workloadInfo(cfg.workloads), Plan: planInfo(cfg.plan, len(steps)),
		Client: clientInfo()}
	for _, t := range targets {
		header.Targets = append(header.Targets, t.header)
	}
	// The output directory is made only now that every target answered,
	// so a typo in a URI leaves no empty run directory behind.
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return usagef("--out: %v", err)
	}
	var w *sweep.ResultsWriter
	earlier := 0
	if previous != nil {
		earlier = len(previous.Steps)
		// Steps already measured (and not cut short) are not measured again;
		// new steps are appended after the earlier closing record.
		done := map[string]bool{}
		for _, st := range previous.Steps {
			if !st.Interrupted {
				done[st.Key()] = true
			}
		}
		var left []sweep.StepSpec
		for _, sp := range steps {
			if !done[sp.Key()] {
				left = append(left, sp)
			}
		}
		fmt.Fprintf(e.stderr, "resuming %s: %d of %d steps already measured, %d to go\n", runID, len(steps)-len(left), len(steps), len(left))
		steps = left
		if w, err = sweep.AppendResults(resultsPath); err != nil {
			return err
		}
	} else {
		if w, err = sweep.CreateResults(resultsPath); err != nil {
			return err
		}
		if err := w.Write(header); err != nil {
			w.Close()
			return err
		}
	}
	defer w.Close()
	fmt.Fprintf(e.stderr, "results: %s\n", resultsPath)

	status, reason, runErr := o.measure(ctx, e, cfg, targets, steps, w)
	if err := w.Write(sweep.EndRecord{Kind: sweep.KindEnd, Status: status, Reason: reason, FinishedAt: time.Now().UTC(), Steps: earlier + w.StepsWritten()}); err != nil && runErr == nil {
		runErr = err
	}
	w.Close()

	// Whatever happened, what was measured is summarised and drawn.
	res, err := sweep.ReadResultsFile(resultsPath)
	if err == nil && len(res.Steps) > 0 {
		writeSummary(e.stdout, res)
		if !o.noPlot {
			if err := writeArtifacts(outDir, []*sweep.Results{res}); err != nil {
				fmt.Fprintf(e.stderr, "poolsweep: figures: %s\n", topology.Redact(err.Error()))
			}
		}
		fmt.Fprintf(e.stdout, "\nresults: %s\n", resultsPath)
	}
	switch status {
	case sweep.StatusInterrupted:
		return errInterrupted
	case sweep.StatusFailed:
		return runErr
	}
	return nil
}

// measure runs every step and writes it; it returns the closing status.
func (o *sweepOptions) measure(ctx context.Context, e *env, cfg *sweepConfig, targets []*sweepTarget, steps []sweep.StepSpec, w *sweep.ResultsWriter) (status, reason string, err error) {
	progress := newProgressPrinter(e.stderr, len(steps))
	// Load data once per target and build one runner per workload.
	for _, t := range targets {
		uri := t.URI
		newClient := func() *options.ClientOptions { return topology.ClientOptions(uri) }
		setup, err := mongo.Connect(newClient().SetMaxPoolSize(8).SetTimeout(2 * time.Minute))
		if err != nil {
			return sweep.StatusFailed, topology.RedactError(err), fmt.Errorf("target %s: connect: %w", t.Name, err)
		}
		wl := cfg.workloads[0]
		lr, err := sweep.Prepare(ctx, setup, wl, o.drop, progress.loading(t.Name))
		progress.endLine()
		setup.Disconnect(context.Background())
		if err != nil {
			if ctx.Err() != nil {
				return sweep.StatusInterrupted, "interrupted while loading data", nil
			}
			if errors.Is(err, sweep.ErrNotOurs) {
				return sweep.StatusFailed, topology.RedactError(err), usagef("--database: target %s: %v", t.Name, err)
			}
			return sweep.StatusFailed, topology.RedactError(err), fmt.Errorf("target %s: %w", t.Name, err)
		}
		fmt.Fprintf(e.stderr, "target %s: %s\n", t.Name, lr.Note)
		keys := sweep.NewKeySpace(wl.Distribution, int64(wl.Records), lr.NextInsert)
		var observers []sweep.WindowObserver
		if !o.noTelemetry {
			tel, err := newStepTelemetry(t)
			if err != nil {
				return sweep.StatusFailed, topology.RedactError(err), fmt.Errorf("target %s: telemetry: %w", t.Name, err)
			}
			defer tel.Close()
			observers = append(observers, tel)
		}
		for _, wl := range cfg.workloads {
			t.runners[wl.Label] = &sweep.Runner{Target: t.Name, NewClient: newClient, Workload: wl, Keys: keys,
				Warmup: cfg.plan.Warmup, Duration: cfg.plan.Duration, OpTimeout: cfg.plan.OpTimeout,
				PrewarmTimeout: o.prewarm, MaxConnecting: o.maxConnecting, Progress: progress.live, Observers: observers, Hosts: poolHosts(t.header)}
		}
	}
	byName := map[string]*sweepTarget{}
	for _, t := range targets {
		byName[t.Name] = t
	}
	failed := 0
	for i, spec := range steps {
		t := byName[spec.Target]
		if t.child != nil && t.child.Exited() {
			return sweep.StatusFailed, "the server process exited", fmt.Errorf("target %s: the server process exited: %s", t.Name, t.child.Stderr())
		}
		step, err := t.runners[spec.Workload].RunStep(ctx, spec)
		progress.endLine()
		if ctx.Err() != nil {
			if step.Interrupted && step.DurationS > 0 {
				if werr := w.Write(step); werr != nil {
					return sweep.StatusFailed, werr.Error(), werr
				}
			}
			return sweep.StatusInterrupted, fmt.Sprintf("interrupted during step %d of %d", i+1, len(steps)), nil
		}
		if err != nil {
			failed++
			msg := fmt.Sprintf("step %d (%s C=%d P=%s): %s", i+1, spec.Target, spec.Concurrency, spec.PoolSetting, topology.RedactError(err))
			fmt.Fprintf(e.stderr, "poolsweep: %s\n", msg)
			if !o.keepGoing {
				return sweep.StatusFailed, msg, errors.New(msg)
			}
			continue
		}
		if err := w.Write(step); err != nil {
			return sweep.StatusFailed, err.Error(), err
		}
		progress.step(i, step)
		if step.Ops > 0 && o.maxErrorRate < 1 {
			if rate := float64(step.Errors.Total()) / float64(step.Ops); rate > o.maxErrorRate {
				msg := fmt.Sprintf("step %d (%s C=%d P=%s): %.0f%% of operations failed, above --max-error-rate %g", i+1, spec.Target, spec.Concurrency, spec.PoolSetting, 100*rate, o.maxErrorRate)
				fmt.Fprintf(e.stderr, "poolsweep: %s; stopping\n", msg)
				return sweep.StatusFailed, msg, errors.New(msg)
			}
		}
	}
	if failed > 0 {
		return sweep.StatusComplete, fmt.Sprintf("%d step(s) failed and were skipped (--keep-going)", failed), nil
	}
	return sweep.StatusComplete, "", nil
}

func names(ts []*sweepTarget) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func labels(ws []sweep.Workload) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Label
	}
	return out
}

func workloadInfo(ws []sweep.Workload) sweep.WorkloadInfo {
	w := ws[0]
	info := sweep.WorkloadInfo{Name: w.Name, Distribution: w.Distribution, Records: w.Records, FieldCount: w.FieldCount,
		FieldLength: w.FieldLength, MaxScanLength: w.MaxScanLength, Database: w.Database, Collection: w.Collection,
		File: w.File, OpsPerCall: w.OpsPerCall()}
	if len(ws) > 1 {
		for _, x := range ws {
			info.Mixes = append(info.Mixes, x.Label)
		}
		info.Name = "mixes"
		return info
	}
	info.Mix = map[string]float64{}
	for _, m := range w.Mix {
		info.Mix[m.Op] = m.Weight
	}
	return info
}

func planInfo(p sweep.Plan, steps int) sweep.PlanInfo {
	order := p.Order
	if order == "" {
		order = sweep.OrderSequential
	}
	return sweep.PlanInfo{Concurrency: p.Concurrency, Pool: p.Pool.Given, Pools: p.Pool.Sizes, Clients: p.Clients, Trials: p.Trials,
		WarmupS: p.Warmup.Seconds(), DurationS: p.Duration.Seconds(), OpTimeoutS: p.OpTimeout.Seconds(), Order: order, Steps: steps}
}

func clientInfo() sweep.ClientInfo {
	host, _ := os.Hostname()
	return sweep.ClientInfo{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), DriverVersion: version.Driver, OS: runtime.GOOS, Arch: runtime.GOARCH, Hostname: host}
}

// sameRun says whether a results header was produced by the same plan,
// workloads and target names as cfg, so that --resume appends comparable
// steps. Durations must match too: a step measured for 30 s and one for
// 5 s are not trials of one level.
func sameRun(h sweep.RunHeader, cfg *sweepConfig) error {
	p := planInfo(cfg.plan, 0)
	hp := h.Plan
	switch {
	case fmt.Sprint(hp.Concurrency) != fmt.Sprint(p.Concurrency):
		return fmt.Errorf("--concurrency was %v", hp.Concurrency)
	case hp.Pool != p.Pool:
		return fmt.Errorf("--pool was %s", hp.Pool)
	case hp.Clients != p.Clients:
		return fmt.Errorf("--clients was %d", hp.Clients)
	case hp.Trials != p.Trials:
		return fmt.Errorf("--trials was %d", hp.Trials)
	case hp.WarmupS != p.WarmupS || hp.DurationS != p.DurationS:
		return fmt.Errorf("--warmup/--duration were %gs/%gs", hp.WarmupS, hp.DurationS)
	case hp.Order != p.Order:
		return fmt.Errorf("--order was %s", hp.Order)
	}
	wi := workloadInfo(cfg.workloads)
	if h.Workload.Name != wi.Name || fmt.Sprint(h.Workload.Mix) != fmt.Sprint(wi.Mix) || fmt.Sprint(h.Workload.Mixes) != fmt.Sprint(wi.Mixes) ||
		h.Workload.Records != wi.Records || h.Workload.Distribution != wi.Distribution {
		return fmt.Errorf("the workload was %s (%d records, %s)", h.Workload.Name, h.Workload.Records, h.Workload.Distribution)
	}
	var names []string
	for _, t := range h.Targets {
		names = append(names, t.Name)
	}
	var want []string
	for _, t := range cfg.targets {
		want = append(want, t.Name)
	}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		return fmt.Errorf("the targets were %v", names)
	}
	return nil
}

// poolHosts is how many hosts each client keeps a busy pool to: every
// mongos of a sharded target; one member (the primary) otherwise.
func poolHosts(h sweep.TargetHeader) int {
	if h.Topology == topology.Sharded && len(h.Hosts) > 0 {
		return len(h.Hosts)
	}
	return 1
}
