//go:build soak

package sweep

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testhost"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// The soak tier's auto warm-up proof (about 20 s): the fast tier covers
// MSER-5's cut on injected transients in analysis/steady (TestMSER5 and
// its tables) and the auto window's plumbing on the simulator
// (TestAutoWindowRules: its subtests EndsByPrecision and
// StallRuleEndsNoisyWindow).

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
