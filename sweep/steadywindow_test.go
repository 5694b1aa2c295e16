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
)

// autoWindow is an auto window's settings for the tests.
func autoWindow(precisionPct float64, minD, maxD time.Duration, minCalls int64) *results.AutoPlan {
	return plan.NewAutoPlan(false, true, 0, 0, minD, maxD, precisionPct, minCalls)
}

func stepSpec(c int) plan.StepSpec {
	return plan.StepSpec{Target: "sim", Workload: "read", Concurrency: c, MaxPoolSize: c, PoolSetting: "match", Clients: 1, Trial: 1}
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
	// Seven 100-ms batches: too few for an interval; none is claimed, and
	// the record says why.
	if s.MeanPerS != nil || s.HalfWidthPct != nil || s.Ops == nil || s.Ops.HalfWidthPct != nil || s.NoInterval == "" {
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
