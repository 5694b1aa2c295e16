package sweep

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
)

// SessionTarget is one deployment a session measures.
type SessionTarget struct {
	// Header is the target as detected, its URI already redacted; it goes
	// into the results header as it is.
	Header results.TargetHeader
	// NewClient builds driver options with the real URI; the session adds
	// pool size, monitors and timeouts.
	NewClient ClientFactory
	// Observers see every measured window of this target (telemetry).
	Observers []WindowObserver
	// Judge labels each of this target's steps once the observers have
	// filled it (what bound it); nil leaves steps unlabelled.
	Judge StepJudge
	// Check, when set, says before each step whether the target can still
	// be measured at all (for example: the server process poolsweep
	// started has exited).
	Check func() error
}

// SessionHooks are how a session reports while it runs. Each may be nil.
// They are called from the session's goroutine, except Progress, which
// the runner calls from its own.
type SessionHooks struct {
	Loading  func(target string, done, total int) // documents loaded so far
	Loaded   func(target string, lr workload.LoadResult)
	Waiting  func(target, msg string)                       // waiting for another run's load
	Begin    func(n, of int, spec plan.StepSpec)            // a step is about to start
	Progress func(Progress)                                 // the live view of a step
	Step     func(n, of int, step results.StepResult)       // a step measured and written
	Failed   func(n, of int, spec plan.StepSpec, err error) // a step that could not be measured
	Stopping func(reason string)                            // the session stops early
	// Server says what the session did to a target's server settings
	// beyond its load: a fail point an earlier process of a resumed run
	// left on and this one switched off, or one it could not.
	Server func(target, msg string)
}

// Session is a whole sweep: it loads the data, measures every step of the
// plan against every target, writes each step to Out as it finishes,
// resumes an earlier run, applies the stop rules, and closes the results
// with the end record. It returns data and never prints.
type Session struct {
	RunID     string
	Targets   []SessionTarget
	Plan      plan.Plan
	Workloads []workload.Workload
	// ResultsPath is the results.jsonl to write. A new run creates it (and
	// its directory, with MakeDir) once every target's data is ready; a
	// resumed run appends to it. A run whose data could not be loaded ends
	// it at once with a failed end record saying why (none when the data
	// is not poolsweep's: that is bad input, and nothing is written).
	ResultsPath string
	// MakeDir makes the directory ResultsPath goes into, when a new run
	// first writes there (after loading its data, so that a run that
	// cannot start leaves nothing behind); nil: the directory must exist.
	// The engine creates no directory itself: where one may be made is
	// the caller's rule (see internal/outfile).
	MakeDir func() error
	// Previous is the run being resumed (read from ResultsPath); nil for a
	// new run.
	Previous *results.Results
	// Planner chooses the steps; nil measures the plan's grid (what
	// Pending returns). A planner sees the resumed run's steps too, so it
	// can pick up where the earlier run stopped.
	Planner plan.Planner

	Drop bool // reload poolsweep's own data
	// DropForeign lets the load drop a collection poolsweep created that
	// also holds documents poolsweep did not write (--drop-foreign);
	// without it such a target is refused (workload.ForeignError).
	DropForeign    bool
	KeepGoing      bool          // a step that fails is skipped, the run ends partial
	MaxErrorRate   float64       // stop after a step with more failed ops than this (≥ 1: never)
	PrewarmTimeout time.Duration // per step; 0: 60 s
	// HealthTimeout bounds the check that a target still answers before
	// each step, so that a dead target fails its steps in seconds rather
	// than after a whole pre-warm; 0: 5 s.
	HealthTimeout time.Duration
	// LockWait bounds waiting for another run loading the same data.
	LockWait time.Duration

	Hooks SessionHooks
	// Conclude, when set, is called once every step the run will hold is
	// in ResultsPath, just before the end record is written, with the
	// run's results as the file will hold them (Results), their End the
	// record about to be written: the caller may add what it judges from
	// them to that record (the --threshold outcomes). The engine judges
	// nothing itself.
	Conclude func(res *results.Results)

	// ParamHosts is --server-param-hosts: which hosts of each target the
	// workloads' server parameters are set on (ParamHostsAuto, …).
	ParamHosts string

	// Coordinator keeps this session in lock step with other agents
	// measuring the same plan (agent mode); nil runs alone.
	Coordinator Coordinator
	coord       Coordinator           // Coordinator once joined, or alone
	agents      *results.AgentsHeader // what Coordinator.Start returned
	file        *resultsFile          // the results being written, once opened (resultsfile.go)
	// params are each target's server parameters' hosts and typed
	// values, once checkServerParams has asked the servers.
	params        map[string]*targetParams
	paramsChecked bool
}

// Interrupt is the cause a caller gives when it cancels a session's
// context for a signal; the end record names the signal.
type Interrupt = errext.Interrupt

// Outcome is how a session ended.
type Outcome struct {
	Status   string // StatusComplete, StatusPartial, StatusInterrupted or StatusFailed
	Reason   string
	Signal   string // the signal that interrupted it, if one did
	Planned  int    // steps in the whole plan
	Pending  int    // steps this session set out to measure
	Measured int    // steps this session measured and wrote
	Failed   []results.FailedStep
	Time     SessionTime // where the session's wall time went
	Notes    []string    // the planner's notes on where it stopped
}

// SessionTime is a session's wall time by phase, summed over its steps.
type SessionTime struct {
	Total, Loading                           time.Duration
	Check, Prewarm, Warmup, Window, Teardown time.Duration
	Failed                                   time.Duration // in steps that could not be measured
	Barrier                                  time.Duration // waiting for other agents (agent mode)
}

func (t *SessionTime) add(p *results.StepPhases) {
	sec := func(v float64) time.Duration { return time.Duration(v * float64(time.Second)) }
	t.Check += sec(p.Check)
	t.Prewarm += sec(p.Prewarm)
	t.Warmup += sec(p.Warmup)
	t.Window += sec(p.Window)
	t.Teardown += sec(p.Teardown)
	t.Barrier += sec(p.Barrier)
}

// Estimate is how long measuring steps should take: each step's warm-up
// and window, plus a rough allowance for checking the target, opening
// the pool (at DefaultMaxConnecting a time, about 1,000 connections a
// second on a local network) and tearing down. With auto warm-ups or
// windows it is the shortest they can take (EstimateRange).
func (s *Session) Estimate(steps []plan.StepSpec) time.Duration {
	lo, _ := s.EstimateRange(steps)
	return lo
}

// EstimateRange is Estimate with every step at its shortest and at its
// longest (plan.Plan.StepLengths): equal with fixed lengths.
func (s *Session) EstimateRange(steps []plan.StepSpec) (lo, hi time.Duration) {
	shortest, longest := s.Plan.StepLengths()
	for _, sp := range steps {
		rest := plan.StepOverhead(sp)
		lo += shortest + rest
		hi += longest + rest
	}
	return lo, hi
}

// Steps is the whole plan expanded for the session's targets and workloads.
func (s *Session) Steps() []plan.StepSpec {
	return s.Plan.Steps(s.TargetNames(), s.WorkloadLabels())
}

// TargetNames is the session's targets' names, in order.
func (s *Session) TargetNames() []string {
	names := make([]string, len(s.Targets))
	for i, t := range s.Targets {
		names[i] = t.Header.Name
	}
	return names
}

// WorkloadLabels is the series labels of the session's workloads, in order.
func (s *Session) WorkloadLabels() []string {
	labels := make([]string, len(s.Workloads))
	for i, w := range s.Workloads {
		labels[i] = w.Label
	}
	return labels
}

// Pending is what is left to measure: the whole plan for a new run; for a
// resumed run the steps not measured yet, after checking that the earlier
// run had the same settings. It does no I/O, so callers can ask before
// they start servers. ErrAlreadyComplete says there is nothing to do.
func (s *Session) Pending() ([]plan.StepSpec, error) {
	steps := s.Steps()
	if s.Previous == nil {
		return steps, nil
	}
	if err := checkResume(s.Previous.Header, s.Plan, s.Workloads, s.TargetNames()); err != nil {
		return nil, err
	}
	if s.Planner != nil && s.Previous.End != nil && s.Previous.End.Status == results.StatusComplete && s.Planner.Remaining(measuredSteps(s.Previous)) == 0 {
		return nil, ErrAlreadyComplete // a search that had found its answer
	}
	return pendingSteps(s.Previous, steps)
}

// Run measures the pending steps and writes the results. The returned
// error is the cause when the outcome is StatusFailed (and it wraps
// ErrNotOurs or ErrLockTimeout when the data could not be prepared); an
// interruption is an outcome, not an error. Run always ends the results
// with an end record, unless the file cannot be written at all.
func (s *Session) Run(ctx context.Context) (Outcome, error) {
	steps := s.Steps()
	pending, err := s.Pending()
	if err != nil {
		return Outcome{}, err
	}
	out := Outcome{Planned: len(steps), Pending: len(pending)}
	if s.Planner != nil {
		// A planner that chooses as it goes knows only its estimate.
		prev := measuredSteps(s.Previous)
		out.Pending = s.Planner.Remaining(prev)
		out.Planned = len(prev) + out.Pending
	}
	began := time.Now()
	if s.Previous != nil {
		// Before anything else: an earlier process of this run may have
		// left a fail point on, and nothing is measured through it.
		if err := s.recoverFailPoints(ctx); err != nil {
			if ctx.Err() != nil {
				return s.endInterrupted(ctx, out, "interrupted while switching off an earlier process's fail points; nothing was measured"), nil
			}
			return Outcome{Status: results.StatusFailed, Reason: err.Error()}, err
		}
	}
	if err := s.checkData(ctx, len(pending) > 0); err != nil {
		if ctx.Err() != nil {
			return s.endInterrupted(ctx, out, "interrupted while checking the targets' data; nothing was measured"), nil
		}
		return Outcome{Status: results.StatusFailed, Reason: err.Error()}, err
	}
	if len(pending) > 0 {
		// Before anything is loaded: a parameter the servers refuse (or a
		// value they refuse) is bad input, and nothing is measured.
		if err := s.CheckServerParams(ctx); err != nil {
			if ctx.Err() != nil {
				return s.endInterrupted(ctx, out, "interrupted while checking the server parameters; nothing was measured"), nil
			}
			return Outcome{Status: results.StatusFailed, Reason: err.Error()}, err
		}
	}
	endAgents, err := s.join(ctx, len(pending) > 0)
	if err != nil {
		if ctx.Err() != nil {
			return s.endInterrupted(ctx, out, "interrupted while joining the other agents; nothing was measured"), nil
		}
		return Outcome{Status: results.StatusFailed, Reason: err.Error()}, err
	}
	defer endAgents(nil)
	targets, err := s.prepareAll(ctx, len(pending) > 0)
	out.Time.Loading = time.Since(began)
	defer func() {
		for _, t := range targets {
			t.close()
		}
	}()
	if err != nil {
		if ctx.Err() != nil {
			out = s.endInterrupted(ctx, out, "interrupted while loading data; nothing was measured")
			out.Time.Total = time.Since(began)
			return out, nil
		}
		out.Status, out.Reason = results.StatusFailed, err.Error()
		endAgents(&out)
		if !errors.Is(err, workload.ErrNotOurs) {
			s.endUnmeasured(out)
		}
		out.Time.Total = time.Since(began)
		return out, err
	}

	f, err := s.openResults(out.Planned)
	if err != nil {
		return Outcome{Status: results.StatusFailed, Reason: err.Error()}, err
	}
	defer f.w.Close()
	planner := s.Planner
	if planner == nil {
		planner = plan.NewGridPlanner(pending)
	}
	// The steps the file holds, once each: a step measured again (it was
	// interrupted, or the target failed) replaces its earlier record.
	recorded := map[string]bool{}
	if s.Previous != nil {
		for _, st := range s.Previous.Steps {
			recorded[st.Key()] = true
		}
	}
	runErr := s.measure(ctx, f, targets, planner, &out, recorded)
	// Before the end record: a run recorded complete is never resumed,
	// so a fail point that may still be on must make it failed instead,
	// and --resume then switches it off.
	if err := switchOffFailPoints(ctx, targets); err != nil {
		out.Status, out.Reason = results.StatusFailed, err.Error()
		if runErr == nil {
			runErr = err
		}
	}
	// So too a server parameter that could not be set back: the run is
	// failed, its reason names the values left, and --resume sets them
	// back.
	if err := restoreServerParams(ctx, targets); err != nil {
		out.Status, out.Reason = results.StatusFailed, err.Error()
		if runErr == nil {
			runErr = err
		}
	}
	if out.Status == "" {
		out.Status = results.StatusComplete
		if len(out.Failed) > 0 {
			out.Status = results.StatusPartial
			out.Reason = partialReason(out)
		}
	}
	if pn, ok := planner.(plan.PlannerNotes); ok {
		out.Notes = pn.Notes()
		if out.Status == results.StatusComplete || out.Status == results.StatusPartial {
			for _, n := range out.Notes {
				out.Reason = strings.TrimPrefix(out.Reason+"; "+n, "; ")
			}
		}
	}
	endAgents(&out)
	end := results.EndRecord{Kind: results.KindEnd, Status: out.Status, Reason: out.Reason, FinishedAt: time.Now().UTC(),
		Steps: len(recorded), Planned: out.Planned, FailedSteps: out.Failed, Signal: out.Signal}
	if s.Conclude != nil {
		s.Conclude(f.results(&end))
	}
	if err := f.writeEnd(end); err != nil && runErr == nil {
		runErr = err
		out.Status, out.Reason = results.StatusFailed, err.Error()
	}
	out.Time.Total = time.Since(began)
	return out, runErr
}

// partialReason says why a run that went to its end is partial: steps
// that could not run (skipped with --keep-going), and steps during which
// the target failed; --resume measures both again.
func partialReason(out Outcome) string {
	targetFailed := 0
	for _, f := range out.Failed {
		if f.TargetFailed {
			targetFailed++
		}
	}
	total := out.Measured + len(out.Failed)
	var parts []string
	if n := len(out.Failed) - targetFailed; n > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d step(s) could not be measured and were skipped (--keep-going)", n, total))
	}
	if targetFailed > 0 {
		parts = append(parts, fmt.Sprintf("the target failed during %d of %d step(s), which are not measurements", targetFailed, total))
	}
	return strings.Join(parts, ", and ")
}

// checkData refuses, before this process joins an agent run or loads any
// target of several, a target whose collection holds data poolsweep did
// not create or documents it did not write: every agent would fail to
// load it, after the others had waited for it at the barrier, and the
// targets before it would have been loaded (written) for a run that
// cannot go on. A session of one target alone finds out in Prepare, as
// early, before it writes.
func (s *Session) checkData(ctx context.Context, measuring bool) error {
	if (s.Coordinator == nil && len(s.Targets) < 2) || !measuring {
		return nil
	}
	for _, t := range s.Targets {
		if err := workload.CheckData(ctx, t.NewClient, s.Workloads[0], s.DropForeign); err != nil {
			return fmt.Errorf("target %s: %w", t.Header.Name, err)
		}
	}
	return nil
}

// measure runs the steps and writes them; it sets out.Status when the
// session stops early.
func (s *Session) measure(ctx context.Context, f *resultsFile, byName map[string]*sessionTarget, planner plan.Planner, out *Outcome, recorded map[string]bool) error {
	stop := func(status, reason string, err error) error {
		out.Status, out.Reason = status, reason
		if status == results.StatusInterrupted {
			out.Signal = signalOf(ctx)
		}
		if s.Hooks.Stopping != nil {
			s.Hooks.Stopping(reason)
		}
		return err
	}
	var (
		history []results.StepResult // every measured step of the run, for the planner
		failed  []plan.StepSpec
	)
	history = append(history, measuredSteps(s.Previous)...)
	if s.Planner != nil {
		defer func() { out.Planned = len(history) + len(failed) + planner.Remaining(history) }()
	}
	for i := 0; ; i++ {
		if ctx.Err() != nil {
			return stop(results.StatusInterrupted, fmt.Sprintf("interrupted before step %d", i+1), nil)
		}
		spec, ok := planner.Next(history, failed)
		if !ok {
			return nil
		}
		n := i + 1 + planner.Remaining(history)
		if s.Hooks.Begin != nil {
			s.Hooks.Begin(i+1, n, spec)
		}
		t := byName[spec.Target]
		stepBegan := time.Now()
		step, err := s.runStep(ctx, t, spec)
		s.coord.Finish(ctx, spec, &step, err)
		if step.Phases != nil {
			out.Time.add(step.Phases)
		} else {
			out.Time.Failed += time.Since(stepBegan)
		}
		if ctx.Err() != nil {
			if step.Interrupted && step.DurationS > 0 {
				if werr := f.writeStep(step); werr != nil {
					return stop(results.StatusFailed, werr.Error(), werr)
				}
				recorded[step.Key()] = true
			}
			return stop(results.StatusInterrupted, fmt.Sprintf("interrupted during step %d of %d", i+1, n), nil)
		}
		if err != nil {
			if stopped := (*AgentsStopped)(nil); errors.As(err, &stopped) {
				return stop(stopped.Status, stopped.Reason, nil)
			}
			failed = append(failed, spec)
			out.Failed = append(out.Failed, results.FailedStep{Target: spec.Target, Workload: spec.Workload, Concurrency: spec.Concurrency,
				PoolSetting: spec.PoolSetting, Clients: spec.Clients, Trial: spec.Trial, Error: err.Error(), Rate: spec.Rate})
			err = fmt.Errorf("step %d of %d (%s C=%d P=%s trial %d): %w", i+1, n, spec.Target, spec.Concurrency, spec.PoolSetting, spec.Trial, err)
			if !s.KeepGoing && !errors.Is(err, ErrStepSkipped) {
				return stop(results.StatusFailed, err.Error(), err)
			}
			if s.Hooks.Failed != nil {
				s.Hooks.Failed(i+1, n, spec, err)
			}
			continue
		}
		if err := f.writeStep(step); err != nil {
			return stop(results.StatusFailed, err.Error(), err)
		}
		recorded[step.Key()] = true
		if f := step.TargetFailed; f != nil {
			// Recorded with its mark, and measured again on --resume; the
			// run goes on (the target may be back), and ends partial.
			failed = append(failed, spec)
			out.Failed = append(out.Failed, results.FailedStep{Target: spec.Target, Workload: spec.Workload, Concurrency: spec.Concurrency,
				PoolSetting: spec.PoolSetting, Clients: spec.Clients, Trial: spec.Trial, Rate: spec.Rate,
				Error: "the target failed during the window: " + f.Reason, TargetFailed: true})
		} else {
			history = append(history, step)
			out.Measured++
		}
		if s.Hooks.Step != nil {
			s.Hooks.Step(i+1, n, step)
		}
		if f.w.Full() {
			err := fmt.Errorf("no space left for further results in %s (the disk is full or a file size limit was reached); the steps written are kept", f.w.Path())
			return stop(results.StatusFailed, err.Error(), err)
		}
		if s.MaxErrorRate < 1 {
			if rate := step.FailedShare(); rate > s.MaxErrorRate {
				err := fmt.Errorf("step %d of %d (%s C=%d P=%s): %.0f%% of operations failed, above --max-error-rate %g", i+1, n, spec.Target, spec.Concurrency, spec.PoolSetting, 100*rate, s.MaxErrorRate)
				return stop(results.StatusFailed, err.Error(), err)
			}
		}
	}
}

// runStep checks that the target still answers, then measures the step,
// and says where its wall time went.
func (s *Session) runStep(ctx context.Context, t *sessionTarget, spec plan.StepSpec) (results.StepResult, error) {
	start := time.Now()
	if err := s.coord.Begin(ctx, spec); err != nil {
		return results.StepResult{}, err
	}
	check, err := s.check(ctx, t, spec)
	if err != nil {
		return results.StepResult{}, err
	}
	r := t.runners[spec.Workload]
	params, err := t.setServerParams(ctx, r.Workload.ServerParams)
	if err != nil {
		return results.StepResult{}, err
	}
	step, err := r.RunStep(ctx, spec)
	step.Search, step.ExtraTrial, step.ServerParams = spec.Search, spec.ExtraTrial, params
	if step.Phases != nil {
		step.Phases.Check = check.Seconds()
		step.Phases.Teardown = max(0, time.Since(start).Seconds()-step.Phases.Total())
	}
	return step, err
}

// check says whether the target still answers, and how long asking took.
func (s *Session) check(ctx context.Context, t *sessionTarget, spec plan.StepSpec) (time.Duration, error) {
	start := time.Now()
	if t.Check != nil {
		if err := t.Check(); err != nil {
			return 0, err
		}
	}
	timeout := s.HealthTimeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	// Twice: a connection the pool held may have died with an earlier
	// fault; the driver drops it on the first error and dials anew.
	hctx, cancel := context.WithTimeout(ctx, timeout)
	err := t.setup.Database("admin").RunCommand(hctx, bson.D{{Key: "ping", Value: 1}}).Err()
	if err != nil && hctx.Err() == nil {
		err = t.setup.Database("admin").RunCommand(hctx, bson.D{{Key: "ping", Value: 1}}).Err()
	}
	cancel()
	if err != nil && ctx.Err() == nil {
		return 0, fmt.Errorf("target %s does not answer (ping, %s): %w", spec.Target, timeout, err)
	}
	return time.Since(start), nil
}

// measuredSteps is a resumed run's steps that count as measured (one that
// was interrupted, or during which the target failed, is measured again);
// nil for a new run.
func measuredSteps(prev *results.Results) []results.StepResult {
	if prev == nil {
		return nil
	}
	var out []results.StepResult
	for _, st := range prev.Steps {
		if st.Measured() {
			out = append(out, st)
		}
	}
	return out
}

// signalOf names the signal behind ctx's cancellation, if any.
func signalOf(ctx context.Context) string {
	var in Interrupt
	if errors.As(context.Cause(ctx), &in) {
		return in.Signal
	}
	return ""
}
