package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/runner/progress"
	"github.com/poolsweep/poolsweep/search"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/threshold"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// Run runs the sweep o describes and returns what it measured and
// concluded; Result.Err is its error, whose errext.ExitCode is the exit
// status. ctx ends the run as an interruption (its cause names the
// signal, errext.Interrupt): every finished step is kept.
func Run(ctx context.Context, o Options) Result {
	if o.Messages == nil {
		o.Messages = io.Discard
	}
	if o.Spawn != nil {
		return o.runSpawn(ctx)
	}
	return o.runSession(ctx)
}

// runSession runs the sweep in this process: alone, or as one agent of
// several.
func (o *Options) runSession(ctx context.Context) Result {
	session := &sweep.Session{
		RunID: NewRunID(o.RunID), Plan: o.Plan, Workloads: o.Workloads,
		Drop: o.Drop && (o.Agents == nil || o.Agents.Index == 0), DropForeign: o.DropForeign, KeepGoing: o.KeepGoing,
		MaxErrorRate: o.MaxErrorRate, PrewarmTimeout: o.PrewarmTimeout, LockWait: o.LockWait, ParamHosts: o.ParamHosts,
	}
	// Each target is named now, and completed once it is detected
	// (wireTargets): what is left to measure, and the planner, need only
	// the names.
	for _, t := range o.Targets {
		session.Targets = append(session.Targets, sweep.SessionTarget{Header: results.TargetHeader{Name: t.Name}})
	}
	if err := wirePlanner(session); err != nil {
		return Result{Err: err}
	}
	outDir, err := o.outputDir(ctx, session)
	if err != nil {
		return Result{Err: err}
	}
	// Listening is starting something: only once every output path is
	// known to take what the run writes.
	metrics, err := StartMetrics(o.Metrics, o.Messages)
	if err != nil {
		return Result{Err: err}
	}
	defer metrics.Stop()
	session.ResultsPath = filepath.Join(outDir, "results.jsonl")
	if done, err := o.resuming(session, outDir); done || err != nil {
		return Result{Err: err}
	}
	for _, n := range o.Notes {
		fmt.Fprintln(o.Messages, "note:", textfmt.Line(n))
	}

	// Start the servers this sweep owns, and stop them whatever happens.
	targets, stopTargets, err := StartTargets(ctx, o.Messages, o.Targets)
	defer stopTargets()
	if err != nil {
		if ctx.Err() != nil {
			o.endInterrupted(ctx, session, targets)
		}
		return Result{Err: err}
	}
	if err := o.checkAxes(targets); err != nil {
		return Result{Err: err}
	}
	if err := o.checkEvents(ctx, targets); err != nil {
		return Result{Err: err}
	}
	if err := checkTargetFiles(o.Plan, targets, 1); err != nil {
		return Result{Err: err}
	}
	closeTelemetry, err := o.wireTargets(session, targets)
	defer closeTelemetry()
	if err != nil {
		return Result{Err: err}
	}
	if session.Previous == nil {
		// Before the plan line and any load: a parameter or value the
		// servers refuse is the run's last word (a resumed run asks in
		// Run, once an earlier process's values are set back).
		if err := session.CheckServerParams(ctx); err != nil {
			return Result{Err: err}
		}
	}

	text := o.wireProgress(session, metrics)
	o.wireAgents(session, text)
	r := Result{ResultsPath: session.ResultsPath}
	session.Conclude = func(res *results.Results) { o.conclude(&r, res) }
	outcome, runErr := session.Run(ctx)
	text.EndLine()
	r.Outcome = outcome
	agentErr := o.agentError(ctx, outcome, runErr)
	if errors.As(agentErr, new(errext.UsageError)) {
		r.Err = agentErr
		return r
	}

	// Whatever happened, what was measured is summarised and drawn: from
	// the analysis made as the run ended, or, when the run ended before
	// that (or its end record could not be written), from the results as
	// the session wrote them.
	if res := session.Results(); res != nil && (r.Results == nil || res.End == nil || res.End.Status != r.Results.End.Status) {
		r.Results, r.Analysis = res, nil
	}
	o.end(&r, outDir)
	if o.JSON != nil {
		o.JSON.Finish(outcome, r.Thresholds, session.ResultsPath)
	}
	r.Err = agentErr
	if r.Err == nil {
		r.Err = endError(ctx, outcome, runErr)
		if r.Err == nil || errors.As(r.Err, new(errext.PartialError)) {
			// Measured as far as it could go: the thresholds decide.
			if gate := threshold.Gate(r.Thresholds); gate != nil {
				r.Err = gate
			}
		}
	}
	return r
}

// resuming says what a resumed run has left to do; done when nothing.
func (o *Options) resuming(session *sweep.Session, outDir string) (done bool, err error) {
	if session.Previous == nil {
		return false, nil
	}
	pending, err := session.Pending()
	switch {
	case errors.Is(err, sweep.ErrAlreadyComplete):
		fmt.Fprintf(o.Messages, "%s is already complete: all %d steps were measured; nothing to do\n", outDir, len(session.Previous.Steps))
		return true, nil
	case err != nil:
		return true, errext.Usagef("--resume: %s was made with other settings: %w; give the same flags as the first run", outDir, err)
	}
	switch {
	case session.Planner == nil:
		fmt.Fprintf(o.Messages, "resuming %s: %d of %d steps already measured, %d to go\n", session.RunID, len(session.Steps())-len(pending), len(session.Steps()), len(pending))
	case session.Plan.Search == nil:
		fmt.Fprintf(o.Messages, "resuming %s: %d steps already measured; the grid and its extra trials go on from them\n", session.RunID, len(session.Previous.Steps))
	default:
		fmt.Fprintf(o.Messages, "resuming %s: %d steps already measured; the search goes on from them\n", session.RunID, len(session.Previous.Steps))
	}
	if o.Read.Lenient {
		for _, m := range session.Previous.Warnings {
			fmt.Fprintf(o.Messages, "poolsweep: warning: %s\n", textfmt.Line(m))
		}
	}
	return false, nil
}

// wireProgress writes the plan line (or event) and gives the session the
// progress sinks: text or JSON events, and the metrics exporter.
func (o *Options) wireProgress(session *sweep.Session, metrics *Metrics) *progress.Text {
	pending, _ := session.Pending()
	summary := progress.Summarise(session, pending, o.Why)
	if o.JSON == nil {
		progress.WritePlanLine(o.Messages, summary, session.Plan, o.fleetLengths(session.Plan))
		if line := session.ParamPlanLine(); line != "" {
			fmt.Fprintln(o.Messages, line)
		}
	}
	text := progress.NewText(o.Messages, summary.Steps())
	session.Hooks = text.Hooks()
	if o.JSON != nil {
		o.JSON.Plan(session, summary)
		session.Hooks = o.JSON.Hooks()
	}
	session.Hooks = metrics.hooks(session.Hooks)
	return text
}

// wirePlanner gives the session its planner: the search when the plan is
// one; a grid whose trials are a maximum (auto windows, --trials N) takes
// its extra trials where neighbouring levels overlap (search.Trials); any
// other grid is measured as it is (the session's own).
func wirePlanner(session *sweep.Session) error {
	p := session.Plan
	if p.Search == nil && !p.TrialsAtMost() {
		return nil
	}
	var targets []results.TargetHeader
	for _, t := range session.Targets {
		targets = append(targets, t.Header)
	}
	if p.Search == nil {
		t, err := search.NewTrials(p, targets, session.WorkloadLabels(), knee.DefaultOptions())
		if err != nil {
			return errext.Usagef("--trials: %w", err)
		}
		session.Planner = t
		return nil
	}
	sp, err := search.New(p, targets, session.WorkloadLabels(), knee.DefaultOptions())
	if err != nil {
		return errext.Usagef("--search: %w", err)
	}
	session.Planner = sp
	return nil
}

// conclude is the one analysis of the run's results as the session hands
// them over, with the end record about to be written (a search's
// conclusion is its reason); it adds the threshold outcomes to that
// record.
func (o *Options) conclude(r *Result, res *results.Results) {
	r.Results, r.Analysis = res, analysis.Of([]*results.Results{res}, knee.DefaultOptions())
	if len(o.Thresholds) > 0 {
		res.End.Thresholds = threshold.Evaluate(o.Thresholds, []*results.Results{res}, r.Analysis)
	}
}

// end is the end every run takes once it has results (one process, an
// agent, or --spawn's agents merged): their one analysis, unless the
// session made it as it concluded; then, when any step was measured, the
// threshold outcomes its end record holds and the figures and
// report.html in dir.
func (o *Options) end(r *Result, dir string) {
	res := r.Results
	if res == nil {
		return
	}
	if r.Analysis == nil {
		r.Analysis = analysis.Of([]*results.Results{res}, knee.DefaultOptions())
	}
	if len(res.Steps) == 0 {
		return
	}
	if res.End != nil {
		r.Thresholds = res.End.Thresholds
	}
	if !o.NoPlot {
		if err := writeArtifacts(dir, res, r.Analysis, o.fleetPlan(res, r.Analysis)); err != nil {
			fmt.Fprintf(o.Messages, "poolsweep: figures: %s\n", textfmt.Line(topology.Redact(err.Error())))
		}
	}
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

// partialError ends a run whose steps did not all run: exit status 3.
func partialError(outcome sweep.Outcome) error {
	msg := "the run is partial: " + outcome.Reason + ": "
	for i, f := range outcome.Failed {
		if i > 0 {
			msg += ", "
		}
		msg += fmt.Sprintf("%s C=%d P=%s trial %d", f.Target, f.Concurrency, f.PoolSetting, f.Trial)
	}
	return errext.PartialError{Msg: msg + "; continue it with --resume"}
}
