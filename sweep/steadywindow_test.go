package sweep

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/telemetry"
)

// autoWindow is an auto window's settings for the tests.
func autoWindow(precisionPct float64, minD, maxD time.Duration, minCalls int64) *results.AutoPlan {
	return plan.NewAutoPlan(false, true, 0, 0, minD, maxD, precisionPct, minCalls)
}

func stepSpec(c int) plan.StepSpec {
	return plan.StepSpec{Target: "sim", Workload: "read", Concurrency: c, MaxPoolSize: c, PoolSetting: "match", Clients: 1, Trial: 1}
}

// TestAutoWindowEndsByPrecision: on a steady simulator step an auto
// window ends early, at the precision; on a noisy one it runs on, here to
// its maximum. Both are server-bound at a few hundred calls/s, so that a
// busy load host does not set the noise: the steady step has 8 slots of a
// 20-ms service (about 40 calls per 100-ms batch), the noisy one a single
// slot of a 100-ms service jittered ±90 % (0, 1 or 2 calls per batch).
// Ratios of the two windows, never speeds.
func TestAutoWindowEndsByPrecision(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two simulators for about 20 s")
	}
	steadySim := startSimChild(t, "slots=8,service=20ms")
	noisySim := startSimChild(t, "slots=1,service=100ms,jitter=0.9")
	run := func(uri string, c int) results.StepResult {
		t.Helper()
		// ±15 %: the noisy step's half-width is near 19 % at 8 s, so it
		// runs to its maximum, its projection well within the stall
		// rule's 2× (TestStallRuleEndsNoisyWindow is that rule's test).
		return runAutoWindow(t, uri, c, autoWindow(15, time.Second, 8*time.Second, 0)) // no call minimum: noise alone decides
	}
	// The load host's own samples over the steady step, as its record
	// would carry them from the CLI's observer.
	host := telemetry.NewClientSampler()
	host.Start()
	steady := run(steadySim.URI, 8)
	steady.Client = host.Stop()
	noisy := run(noisySim.URI, 1)
	t.Logf("steady: window %.2fs, end %s, %d batches of %d, half-width %v%%", steady.DurationS, steady.Steady.WindowEnd, steady.Steady.Batches, steady.Steady.BatchSize, deref(steady.Steady.HalfWidthPct))
	t.Logf("noisy: window %.2fs, end %s, %d batches of %d, half-width %v%%", noisy.DurationS, noisy.Steady.WindowEnd, noisy.Steady.Batches, noisy.Steady.BatchSize, deref(noisy.Steady.HalfWidthPct))
	// A starved load host delays the steady step's calls unevenly and makes
	// its batches noisy too: it may then miss, with the evidence, never
	// otherwise.
	if (steady.Steady.WindowEnd != "precision" || deref(steady.Steady.HalfWidthPct) > 15) &&
		!hostStarved(t, steady, "steady step: ended by "+steady.Steady.WindowEnd) {
		t.Errorf("steady step: ended by %s at %v%%, want by the 15%% precision", steady.Steady.WindowEnd, deref(steady.Steady.HalfWidthPct))
	}
	if noisy.DurationS < 3*steady.DurationS && !hostStarved(t, steady, "the steady step's window was long") {
		t.Errorf("noisy window %.2fs is not 3× the steady one's %.2fs", noisy.DurationS, steady.DurationS)
	}
	if noisy.Steady.WindowEnd == "precision" && deref(noisy.Steady.HalfWidthPct) > 15 {
		t.Errorf("noisy step ended by precision at %v%%", deref(noisy.Steady.HalfWidthPct))
	}
}

// TestFixedWindowUnchanged: with a fixed warm-up and window the step runs
// exactly as before auto windows existed (the warm-up and the window are
// the lengths asked for) and its record is the same apart from the new
// steady section, which says fixed.
func TestFixedWindowUnchanged(t *testing.T) {
	sim := startSimChild(t, "slots=8,service=2ms")
	r, _ := simRunner(t, sim.URI, 700*time.Millisecond)
	r.Warmup = 400 * time.Millisecond
	st, err := r.RunStep(context.Background(), stepSpec(4))
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(st.DurationS-0.7) > 0.05 || math.Abs(st.Phases.Warmup-0.4) > 0.05 {
		t.Errorf("window %.3fs, warm-up %.3fs, want 0.7 and 0.4", st.DurationS, st.Phases.Warmup)
	}
	s := st.Steady
	if s == nil || s.WarmupMode != results.WindowFixed || s.WarmupEnd != "fixed-warmup" || s.WindowMode != results.WindowFixed || s.WindowEnd != "fixed" || s.Settled != nil || s.TruncationS != nil {
		t.Errorf("steady: %+v", s)
	}
	// Seven 100-ms batches: too few for an interval, and none is claimed.
	if s.MeanPerS != nil || s.HalfWidthPct != nil || s.Batches != 0 {
		t.Errorf("an interval from 7 batches: %+v", s)
	}
	// The record's keys are those of a step record from before: every key
	// but steady is a key the results package wrote already.
	before := []string{"kind", "target", "workload", "pool_setting", "concurrency", "max_pool_size", "clients", "connections", "trial", "started_at",
		"duration_s", "calls", "ops", "calls_per_s", "ops_per_s", "errors", "latency_ms", "ops_by_type", "pool", "in_flight_at_close",
		"oldest_in_flight_ms", "ops_after_close", "phases_s", "histograms"}
	got := topKeys(t, st)
	for _, k := range got {
		if k != "steady" && !slices.Contains(before, k) {
			t.Errorf("new key %q in a fixed-window record", k)
		}
	}
	st.Steady = nil
	if slices.Contains(topKeys(t, st), "steady") {
		t.Error("steady written when absent")
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

// topKeys is the record's top-level JSON keys.
func topKeys(t *testing.T, st results.StepResult) []string {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestBinner: counts read at irregular moments fall into exact 100-ms
// batches by their share of time, so a late read weighs as the time it
// covers and the batches' mean is the calls over the time.
func TestBinner(t *testing.T) {
	t0 := time.Unix(0, 0)
	b := binner{start: t0}
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	b.add(10, at(100))   // on time: 100/s
	b.add(100, at(1100)) // late: 100 calls over ten batches
	b.add(5, at(1150))   // half a batch: not complete yet
	if got := b.rates(); len(got) != 11 || got[0] != 100 || math.Abs(got[5]-100) > 1e-9 {
		t.Fatalf("rates %v", got)
	}
	b.add(15, at(1250)) // 7.5 in the rest of batch 11 (with the 5: 12.5 in 0.1 s), 7.5 in the next
	got := b.rates()
	if len(got) != 12 || math.Abs(got[11]-125) > 1e-9 {
		t.Fatalf("rates %v", got)
	}
	var sum float64
	for _, x := range got {
		sum += x * 0.1
	}
	if math.Abs(sum-122.5) > 1e-9 { // 130 calls by 1.25 s, 7.5 of them in the partial batch
		t.Errorf("calls in complete batches %v, want 122.5", sum)
	}
	b.add(3, at(1250)) // no time passed: ignored
}
