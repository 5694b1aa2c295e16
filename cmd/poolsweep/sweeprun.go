package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plot"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// sweepTarget is a target with what the CLI learned and started for it.
type sweepTarget struct {
	topology.Target
	header results.TargetHeader
	child  *topology.Child // a server this sweep started
}

func (o *sweepOptions) run(ctx context.Context, e *env) error {
	var jp *jsonProgress
	if o.progress == "json" {
		// Every line of stderr is a JSON event, the last "poolsweep: …"
		// line too (run prints it through e.stderr): run made stderr so
		// before parsing the command line (progressmode.go).
		var ok bool
		if jp, ok = e.stderr.(*jsonProgress); !ok {
			jp = newJSONProgress(e.stderr)
			e.stderr = jp
		}
	}
	if err := o.checkNamedDir(); err != nil {
		return err
	}
	if err := o.readHandedTargets(); err != nil {
		return err
	}
	cfg, err := o.validate()
	if err != nil {
		return err
	}
	if err := o.validateGates(); err != nil {
		return err
	}
	if _, err := o.fleet.asked(); err != nil {
		return err
	}
	if err := o.fleet.readStorm(ctx, readOptions{}); err != nil {
		return err
	}
	if o.spawn > 0 {
		return o.runSpawn(ctx, e, cfg)
	}
	session := &sweep.Session{
		RunID: o.newRunID(), Plan: cfg.plan, Workloads: cfg.workloads,
		Drop: o.drop && o.agentIndex == 0, DropForeign: o.dropForeign, KeepGoing: o.keepGoing, MaxErrorRate: o.maxErrorRate, PrewarmTimeout: o.prewarm,
		MaxConnecting: o.maxConnecting, LockWait: o.lockWait,
	}
	for _, t := range cfg.targets {
		session.Targets = append(session.Targets, sweep.SessionTarget{Header: results.TargetHeader{Name: t.Name}})
	}
	if err := wirePlanner(session); err != nil {
		return err
	}
	outDir, err := o.outputDir(ctx, session)
	if err != nil {
		return err
	}
	// Listening is starting something: only once every output path is
	// known to take what the run writes.
	metrics, err := o.startMetrics(e.stderr)
	if err != nil {
		return err
	}
	defer metrics.stop()
	session.ResultsPath = filepath.Join(outDir, "results.jsonl")
	if session.Previous != nil {
		pending, err := session.Pending()
		switch {
		case errors.Is(err, sweep.ErrAlreadyComplete):
			fmt.Fprintf(e.stderr, "%s is already complete: all %d steps were measured; nothing to do\n", outDir, len(session.Previous.Steps))
			return nil
		case err != nil:
			return errext.Usagef("--resume: %s was made with other settings: %w; give the same flags as the first run", outDir, err)
		}
		switch {
		case session.Planner == nil:
			fmt.Fprintf(e.stderr, "resuming %s: %d of %d steps already measured, %d to go\n", session.RunID, len(session.Steps())-len(pending), len(session.Steps()), len(pending))
		case session.Plan.Search == nil:
			fmt.Fprintf(e.stderr, "resuming %s: %d steps already measured; the grid and its extra trials go on from them\n", session.RunID, len(session.Previous.Steps))
		default:
			fmt.Fprintf(e.stderr, "resuming %s: %d steps already measured; the search goes on from them\n", session.RunID, len(session.Previous.Steps))
		}
	}
	if session.Previous != nil && o.read.lenient {
		warnAll(e.stderr, session.Previous)
	}
	for _, n := range cfg.notes {
		fmt.Fprintln(e.stderr, "note:", safeLine(n))
	}

	// Start the servers this sweep owns, and stop them whatever happens.
	targets, stopTargets, err := startTargets(ctx, e, cfg.targets)
	defer stopTargets()
	if err != nil {
		return err
	}
	if err := o.checkAxes(targets); err != nil {
		return err
	}
	if err := checkTargetFiles(cfg.plan, targets, 1); err != nil {
		return err
	}
	closeTelemetry, err := o.wireTargets(session, targets)
	defer closeTelemetry()
	if err != nil {
		return err
	}

	pending, _ := session.Pending()
	summary := summarisePlan(session, pending, cfg.choice) // sweepplanline.go
	total := summary.steps
	if jp == nil {
		writePlanLine(e.stderr, summary, session.Plan, o.fleetLengths(session.Plan))
	}
	progress := newProgressPrinter(e.stderr, total)
	session.Hooks = progress.hooks()
	if jp != nil {
		jp.emit(evPlan, planOf(session, summary))
		session.Hooks = jp.hooks()
	}
	session.Hooks = metrics.hooks(session.Hooks)
	o.wireAgents(e, session, progress)
	var concluded *conclusion
	session.Conclude = func(end *results.EndRecord) { concluded = o.conclude(session.ResultsPath, end) }
	outcome, runErr := session.Run(ctx)
	progress.endLine()
	agentErr := o.agentError(ctx, outcome, runErr)
	if errors.As(agentErr, new(errext.UsageError)) {
		return agentErr
	}

	// Whatever happened, what was measured is summarised and drawn: from
	// the analysis made as the run ended, or, when the run ended before
	// that (or its end record could not be written), from the file.
	var thresholds []results.ThresholdOutcome
	if concluded == nil || outcome.Status != concluded.res.End.Status {
		concluded = nil
		if res, err := results.ReadFileWith(context.Background(), session.ResultsPath, o.read.options()); err == nil {
			concluded = &conclusion{res: res, a: analysis.Of([]*results.Results{res}, knee.DefaultOptions())}
		}
	}
	if c := concluded; c != nil && len(c.res.Steps) > 0 {
		res, a := c.res, c.a
		if res.End != nil {
			thresholds = res.End.Thresholds
		}
		writeSummary(e.stdout, res, a)
		if !o.noPlot {
			if err := writeArtifacts(outDir, res, a, o.fleetPlan(ctx, e, res, a)); err != nil {
				fmt.Fprintf(e.stderr, "poolsweep: figures: %s\n", safeLine(topology.Redact(err.Error())))
			}
		}
		writeSearchNotes(e.stdout, outcome.Notes)
		fmt.Fprintf(e.stdout, "\n%s\n", timeSplit(outcome.Time))
		fmt.Fprintf(e.stdout, "results: %s\n", textfmt.Escape(session.ResultsPath))
		writeThresholds(e.stdout, thresholds)
	}
	if jp != nil {
		jp.finish(outcome, thresholds, session.ResultsPath)
	}
	if agentErr != nil {
		return agentErr
	}
	err = endError(ctx, outcome, runErr)
	if err == nil || errors.As(err, new(errext.PartialError)) {
		// Measured as far as it could go: the thresholds decide.
		if gate := thresholdsError(thresholds); gate != nil {
			return gate
		}
	}
	return err
}

// endError is the error, and so the exit status, that a session's end
// status calls for: complete 0, partial 3, interrupted 128 + the signal,
// failed 1 (2 when the data poolsweep was to use is not its own). A
// failed run always exits non-zero, also when it failed without an error
// of its own (an agent whose leader stopped answering).
func endError(ctx context.Context, outcome sweep.Outcome, runErr error) error {
	switch outcome.Status {
	case results.StatusComplete:
		return nil
	case results.StatusPartial:
		return partialError(outcome)
	case results.StatusInterrupted:
		return errext.InterruptedBy(ctx)
	}
	switch {
	case errors.Is(runErr, workload.ErrNotOurs):
		return errext.Usagef("--database: %w", runErr)
	case runErr != nil:
		return runErr
	case outcome.Reason != "":
		return errors.New("the run failed: " + outcome.Reason)
	}
	return errors.New("the run failed")
}

// outputDir settles where results go: the run being resumed, --out, or a
// new directory named after the run; it refuses a place that cannot take
// them before anything connects: a results.jsonl already there (or a
// symlink in its place), and a report or figure name that is a symlink
// or not a regular file, which the end of the run would have to skip.
func (o *sweepOptions) outputDir(ctx context.Context, session *sweep.Session) (string, error) {
	if o.resume != "" {
		if o.out != "" && filepath.Clean(o.out) != filepath.Clean(o.resume) {
			return "", errext.Usagef("--resume: results go back into %s; drop --out", o.resume)
		}
		if err := outfile.CheckDir(o.resume); err != nil {
			return "", errext.Usagef("--resume: %w", err)
		}
		path := filepath.Join(o.resume, "results.jsonl")
		if err := outfile.Check(path); err != nil {
			return "", errext.Usagef("--resume: %w", err)
		}
		if err := o.checkArtifacts("--resume", o.resume); err != nil { // every output name before the input is read
			return "", err
		}
		prev, err := o.read.file(ctx, path)
		if err != nil {
			return "", errext.Usagef("--resume: %w", err)
		}
		session.Previous, session.RunID = prev, prev.Header.RunID
		return o.resume, nil
	}
	dir := o.out
	if dir == "" {
		dir = o.defaultOutDir(session.RunID)
	}
	if err := o.checkOutDir(dir); err != nil {
		return "", errext.Usagef("--out: %w", err)
	}
	results := filepath.Join(dir, "results.jsonl")
	if _, err := os.Lstat(results); err == nil {
		if err := outfile.Check(results); err != nil {
			return "", errext.Usagef("--out: %w", err)
		}
		return "", errext.Usagef("--out: %s already holds a results.jsonl; choose another directory, or continue it with --resume %s", dir, dir)
	}
	if err := o.checkArtifacts("--out", dir); err != nil {
		return "", err
	}
	session.MakeDir = func() error { return o.makeOutDir(dir) }
	return dir, nil
}

// checkNamedDir refuses a --resume or --out directory that cannot take
// the run's files before anything is read (the workload file, a storm
// run, the run to resume) or started; outputDir checks again, with every
// name, once the run is named.
func (o *sweepOptions) checkNamedDir() error {
	switch {
	case o.resume != "":
		if err := outfile.CheckDir(o.resume); err != nil {
			return errext.Usagef("--resume: %w", err)
		}
		return o.checkArtifacts("--resume", o.resume)
	case o.out != "":
		if err := outfile.CheckDir(o.out); err != nil {
			return errext.Usagef("--out: %w", err)
		}
		return o.checkArtifacts("--out", o.out)
	}
	return nil
}

// checkOutDir checks the output directory of a new run: the one the user
// named (--out), which poolsweep makes one level deep if it is absent, or
// the default ./poolsweep-out/RUN-ID, poolsweep's own names, which must be
// real directories where they exist.
func (o *sweepOptions) checkOutDir(dir string) error {
	if o.out != "" {
		return outfile.CheckDir(dir)
	}
	return outfile.CheckOwnDir(".", dir)
}

// makeOutDir makes the output directory checkOutDir accepted.
func (o *sweepOptions) makeOutDir(dir string) error {
	if o.out != "" {
		return outfile.MakeDir(dir)
	}
	_, err := outfile.MakeOwnDir(".", dir)
	return err
}

// checkArtifacts refuses an existing output directory in which the report
// or a figure drawn at the end of the run could not be written (unless
// --no-plot): it is known before the run starts, not after it.
func (o *sweepOptions) checkArtifacts(flag, dir string) error {
	if o.noPlot {
		return nil
	}
	if _, err := os.Lstat(filepath.Clean(dir)); err != nil {
		return nil // made fresh: every file in it is new
	}
	if err := plot.CheckNames(dir); err != nil {
		return errext.Usagef("%s: %w", flag, err)
	}
	if err := outfile.Check(filepath.Join(dir, "report.html")); err != nil {
		return errext.Usagef("%s: %w", flag, err)
	}
	return nil
}

// startTargets starts the servers poolsweep runs itself and detects what
// every target is. stop ends the servers it started, whatever happened:
// defer it before looking at err, which is the interruption when ctx ended.
func startTargets(ctx context.Context, e *env, ts []topology.Target) (targets []*sweepTarget, stop func(), err error) {
	stop = func() {
		for _, t := range targets {
			if t.child != nil {
				t.child.Stop()
			}
		}
	}
	targets, err = detectTargets(ctx, e, ts)
	if err != nil && ctx.Err() != nil {
		err = errext.InterruptedBy(ctx)
	}
	return targets, stop, err
}

// detectTargets starts and detects the targets in order; on an error the
// targets it returns are those started so far.
func detectTargets(ctx context.Context, e *env, ts []topology.Target) ([]*sweepTarget, error) {
	var targets []*sweepTarget
	for _, t := range ts {
		st := &sweepTarget{Target: t}
		targets = append(targets, st)
		var err error
		switch {
		case t.Embedded:
			fmt.Fprintln(e.stderr, "starting the embedded FerretDB server (a child process; its numbers are FerretDB's, not MongoDB's)…")
			if st.child, err = topology.StartChild(ctx, topology.ChildConfig{}); err != nil {
				return targets, fmt.Errorf("embedded server: %w", err)
			}
			st.URI = st.child.URI
		case t.SimSpec != "":
			fmt.Fprintf(e.stderr, "starting simulator %s for target %s (a measuring instrument, not a database)…\n", t.SimSpec, t.Name)
			if st.child, err = topology.StartChild(ctx, topology.ChildConfig{Args: []string{"serve", "--sim", t.SimSpec}, NoData: true}); err != nil {
				return targets, fmt.Errorf("target %s: simulator: %w", t.Name, err)
			}
			st.URI = st.child.URI
		}
		info, err := topology.Detect(ctx, st.URI)
		if err != nil {
			return targets, fmt.Errorf("target %s (%s): %w", t.Name, st.Redacted(), err)
		}
		st.header = sweep.NewTargetHeader(t.Name, st.URI, info)
		fmt.Fprintf(e.stderr, "target %s: %s %s %s, hosts %s\n", t.Name, info.ServerKind, info.ServerVersion, info.Topology, strings.Join(info.Hosts, ","))
	}
	return targets, nil
}

// wireTargets gives the session each target's header, client factory,
// health check and telemetry; the returned func closes the telemetry.
func (o *sweepOptions) wireTargets(session *sweep.Session, targets []*sweepTarget) (func(), error) {
	var closers []func()
	closeAll := func() {
		for _, c := range closers {
			c()
		}
	}
	session.Targets = session.Targets[:0]
	for _, t := range targets {
		uri := t.URI
		st := sweep.SessionTarget{Header: t.header, NewClient: func() *options.ClientOptions { return topology.ClientOptions(uri) }}
		if child := t.child; child != nil {
			st.Check = func() error {
				if child.Exited() {
					return fmt.Errorf("the server process poolsweep started for target %s exited: %s", t.Name, safeLine(child.Stderr()))
				}
				return nil
			}
		}
		if !o.noTelemetry {
			tel, err := newStepTelemetry(t, o.noShardSample)
			if err != nil {
				return closeAll, fmt.Errorf("target %s: telemetry: %w", t.Name, err)
			}
			closers = append(closers, tel.Close)
			st.Observers = append(st.Observers, tel)
			st.Judge = newStepJudge(t, o.serverCores)
		}
		session.Targets = append(session.Targets, st)
	}
	return closeAll, nil
}

// partialError ends a run whose steps did not all run: exit status 3.
func partialError(outcome sweep.Outcome) error {
	var lines []string
	for _, f := range outcome.Failed {
		lines = append(lines, fmt.Sprintf("%s C=%d P=%s trial %d", f.Target, f.Concurrency, f.PoolSetting, f.Trial))
	}
	return errext.PartialError{Msg: fmt.Sprintf("the run is partial: %s: %s; continue it with --resume", outcome.Reason, strings.Join(lines, ", "))}
}

// timeSplit says where a sweep's wall time went, so that a user sees what
// a long plan costs beyond its measured windows.
func timeSplit(t sweep.SessionTime) string {
	parts := []struct {
		name string
		d    time.Duration
	}{{"loading", t.Loading}, {"checks", t.Check}, {"pre-warm", t.Prewarm}, {"warm-up", t.Warmup}, {"windows", t.Window}, {"teardown", t.Teardown}, {"failed steps", t.Failed}, {"waiting for agents", t.Barrier}}
	var known time.Duration
	out := "wall time " + fmtWall(t.Total) + ":"
	for _, p := range parts {
		known += p.d
		if p.d >= 50*time.Millisecond {
			out += fmt.Sprintf(" %s %s (%.0f%%),", p.name, fmtWall(p.d), 100*p.d.Seconds()/max(t.Total.Seconds(), 1e-9))
		}
	}
	if other := t.Total - known; other > 0 {
		out += fmt.Sprintf(" other %s,", fmtWall(other))
	}
	return strings.TrimSuffix(out, ",")
}

// fmtWall prints a duration to the precision a person reads it at.
func fmtWall(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute).String()
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(10 * time.Millisecond).String()
	}
}

// fleetPlan is the fleet's plan for report.html when --instances asked for
// one, or nil. The run is measured by now: a plan that cannot be made
// (the --storm run is of another deployment) is said in one line and the
// report is written without it.
func (o *sweepOptions) fleetPlan(ctx context.Context, e *env, res *results.Results, a *analysis.Analysis) *fleet.Plan {
	if o.fleet.instances == 0 {
		return nil
	}
	p, err := o.fleet.plan(ctx, readOptions{}, []*results.Results{res}, a)
	if err != nil {
		fmt.Fprintf(e.stderr, "poolsweep: report.html without its fleet section: %s\n", safeLine(err.Error()))
		return nil
	}
	return p
}
