package sweep

import (
	"context"
	"time"

	"github.com/poolsweep/poolsweep/internal/beat"
	"github.com/poolsweep/poolsweep/plan"
)

// The runner's side of a start barrier (Runner.StartAt, agent mode): it
// asks when to begin once its pools are warm, and times its warm-up and
// window from that moment.

// waitStart asks StartAt when to begin and waits for that moment; it
// returns how long the step waited at the barrier, in seconds.
func (r *runner) waitStart(ctx context.Context, spec plan.StepSpec) (float64, error) {
	if r.StartAt == nil {
		return 0, nil
	}
	began := time.Now()
	at, err := r.StartAt(ctx, spec)
	if err != nil {
		return time.Since(began).Seconds(), err
	}
	if err := beat.Until(ctx, at); err != nil {
		return time.Since(began).Seconds(), err
	}
	return time.Since(began).Seconds(), nil
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

// awaitWindow waits, in agent mode, until the warm-up that began at
// warmupStart has run its full length.
func (r *runner) awaitWindow(ctx context.Context, warmupStart time.Time) {
	if r.StartAt != nil {
		_ = beat.Until(ctx, warmupStart.Add(r.Warmup))
	}
}
