package sweep

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/merge"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	runlib "github.com/poolsweep/poolsweep/runner"
	"github.com/poolsweep/poolsweep/runner/progress"
	sweeplib "github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
)

// run is the sweep command once its flags are parsed: it checks them
// (what needs no connection), hands the run to runlib.Run, and prints
// what the run returns.
func (o *Options) run(ctx context.Context, e *cmdutil.Env) error {
	var jp *progress.JSON
	if o.progress == "json" {
		// Every line of stderr is a JSON event, the last "poolsweep: …"
		// line too (cli/root prints it through e.Stderr): root made stderr
		// so before parsing the command line (cli/root/progressmode.go).
		var ok bool
		if jp, ok = e.Stderr.(*progress.JSON); !ok {
			jp = progress.NewJSON(e.Stderr)
			e.Stderr = jp
		}
	}
	opts, err := o.options(ctx)
	if err != nil {
		return err
	}
	opts.Messages = e.Stderr
	if jp != nil {
		opts.JSON = jp
	}
	r := runlib.Run(ctx, opts)
	printRun(e.Stdout, r)
	return r.Err
}

// check finds the usage errors the flags and the inputs they name make,
// before the runF seam, so that the flags-only tests reach each of them.
// An agent that --spawn started reads its targets from --targets-fd,
// which can be read only once: its flags are checked once those have
// arrived (options).
func (o *Options) check() error {
	if err := runlib.CheckNamedDir(o.out, o.resume, o.noPlot); err != nil {
		return err
	}
	if err := o.checkNotInputs(); err != nil {
		return err
	}
	if o.targetsFD == 0 {
		if _, err := o.validate(); err != nil {
			return err
		}
	}
	if err := o.validateGates(); err != nil {
		return err
	}
	_, err := o.fleet.Asked()
	return err
}

// options reads the targets handed over --targets-fd, checks the flags
// with them, reads the inputs they name, and turns them into the run's
// options.
func (o *Options) options(ctx context.Context) (runlib.Options, error) {
	if err := o.readHandedTargets(); err != nil {
		return runlib.Options{}, err
	}
	cfg, err := o.validate()
	if err != nil {
		return runlib.Options{}, err
	}
	if o.targetsFD != 0 {
		if err := o.check(); err != nil {
			return runlib.Options{}, err
		}
	}
	if err := o.fleet.ReadStorm(ctx, shared.ReadOptions{}); err != nil {
		return runlib.Options{}, err
	}
	opts := runlib.Options{RunID: o.runID, Plan: cfg.plan, Workloads: cfg.workloads, Targets: cfg.targets, Why: cfg.choice.why, Notes: cfg.notes,
		Out: o.out, Resume: o.resume, Read: o.read.Options(), NoPlot: o.noPlot,
		Drop: o.drop, DropForeign: o.dropForeign, KeepGoing: o.keepGoing, MaxErrorRate: o.maxErrorRate,
		PrewarmTimeout: o.prewarm, LockWait: o.lockWait,
		NoTelemetry: o.noTelemetry, NoShardSampling: o.noShardSample, ServerCores: o.serverCores,
		Thresholds: o.gates.List(), Metrics: o.metricsOptions(), ParamHosts: o.serverParamHosts}
	for _, flag := range []string{"read-preference", "write-concern"} {
		if o.changed(flag) {
			opts.Axes = append(opts.Axes, flag)
		}
	}
	opts.Fleet = o.fleet.Options()
	opts.Agents = o.agentsOption()
	if o.spawn > 0 {
		opts.Spawn = &runlib.SpawnOptions{Count: o.spawn, Args: o.spawnArgs(cfg), AgentTimeout: o.agentTimeout, URI: o.uri}
	}
	return opts, nil
}

// printRun prints what a run measured: the summary of its results, what
// the search found, where the time went, where the results are, and the
// thresholds; for --spawn, the agents' merge and its summary. Nothing
// when nothing was measured.
func printRun(w io.Writer, r runlib.Result) {
	res := r.Results
	switch {
	case r.Merged && res != nil:
		merge.PrintMerged(w, r.ResultsPath, res, r.Analysis)
	case res != nil && len(res.Steps) > 0:
		_ = render.Summary(w, res, r.Analysis)
		writeSearchNotes(w, r.Outcome.Notes)
		fmt.Fprintf(w, "\n%s\n", timeSplit(r.Outcome.Time))
		fmt.Fprintf(w, "results: %s\n", textfmt.Escape(r.ResultsPath))
		shared.WriteThresholds(w, r.Thresholds)
	}
}

// timeSplit says where a sweep's wall time went, so that a user sees what
// a long plan costs beyond its measured windows.
func timeSplit(t sweeplib.SessionTime) string {
	parts := []struct {
		name string
		d    time.Duration
	}{{"loading", t.Loading}, {"checks", t.Check}, {"pre-warm", t.Prewarm}, {"warm-up", t.Warmup}, {"windows", t.Window}, {"teardown", t.Teardown}, {"failed steps", t.Failed}, {"waiting for agents", t.Barrier}}
	var known time.Duration
	out := "wall time " + progress.Wall(t.Total) + ":"
	for _, p := range parts {
		known += p.d
		if p.d >= 50*time.Millisecond {
			out += fmt.Sprintf(" %s %s (%.0f%%),", p.name, progress.Wall(p.d), 100*p.d.Seconds()/max(t.Total.Seconds(), 1e-9))
		}
	}
	if other := t.Total - known; other > 0 {
		out += fmt.Sprintf(" other %s,", progress.Wall(other))
	}
	return strings.TrimSuffix(out, ",")
}

// checkNotInputs refuses an output directory (--out, or --resume's) in
// which the run would write over a file it reads: the workload file, the
// storm run, a TLS file a URI names. The run being resumed is the one
// input it is meant to go on writing.
func (o *Options) checkNotInputs() error {
	flag, dir := "--out", o.out
	if o.resume != "" {
		flag, dir = "--resume", o.resume
	}
	if dir == "" {
		return nil // a new directory of the run's own: every file in it is new
	}
	ins := append(cmdutil.FlagFile("--workload-file", o.workloadFile), o.fleet.Inputs()...)
	ins = append(ins, cmdutil.URIFiles("--uri", o.uri)...)
	for _, t := range o.targets {
		if tt, err := topology.ParseTarget(t); err == nil && tt.SimSpec == "" {
			ins = append(ins, cmdutil.URIFiles("--target "+tt.Name, tt.URI)...)
		}
	}
	return cmdutil.NotInputIn(flag, dir, runlib.Writes, ins)
}
