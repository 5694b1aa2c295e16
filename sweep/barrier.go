package sweep

import (
	"context"
	"fmt"
	"time"

	"github.com/poolsweep/poolsweep/internal/beat"
	"github.com/poolsweep/poolsweep/plan"
)

// The runner's side of a start barrier (Runner.StartAt, agent mode): it
// asks when to begin once its pools are warm, and times its warm-up and
// window from that moment.

// waitStart asks StartAt when to begin and waits for that moment; it
// returns how long the step waited at the barrier, in seconds, and the
// agreed moment (zero without a barrier).
func (r *runner) waitStart(ctx context.Context, spec plan.StepSpec) (float64, time.Time, error) {
	if r.StartAt == nil {
		return 0, time.Time{}, nil
	}
	began := time.Now()
	at, err := r.StartAt(ctx, spec)
	if err != nil {
		return time.Since(began).Seconds(), time.Time{}, err
	}
	if err := beat.Until(ctx, at); err != nil {
		return time.Since(began).Seconds(), at, err
	}
	return time.Since(began).Seconds(), at, nil
}

// fixedWarmup is how long a fixed warm-up that begins now runs before
// the observers' lead: its full length alone; in agent mode, what is left
// of it after the agreed start (agreed), so that an agent its host ran
// late shortens its warm-up and still opens its window with the others.
func (r *runner) fixedWarmup(agreed time.Time) time.Duration {
	if agreed.IsZero() {
		return r.Warmup - r.windowLead()
	}
	return max(0, time.Until(agreed.Add(r.Warmup-r.windowLead())))
}

// lateStart is the warning of an agent that began its warm-up late
// after the agreed start agreed; "" when it began within 50 ms.
func (r *runner) lateStart(agreed, began time.Time) string {
	late := began.Sub(agreed)
	if agreed.IsZero() || late < 50*time.Millisecond {
		return ""
	}
	if late < r.Warmup {
		return fmt.Sprintf("this agent began its warm-up %s after the agents' agreed start (its host ran it late); its warm-up was shortened by as much, so its window opened with the others'", late.Round(time.Millisecond))
	}
	return fmt.Sprintf("this agent began its warm-up %s after the agents' agreed start (its host ran it late), more than the %s warm-up: its window opened %s after the others'", late.Round(time.Millisecond), r.Warmup, (late - r.Warmup + r.windowLead()).Round(time.Millisecond))
}

// windowLead is how much of the warm-up an agent gives its observers'
// first samples (a serverStatus round trip, slow on a busy server), so
// that its window opens at the agreed start + warm-up and not later by
// however long they took: agents' windows then line up to the timers'
// precision. Without a barrier it is 0 and the runner is as before.
func (r *runner) windowLead() time.Duration {
	if r.StartAt == nil {
		return 0
	}
	return min(100*time.Millisecond, r.Warmup/2)
}

// awaitWindow waits, in agent mode, until the warm-up has run its full
// length from the agreed start, so that every agent opens its window at
// the same moment.
func (r *runner) awaitWindow(ctx context.Context, agreed time.Time) {
	if r.StartAt != nil && !agreed.IsZero() {
		_ = beat.Until(ctx, agreed.Add(r.Warmup))
	}
}
