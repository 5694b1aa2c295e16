package sweep

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/telemetry"
)

// TestStallRuleEndsNoisyWindow: under one rule (±3 %, 1 to 15 s, no call
// minimum), a noisy simulator step (a single slot of a 100-ms service
// jittered ±90 %: 0, 1 or 2 calls per 100-ms batch, whose half-width at
// 15 s would be near 10 %) ends as precision-out-of-reach well before the
// maximum, recording the half-width it had and the projection that ended
// it; a steady one (8 slots of 20 ms, about 40 calls a batch) still ends
// by the precision unless the host's own samples show the load host
// contended (its noise is then the host's, and logged). The evidence is
// the steps' own records, never a speed.
func TestStallRuleEndsNoisyWindow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two simulators for about 10 s")
	}
	const maxD = 15 * time.Second
	steadySim := startSimChild(t, "slots=8,service=20ms")
	noisySim := startSimChild(t, "slots=1,service=100ms,jitter=0.9")
	run := func(uri string, c int) results.StepResult {
		t.Helper()
		st := runAutoWindow(t, uri, c, autoWindow(3, time.Second, maxD, 0))
		t.Logf("window %.2fs, end %s, %d batches of %d, half-width %v%%, projected %v%%: %s", st.DurationS, st.Steady.WindowEnd,
			st.Steady.Batches, st.Steady.BatchSize, deref(st.Steady.HalfWidthPct), deref(st.Steady.ProjectedHalfWidthPct), st.Steady.Reason)
		return st
	}
	noisy := run(noisySim.URI, 1)
	// The load host's own samples over the steady step, as its record
	// would carry them from the CLI's observer (as in
	// TestAutoWindowEndsByPrecision).
	host := telemetry.NewClientSampler()
	host.Start()
	steady := run(steadySim.URI, 8)
	steady.Client = host.Stop()
	if noisy.Steady.WindowEnd != results.WindowEndOutOfReach {
		t.Errorf("noisy step ended by %q, want %q", noisy.Steady.WindowEnd, results.WindowEndOutOfReach)
	} else {
		if p := deref(noisy.Steady.ProjectedHalfWidthPct); p <= 2*3 {
			t.Errorf("noisy step's projection %v%% is not over twice the 3%% precision", p)
		}
		if hw := deref(noisy.Steady.HalfWidthPct); hw <= 3 {
			t.Errorf("noisy step out of reach with a half-width of %v%%, within the precision", hw)
		}
		if !hasWarning(noisy, "precision out of reach") {
			t.Errorf("noisy step's warnings do not say why it ended: %q", noisy.Warnings)
		}
	}
	if noisy.DurationS > maxD.Seconds()/3 {
		t.Errorf("noisy window ran %.2fs of its %s maximum", noisy.DurationS, maxD)
	}
	// The steady step's noise is the load host's alone: where the host's
	// own samples show it starved, its end is logged, not asserted; the
	// noisy step's noise is the server's and is asserted on any host.
	if (steady.Steady.WindowEnd != "precision" || deref(steady.Steady.HalfWidthPct) > 3) &&
		!hostStarved(t, steady, fmt.Sprintf("steady step: ended by %q at %v%%", steady.Steady.WindowEnd, deref(steady.Steady.HalfWidthPct))) {
		t.Errorf("steady step ended by %q at %v%%, want by the 3%% precision", steady.Steady.WindowEnd, deref(steady.Steady.HalfWidthPct))
	}
}

func hasWarning(st results.StepResult, part string) bool {
	return slices.ContainsFunc(st.Warnings, func(w string) bool { return strings.Contains(w, part) })
}

// runAutoWindow runs one closed-loop step of concurrency c against the
// simulator at uri with the auto settings a, and checks that it recorded
// a valid auto steady record.
func runAutoWindow(t *testing.T, uri string, c int, a *results.AutoPlan) results.StepResult {
	t.Helper()
	r, _ := simRunner(t, uri, time.Second)
	r.Auto = a
	st, err := r.RunStep(context.Background(), stepSpec(c))
	if err != nil {
		t.Fatal(err)
	}
	if st.Steady == nil || st.Steady.WindowMode != results.WindowAuto {
		t.Fatalf("no auto steady record: %+v", st.Steady)
	}
	if err := results.ValidateStep(&st, nil); err != nil {
		t.Errorf("the record does not validate: %v", err)
	}
	return st
}
