package sweep

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/plan"
)

// An agent its host ran late shortens its fixed warm-up by as much, so
// that its window opens at the agreed start plus the warm-up with the
// others', and says so; one late by more than the warm-up says how late
// its window opened. Alone, the warm-up is its full length.
func TestLateAgentKeepsTheSchedule(t *testing.T) {
	barrier := func(context.Context, plan.StepSpec) (time.Time, error) { return time.Now(), nil }
	r := &runner{Warmup: time.Second, StartAt: barrier}
	lead := r.windowLead()

	alone := &runner{Warmup: time.Second}
	if got := alone.fixedWarmup(time.Time{}); got != time.Second {
		t.Errorf("alone: warm-up %s, want its full 1s", got)
	}
	if w := alone.lateStart(time.Time{}, time.Now()); w != "" {
		t.Errorf("alone: warned %q", w)
	}

	agreed := time.Now().Add(-300 * time.Millisecond)
	got := r.fixedWarmup(agreed)
	if want := time.Second - lead - 300*time.Millisecond; got > want || got < want-50*time.Millisecond {
		t.Errorf("300 ms late: warm-up %s, want about %s (what is left after the agreed start)", got, want)
	}
	if w := r.lateStart(agreed, agreed.Add(300*time.Millisecond)); !strings.Contains(w, "300ms after the agents' agreed start") || !strings.Contains(w, "opened with the others'") {
		t.Errorf("300 ms late: warning %q", w)
	}
	if w := r.lateStart(agreed, agreed.Add(20*time.Millisecond)); w != "" {
		t.Errorf("20 ms late: warned %q", w)
	}

	agreed = time.Now().Add(-1500 * time.Millisecond)
	if got := r.fixedWarmup(agreed); got != 0 {
		t.Errorf("late by more than the warm-up: warm-up %s, want none", got)
	}
	if w := r.lateStart(agreed, agreed.Add(1500*time.Millisecond)); !strings.Contains(w, "its window opened 600ms after the others'") {
		t.Errorf("1.5 s late: warning %q", w)
	}
}
