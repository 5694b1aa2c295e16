package sweep

import (
	"context"
	"fmt"
	"time"

	"github.com/poolsweep/poolsweep/analysis/steady"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// Auto warm-ups and windows in agent mode: every agent keeps
// its batches as a single client does and hands them to the run's Fleet;
// the leader reads the fleet's series (every agent's batches summed on the
// shared clock), runs the same decisions as a single client
// (steadywindow.go), and publishes each phase's end as a number of base
// batches after the phase's agreed start, a little ahead of time
// (FleetLead), so that every agent's window starts and ends at the same
// moment. When no word comes, every agent stops at the same maximum.

// Fleet links one step's auto warm-up and window across the agents of a
// run: sweep/agents carries the batches and the leader's word through the
// coordination documents. Post, Series, Decide, Decided and Ending never
// block; the runner calls them from its batch loop.
type Fleet interface {
	// Leader says whether this agent decides.
	Leader() bool
	// Start is the step's agreed start of the warm-up, on this host's clock.
	Start() time.Time
	// Post hands over this agent's base-batch rates of phase (PhaseWarmup
	// or PhaseMeasure) so far; final says the phase has ended for it.
	Post(phase string, rates []float64, final bool)
	// Series is the fleet's base-batch rates of phase so far (leader):
	// per batch, the sum over the step's agents of their rates, as far as
	// every one of them has posted. An agent whose posts stand still as
	// long as a silent heartbeat is left out of the sums from then on.
	Series(phase string) []float64
	// Decide publishes the leader's word: phase ends at base batch at,
	// counted from the phase's agreed start.
	Decide(phase string, at int)
	// Decided is the leader's word on phase, once it is known; an error
	// (*AgentsStopped) when the leader stopped answering.
	Decided(phase string) (at int, ok bool, err error)
	// Ending says when this agent's window ends, on its own clock.
	Ending(end time.Time)
	// Complete waits until every agent left in the step has posted its
	// whole window (leader), and returns the fleet's series of both phases
	// and how many agents they sum.
	Complete(ctx context.Context) (warmup, window []float64, agents int, err error)
	// Publish hands the fleet's record of the step to the other agents
	// (leader); Await waits for it (followers; *AgentsStopped when the
	// leader stopped answering).
	Publish(ctx context.Context, s *results.StepSteady) error
	Await(ctx context.Context) (*results.StepSteady, error)
	// Close ends the link; the runner calls it as the step ends.
	Close()
}

// FleetCoordinator is a Coordinator whose agents end auto warm-ups and
// windows together: Fleet is the current step's link, asked once Ready
// has returned the agreed start.
type FleetCoordinator interface {
	Coordinator
	Fleet() Fleet
}

// FleetLead is how far ahead of the moment it decides the leader sets the
// end of a phase, in base batches: time for every agent to read the word
// before it falls due. A phase ends that much later than a single
// client's would.
const FleetLead = 10

// fleetWarmUp runs the step's warm-up in lock step with the fleet and
// returns, besides the outcome, the moment (this host's clock) at which
// every agent opens its window: the agreed start plus the fixed warm-up,
// the leader's word, or the longest warm-up allowed.
func (r *runner) fleetWarmUp(ctx context.Context, spec plan.StepSpec, f Fleet, rec *recorder, pool *poolRecorder) (warmupOutcome, time.Time, bool, error) {
	a := r.Auto
	if !a.Warmup {
		w, ok := r.warmUp(ctx, spec, f.Start(), rec, pool)
		f.Post(PhaseWarmup, nil, true)
		return w, f.Start().Add(r.Warmup), ok, nil
	}
	start := time.Now()
	rule := warmupRule(a)
	out := warmupOutcome{auto: true, end: steady.EndMaxWarmup}
	at, seen, lost := -1, 0, error(nil)
	var xs []float64
	// The loop ends a batch before the window opens: the observers take
	// their first samples in it (windowLead).
	ok := r.batched(ctx, spec, PhaseWarmup, seconds(a.MaxWarmupS)-plan.AutoBatch, rec, pool, func(b []float64, _ int64) bool {
		xs = b
		f.Post(PhaseWarmup, b, false)
		if at < 0 {
			at, lost = r.fleetWord(f, PhaseWarmup, len(b), rule.MaxValues, &seen, func(fx []float64) bool {
				return out.decide(rule, fx) && out.end == steady.EndSettled
			})
		}
		return lost != nil || (at >= 0 && len(b) >= at-1)
	})
	f.Post(PhaseWarmup, xs, true)
	out.elapsed = time.Since(start)
	if at < 0 {
		at = rule.MaxValues
	}
	return out, f.Start().Add(time.Duration(at) * plan.AutoBatch), ok, lost
}

// fleetWindow runs the measured window, opened at origin, in lock step
// with the fleet: it ends at the leader's word, or at the longest window
// allowed.
func (r *runner) fleetWindow(ctx context.Context, spec plan.StepSpec, f Fleet, origin time.Time, rec *recorder, pool *poolRecorder) (windowOutcome, bool, error) {
	a := r.Auto
	if !a.Window {
		f.Ending(origin.Add(r.Duration))
		w, ok := r.measureWindow(ctx, spec, rec, pool)
		f.Post(PhaseMeasure, w.rates, true)
		return w, ok, nil
	}
	rule := windowRule(a)
	out := windowOutcome{auto: true, end: steady.EndMax}
	at, seen, lost := -1, 0, error(nil)
	var xs []float64
	f.Ending(origin.Add(seconds(a.MaxDurationS)))
	ok := r.batched(ctx, spec, PhaseMeasure, seconds(a.MaxDurationS), rec, pool, func(b []float64, _ int64) bool {
		xs = b
		f.Post(PhaseMeasure, b, false)
		if at < 0 {
			at, lost = r.fleetWord(f, PhaseMeasure, len(b), rule.MaxValues, &seen, func(fx []float64) bool {
				// The rule's early ends: the precision reached, or out of
				// reach (the stall rule); at the maximum the timer ends it.
				return out.decide(rule, fx, fleetCalls(fx)) && (out.end == steady.EndPrecision || out.end == steady.EndOutOfReach)
			})
			if at >= 0 {
				f.Ending(origin.Add(time.Duration(at) * plan.AutoBatch))
			}
		}
		// The ticks fall on the batches' edges: the one nearest the
		// agreed end closes the window.
		return lost != nil || (at >= 0 && !time.Now().Before(origin.Add(time.Duration(at)*plan.AutoBatch-plan.AutoBatch/2)))
	})
	f.Post(PhaseMeasure, xs, true)
	if out.end == steady.EndOutOfReach {
		out.noteOutOfReach(rule, "fleet's throughput")
	}
	out.rates = xs
	return out, ok, lost
}

// fleetWord is the end of phase as far as it is known after n base
// batches of this agent's: the leader decides it from the fleet's series
// and publishes it FleetLead batches ahead, at most at the longest phase
// allowed (max); a follower reads it. -1 while unknown. ends says
// whether the rule ends the phase after a series; the leader asks it of
// every length the fleet's series has reached since it last asked
// (*seen), as a single client asks at every batch.
func (r *runner) fleetWord(f Fleet, phase string, n, max int, seen *int, ends func(fleet []float64) bool) (int, error) {
	if !f.Leader() {
		at, ok, err := f.Decided(phase)
		if err != nil || !ok {
			return -1, err
		}
		return at, nil
	}
	fx := f.Series(phase)
	for k := *seen + 1; k <= len(fx); k++ {
		*seen = k
		if ends(fx[:k]) {
			at := min(n+FleetLead, max)
			f.Decide(phase, at)
			return at, nil
		}
	}
	return -1, nil
}

// fleetCalls is how many calls base batches of rates xs hold.
func fleetCalls(xs []float64) int64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return int64(s * plan.AutoBatch.Seconds())
}

// fleetSteady is the step's steady record in agent mode, the same on
// every agent: the leader's, from the fleet's series of both phases (its
// interval over the whole window as it ran), handed to the followers.
// It returns the outcomes the record says, for the step's warnings.
func (r *runner) fleetSteady(ctx context.Context, f Fleet, warm warmupOutcome, win windowOutcome) (*results.StepSteady, warmupOutcome, windowOutcome, error) {
	if !f.Leader() {
		s, err := f.Await(ctx)
		if err != nil {
			return nil, warm, win, err
		}
		warm.end, win.end = steady.End(s.WarmupEnd), steady.End(s.WindowEnd)
		return s, warm, win, nil
	}
	fw, fwin, n, err := f.Complete(ctx)
	if err != nil {
		return nil, warm, win, err
	}
	if warm.auto {
		warm.rates = fw
	}
	win.rates = fwin
	win.iv = steady.BatchMeans(fwin, plan.AutoConfidence)
	s := steadyRecord(warm, win)
	s.FleetAgents = n
	if err := f.Publish(ctx, s); err != nil {
		return s, warm, win, fmt.Errorf("agents: hand the step's windows to the other agents: %w", err)
	}
	return s, warm, win, nil
}
