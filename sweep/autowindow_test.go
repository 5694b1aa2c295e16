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

// TestAutoWindowRules: the closed loop's auto window on the simulator,
// under two rules, each with a steady and a noisy step. The steady steps
// (8 slots of a 20-ms service: about 40 calls per 100-ms batch) are
// server-bound at a few hundred calls/s, so that a busy load host does
// not set their noise; they run one after the other, each with the load
// host's own samples. The noisy steps (a single slot of a 100-ms service
// jittered ±90 %: 0, 1 or 2 calls per batch, about 10 calls/s) run at the
// same time as the steady ones, each on a simulator of its own: their
// noise is the server's, and ten calls a second take nothing from the
// host the steady steps measure. Ratios of windows and the steps' own
// records, never speeds.
func TestAutoWindowRules(t *testing.T) {
	if testing.Short() {
		t.Skip("runs three simulators for about 9 s")
	}
	const steadySpec, noisySpec = "slots=8,service=20ms", "slots=1,service=100ms,jitter=0.9"
	// ±15 %, 1 to 8 s: the noisy step's half-width is near 12-19 % from
	// 4 to 8 s, so it ends late by precision or runs to its maximum, its
	// projection well within the stall rule's 2× (StallRuleEndsNoisyWindow
	// is that rule's test).
	precisionRule := autoWindow(15, time.Second, 8*time.Second, 0) // no call minimum: noise alone decides
	// ±3 %, 1 to 15 s: the noisy step's half-width at 15 s would be near
	// 10 %.
	const stallMax = 15 * time.Second
	stallRule := autoWindow(3, time.Second, stallMax, 0)

	// The noisy steps start first (the 8-s one sets the test's length).
	// Their collection is not loaded: a second of 100-ms calls saved, and
	// the simulator books a read's service time whatever it finds.
	type outcome struct {
		st  results.StepResult
		err error
	}
	background := func(a *results.AutoPlan) <-chan outcome {
		r := newSimRunner(startSimChild(t, noisySpec).URI, time.Second)
		r.Auto = a
		out := make(chan outcome, 1)
		go func() {
			st, err := r.RunStep(context.Background(), stepSpec(1))
			out <- outcome{st, err}
		}()
		return out
	}
	noisy := [2]<-chan outcome{background(precisionRule), background(stallRule)}
	steadyR, _ := simRunner(t, startSimChild(t, steadySpec).URI, time.Second)
	// The load host's own samples over each steady step, as its record
	// would carry them from the CLI's observer.
	steady := func(a *results.AutoPlan) results.StepResult {
		t.Helper()
		r := *steadyR
		r.Auto = a
		host := telemetry.NewClientSampler()
		host.Start()
		st, err := r.RunStep(context.Background(), stepSpec(8))
		st.Client = host.Stop()
		return checkAuto(t, "steady", st, err)
	}
	steadyPrecision, steadyStall := steady(precisionRule), steady(stallRule)
	o := <-noisy[0]
	noisyPrecision := checkAuto(t, "noisy", o.st, o.err)
	o = <-noisy[1]
	noisyStall := checkAuto(t, "noisy", o.st, o.err)

	// EndsByPrecision: on the steady step the window ends early, at the
	// precision; on the noisy one it runs on, here to its maximum.
	t.Run("EndsByPrecision", func(t *testing.T) {
		steady, noisy := steadyPrecision, noisyPrecision
		logAuto(t, "steady", steady)
		logAuto(t, "noisy", noisy)
		// A starved load host delays the steady step's calls unevenly and
		// makes its batches noisy too: it may then miss, with the
		// evidence, never otherwise.
		if (steady.Steady.WindowEnd != "precision" || deref(steady.Steady.HalfWidthPct) > 15) &&
			!hostStarved(t, steady, "steady step: ended by "+steady.Steady.WindowEnd) {
			t.Errorf("steady step: ended by %s at %v%%, want by the 15%% precision", steady.Steady.WindowEnd, deref(steady.Steady.HalfWidthPct))
		}
		// Twice as long at least: the half-width of a window's first ten
		// batches is itself an estimate, and a noisy step whose first
		// batches happen to agree ends as early as 3 s, against a steady
		// step's 1 s (4 to 8 s is usual).
		if noisy.DurationS < 2*steady.DurationS && !hostStarved(t, steady, "the steady step's window was long") {
			t.Errorf("noisy window %.2fs is not 2× the steady one's %.2fs", noisy.DurationS, steady.DurationS)
		}
		if noisy.Steady.WindowEnd == "precision" && deref(noisy.Steady.HalfWidthPct) > 15 {
			t.Errorf("noisy step ended by precision at %v%%", deref(noisy.Steady.HalfWidthPct))
		}
	})

	// StallRuleEndsNoisyWindow: under the ±3 % rule the noisy step ends
	// as precision-out-of-reach well before the maximum, recording the
	// half-width it had and the projection that ended it; the steady one
	// still ends by the precision unless the host's own samples show the
	// load host contended (its noise is then the host's, and logged).
	t.Run("StallRuleEndsNoisyWindow", func(t *testing.T) {
		steady, noisy := steadyStall, noisyStall
		logAuto(t, "noisy", noisy)
		logAuto(t, "steady", steady)
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
		if noisy.DurationS > stallMax.Seconds()/3 {
			t.Errorf("noisy window ran %.2fs of its %s maximum", noisy.DurationS, stallMax)
		}
		// The steady step's noise is the load host's alone: where the
		// host's own samples show it starved, its end is logged, not
		// asserted; the noisy step's noise is the server's and is asserted
		// on any host.
		if (steady.Steady.WindowEnd != "precision" || deref(steady.Steady.HalfWidthPct) > 3) &&
			!hostStarved(t, steady, fmt.Sprintf("steady step: ended by %q at %v%%", steady.Steady.WindowEnd, deref(steady.Steady.HalfWidthPct))) {
			t.Errorf("steady step ended by %q at %v%%, want by the 3%% precision", steady.Steady.WindowEnd, deref(steady.Steady.HalfWidthPct))
		}
	})
}

func hasWarning(st results.StepResult, part string) bool {
	return slices.ContainsFunc(st.Warnings, func(w string) bool { return strings.Contains(w, part) })
}

// checkAuto fails the test on err, or when st recorded no valid auto
// steady record; it returns st.
func checkAuto(t *testing.T, what string, st results.StepResult, err error) results.StepResult {
	t.Helper()
	if err != nil {
		t.Fatalf("%s step: %v", what, err)
	}
	if st.Steady == nil || st.Steady.WindowMode != results.WindowAuto {
		t.Fatalf("%s step: no auto steady record: %+v", what, st.Steady)
	}
	if err := results.ValidateStep(&st, nil); err != nil {
		t.Errorf("%s step: the record does not validate: %v", what, err)
	}
	return st
}

func logAuto(t *testing.T, what string, st results.StepResult) {
	t.Helper()
	s := st.Steady
	t.Logf("%s: window %.2fs, end %s, %d batches of %d, half-width %v%%, projected %v%%: %s", what, st.DurationS, s.WindowEnd,
		s.Batches, s.BatchSize, deref(s.HalfWidthPct), deref(s.ProjectedHalfWidthPct), s.Reason)
}
