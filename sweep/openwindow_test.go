package sweep

import (
	"context"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// openAuto is an auto warm-up and window for the open-loop tests: at
// ±precisionPct, warm-up 1 to 10 s, window 1 to 10 s, no call minimum.
// A step that kept up on a quiet host ends both long before the maxima;
// one whose host was too busy to reach the precision (and says so) waits
// for them.
func openAuto(precisionPct float64) *results.AutoPlan {
	return plan.NewAutoPlan(true, true, time.Second, 10*time.Second, time.Second, 10*time.Second, precisionPct, 0)
}

// TestOpenLoopAutoWindows: in the open loop the auto warm-up and window
// read the achieved rate and the corrected latency. A simulator of one
// 5-ms slot (200 calls/s by construction) offered 100/s keeps up: the
// warm-up settles, the window ends by its precision with both intervals
// recorded. Offered 300/s it cannot: its queue (100 calls more each
// second) and corrected latency grow for as long as it runs, so the
// warm-up ends "overloaded" soon after MSER-5's 3 s, the window at its
// 1-s minimum, far from the 20 s the maxima allow, and the step still
// carries today's evidence of saturation (achieved well under offered)
// and says why it ended. The evidence is the steps' own records. The two
// steps run at the same time, each against a simulator of its own: 400
// calls a second in all take little from the load host, whose own
// evidence (behindEvidence) still decides whether the step that kept up
// is held to its precision; the overloaded step's queue (about 2 s to
// drain after its window) then drains beside the other step instead of
// after it.
func TestOpenLoopAutoWindows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two simulators for about 7 s")
	}
	type outcome struct {
		st   results.StepResult
		took time.Duration
		err  error
	}
	start := func(rate int) <-chan outcome {
		r := openRunner(startSimChild(t, "slots=1,service=5ms").URI, 0, time.Second)
		r.Auto = openAuto(10)
		out := make(chan outcome, 1)
		go func() {
			start := time.Now()
			st, err := r.RunStep(context.Background(), openSpec(rate, 4, plan.DefaultMaxInFlight))
			out <- outcome{st, time.Since(start), err}
		}()
		return out
	}
	check := func(rate int, o outcome) (results.StepResult, time.Duration) {
		t.Helper()
		st := o.st
		if o.err != nil {
			t.Fatalf("%d/s: %v", rate, o.err)
		}
		if err := results.ValidateStep(&st, nil); err != nil {
			t.Errorf("%d/s: the record does not validate: %v", rate, err)
		}
		s := st.Steady
		if s == nil {
			t.Fatalf("%d/s: no steady record", rate)
		}
		t.Logf("%d/s: %s; warm-up %s (%.2fs), window %s (%.2fs), achieved %.0f/s ± %v%%, corrected latency %v ms ± %v%%; %s",
			rate, o.took.Round(time.Millisecond), s.WarmupEnd, st.Phases.Warmup, s.WindowEnd, st.DurationS, st.Open.AchievedPerS, deref(s.HalfWidthPct),
			deref(s.LatencyMeanMs), deref(s.LatencyHalfWidthPct), s.Reason)
		return st, o.took
	}
	overC := start(300)
	under, _ := check(100, <-start(100))
	// Half the capacity is never overloaded, on any host: the client
	// issues 100 calls a second however busy its cores are.
	if s := under.Steady; s.WarmupEnd == results.WindowEndOverloaded || s.WindowEnd == results.WindowEndOverloaded || s.LatencyMeanMs == nil {
		t.Errorf("100/s of 200: warm-up %q, window %q, latency interval %v: called overloaded, or no latency interval", s.WarmupEnd, s.WindowEnd, s.LatencyMeanMs)
	}
	if s := under.Steady; behindEvidence(under) == "" {
		if s.WarmupEnd != "settled" || s.WindowEnd != "precision" || s.Reason != "" {
			t.Errorf("100/s of 200: warm-up %q, window %q (%s), want settled and precision", s.WarmupEnd, s.WindowEnd, s.Reason)
		}
		if deref(s.HalfWidthPct) > 10 || s.LatencyHalfWidthPct == nil || *s.LatencyHalfWidthPct > 10 {
			t.Errorf("100/s of 200: half-widths %v%% (rate) and %v%% (latency), want both within 10%%", deref(s.HalfWidthPct), deref(s.LatencyHalfWidthPct))
		}
	} else {
		t.Logf("100/s: the load host did not keep the schedule, its window's end not asserted: %s", behindEvidence(under))
	}

	over, took := check(300, <-overC)
	s := over.Steady
	if s.WarmupEnd != results.WindowEndOverloaded || s.WindowEnd != results.WindowEndOverloaded || s.Settled == nil || *s.Settled || s.Reason == "" {
		t.Errorf("300/s of 200: warm-up %q (settled %v), window %q, reason %q; want both overloaded, unsettled, with a reason", s.WarmupEnd, s.Settled, s.WindowEnd, s.Reason)
	}
	if !hasWarning(over, "overloaded: the target did not keep up") {
		t.Errorf("300/s of 200: no warning says why it ended: %q", over.Warnings)
	}
	// MSER-5 reads at least 3 s; the queue shows within a few more; the
	// window is its 1-s minimum. The maxima allow 10 s each.
	if over.Phases.Warmup > 8 || over.DurationS > 2 || took > 20*time.Second {
		t.Errorf("300/s of 200: warm-up %.2fs, window %.2fs, step %s: chased toward the maxima", over.Phases.Warmup, over.DurationS, took)
	}
	// Today's saturation evidence is intact: the achieved rate is the
	// capacity, not the offered rate.
	if o := over.Open; o.AchievedShare() > 0.75 {
		t.Errorf("300/s of 200: achieved %.0f of %.0f/s offered", o.AchievedPerS, o.OfferedPerS)
	}
}
