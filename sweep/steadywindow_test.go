package sweep

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testhost"
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
		return runAutoWindow(t, uri, c, autoWindow(10, time.Second, 15*time.Second, 0)) // no call minimum: noise alone decides
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
	if (steady.Steady.WindowEnd != "precision" || deref(steady.Steady.HalfWidthPct) > 10) &&
		!hostStarved(t, steady, "steady step: ended by "+steady.Steady.WindowEnd) {
		t.Errorf("steady step: ended by %s at %v%%, want by the 10%% precision", steady.Steady.WindowEnd, deref(steady.Steady.HalfWidthPct))
	}
	if noisy.DurationS < 3*steady.DurationS && !hostStarved(t, steady, "the steady step's window was long") {
		t.Errorf("noisy window %.2fs is not 3× the steady one's %.2fs", noisy.DurationS, steady.DurationS)
	}
	if noisy.Steady.WindowEnd == "precision" && deref(noisy.Steady.HalfWidthPct) > 10 {
		t.Errorf("noisy step ended by precision at %v%%", deref(noisy.Steady.HalfWidthPct))
	}
}

// TestAutoWarmupCutsTransient: a competing load on the simulator's slots
// that fades out over its first 6 s (sixteen hog workers, one leaving
// every 0.375 s) slows the step to about a third at first, a transient
// that ends gradually. The auto warm-up ends only late in the fade, and
// its window measures near full speed; a short fixed warm-up under the
// same transient measures the slow part. Throughputs are compared within
// this one run, against the same step with no transient.
func TestAutoWarmupCutsTransient(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator for about 25 s")
	}
	// 20-ms service: a few hundred calls/s, so that the slots, not this
	// host's CPU, are what the hog takes from the step.
	sim := startSimChild(t, "slots=8,service=20ms")
	r, w := simRunner(t, sim.URI, time.Second, testhost.Observer(t, sim.URI, sim.PID()))
	spec := stepSpec(8)
	ref, err := r.RunStep(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	const hogs, every = 16, 375 * time.Millisecond
	hogged := func(auto bool) (results.StepResult, time.Time) {
		t.Helper()
		r.Auto = nil
		r.Warmup = 300 * time.Millisecond
		if auto {
			r.Auto = plan.NewAutoPlan(true, false, 0, 20*time.Second, 0, 0, 0, 0)
		}
		lastLeft := hog(t, sim.URI, w.Database, w.Collection, hogs, every)
		st, err := r.RunStep(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		return st, lastLeft
	}
	fixed, _ := hogged(false)
	auto, lastLeft := hogged(true)
	warmupStart := auto.StartedAt.Add(-time.Duration(auto.Phases.Warmup * float64(time.Second)))
	fade := lastLeft.Sub(warmupStart)
	t.Logf("reference %.0f calls/s; fixed 0.3-s warm-up %.0f; auto warm-up %.2fs (truncation %vs, %s) %.0f; last hog worker left %.2fs into the warm-up",
		ref.CallsPerS, fixed.CallsPerS, auto.Phases.Warmup, deref(auto.Steady.TruncationS), auto.Steady.WarmupEnd, auto.CallsPerS, fade.Seconds())
	if auto.Steady.Settled == nil || !*auto.Steady.Settled {
		t.Fatalf("the auto warm-up did not settle: %+v", auto.Steady)
	}
	// Every claim below compares steps of this run; a starved load host
	// slows any of them by its own amount, so a claim may miss only when
	// a step it compares says its host was starved.
	starved := func(what string, steps ...results.StepResult) bool {
		for _, st := range steps {
			if hostStarved(t, st, what) {
				return true
			}
		}
		return false
	}
	// The transient was real: the short fixed warm-up measured it.
	if fixed.CallsPerS > 0.7*ref.CallsPerS {
		if starved("no transient measured", ref, fixed) {
			return
		}
		t.Fatalf("fixed warm-up under the hog: %.0f calls/s, not below 0.7 of the reference %.0f: no transient to cut", fixed.CallsPerS, ref.CallsPerS)
	}
	// The auto warm-up cut it: MSER-5 put the truncation point well into
	// the fade (it saw the transient), the warm-up lasted through most of
	// the fade, and the window ran near the reference's speed.
	if tr := deref(auto.Steady.TruncationS); !(tr >= 1.5) && !starved("MSER-5 truncated early", auto) {
		t.Errorf("truncation point %vs: MSER-5 did not see the transient", tr)
	}
	if time.Duration(auto.Phases.Warmup*float64(time.Second)) < fade*3/4 && !starved("the auto warm-up ended early", auto) {
		t.Errorf("auto warm-up ended %.2fs in, before 3/4 of the %.2fs fade", auto.Phases.Warmup, fade.Seconds())
	}
	if auto.CallsPerS < 0.85*ref.CallsPerS && !starved("the auto window was slow", auto) {
		t.Errorf("auto warm-up: window at %.0f calls/s, below 0.85 of the reference %.0f", auto.CallsPerS, ref.CallsPerS)
	}
}

// hog runs n workers reading from the collection on their own client, one
// leaving every every; it returns when the last will leave.
func hog(t *testing.T, uri, db, coll string, n int, every time.Duration) time.Time {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetMaxPoolSize(uint64(n)))
	if err != nil {
		t.Fatal(err)
	}
	col := c.Database(db).Collection(coll)
	start := time.Now()
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			until := start.Add(time.Duration(i+1) * every)
			for time.Now().Before(until) {
				ctx, cancel := context.WithTimeout(context.Background(), time.Second)
				_ = col.FindOne(ctx, bson.D{{Key: "_id", Value: "user0"}}).Err()
				cancel()
			}
		})
	}
	t.Cleanup(func() { wg.Wait(); _ = c.Disconnect(context.Background()) })
	return start.Add(time.Duration(n) * every)
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
