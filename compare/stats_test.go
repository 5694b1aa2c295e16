package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// opsSteps makes one step per throughput value, for metric-level tests.
func opsSteps(vals []float64) []*results.StepResult {
	out := make([]*results.StepResult, len(vals))
	for i, v := range vals {
		out[i] = &results.StepResult{OpsPerS: v}
	}
	return out
}

// sample draws n throughputs around mean with multiplicative (log-normal)
// noise of relative size sigma.
func sample(r *rand.Rand, n int, mean, sigma float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = mean * math.Exp(sigma*r.NormFloat64())
	}
	return out
}

// TestCoverage runs the whole per-metric path on synthetic trials: the
// issue's proof case (candidate service 1.2 ms vs 1 ms, i.e. 1/1.2 − 1 =
// −16.7% throughput) with 5% noise, and the same spec twice.
func TestCoverage(t *testing.T) {
	const seeds = 300
	truth := (1/1.2 - 1) * 100
	for _, n := range []int{3, 4, 5} {
		r := rand.New(rand.NewPCG(uint64(n), 42))
		var falsePos, detected, covered int
		for range seeds {
			same := buildMetric(metricDefs[OpsPerS], opsSteps(sample(r, n, 10000, 0.05)), opsSteps(sample(r, n, 10000, 0.05)), Options{Alpha: 0.05})
			if same.Significant {
				falsePos++
			}
			shift := buildMetric(metricDefs[OpsPerS], opsSteps(sample(r, n, 10000, 0.05)), opsSteps(sample(r, n, 10000/1.2, 0.05)), Options{Alpha: 0.05})
			if shift.Significant {
				detected++
			}
			if *shift.CILowPct <= truth && truth <= *shift.CIHighPct {
				covered++
			}
		}
		t.Logf("n=%d per side: false positives %d/%d, detected %d/%d, interval covers %.1f%% in %d/%d",
			n, falsePos, seeds, detected, seeds, truth, covered, seeds)
		// Identical distributions: the test's level is 5%; allow sampling
		// slack but not a broken test.
		if falsePos > seeds/10 {
			t.Errorf("n=%d: %d/%d false positives", n, falsePos, seeds)
		}
		// Power grows with trials: 3 per side (Welch, ~4 degrees of
		// freedom) detects a 17% drop in 5% noise most of the time, 5 per
		// side nearly always.
		minDetect := map[int]int{3: seeds * 3 / 4, 4: seeds * 85 / 100, 5: seeds * 95 / 100}[n]
		if detected < minDetect {
			t.Errorf("n=%d: a 17%% drop detected only %d/%d times", n, detected, seeds)
		}
		if covered < seeds*88/100 {
			t.Errorf("n=%d: interval covers the true change only %d/%d times", n, covered, seeds)
		}
	}
}

func TestBuildMetricStatuses(t *testing.T) {
	def := metricDefs[OpsPerS]
	for _, tc := range []struct {
		name   string
		x, y   []float64
		o      Options
		status status
		method string
	}{
		// Two trials per side: a delta is shown, never tested.
		{"2 trials", []float64{100, 101}, []float64{80, 81}, Options{Alpha: 0.05}, StatusUnconfirmed, ""},
		// 3 vs 3 separated by 20%: the rank test could not say, Welch does.
		{"3 trials welch", []float64{100, 101, 99}, []float64{80, 81, 79}, Options{Alpha: 0.05}, statusChanged, methodWelch},
		// 4 vs 4 separated: the rank test is used and can reject.
		{"4 trials rank", []float64{100, 101, 99, 100.5}, []float64{80, 81, 79, 80.5}, Options{Alpha: 0.05}, statusChanged, methodMannWhitney},
		// Overlapping samples: not a change.
		{"overlap", []float64{100, 103, 97, 101, 99}, []float64{101, 98, 102, 100, 97}, Options{Alpha: 0.05}, statusNoChange, methodMannWhitney},
		// A real 1% difference with tiny noise is significant but below a 2% floor.
		{"min effect", []float64{100, 100.1, 99.9, 100, 100.05}, []float64{99, 99.1, 98.9, 99, 99.05}, Options{Alpha: 0.05, MinEffectPct: 2}, statusNoChange, methodMannWhitney},
	} {
		m := buildMetric(def, opsSteps(tc.x), opsSteps(tc.y), tc.o)
		if m.Status != tc.status || m.Method != tc.method || m.Significant != (tc.status == statusChanged) {
			t.Errorf("%s: status %s method %q significant %v note %q", tc.name, m.Status, m.Method, m.Significant, m.Note)
		}
	}
	// Errors 0 on the baseline: compared on the plain difference, no %.
	base := []*results.StepResult{{}, {}, {}, {}}
	cand := []*results.StepResult{{Errors: results.ErrorCounts{Timeout: 5}}, {Errors: results.ErrorCounts{Timeout: 7}}, {Errors: results.ErrorCounts{Network: 6}}, {Errors: results.ErrorCounts{Server: 6}}}
	m := buildMetric(metricDefs[metricErrors], base, cand, Options{Alpha: 0.05})
	if m.DeltaPct != nil || m.CILowPct != nil || *m.Delta != 6 || m.Status != statusChanged || *m.CILow != 5 || *m.CIHigh != 7 {
		t.Errorf("errors from zero: %+v", m)
	}
}

// TestBelowResolution: a throughput change of a fraction of an op per
// window is not significant however consistent its ranks (five trials a
// side, every candidate a fraction of an op below every baseline); one of
// several ops per window still is.
func TestBelowResolution(t *testing.T) {
	trials := func(opsPerS float64, ops int64) []*results.StepResult {
		var out []*results.StepResult
		for i := range 5 {
			v := opsPerS + float64(i)*0.01
			out = append(out, &results.StepResult{OpsPerS: v, Ops: ops, DurationS: float64(ops) / v})
		}
		return out
	}
	o := Options{Alpha: 0.05}
	for _, c := range []struct {
		name      string
		base, can float64
		ops       int64
		want      bool
	}{
		{"0.1% with 160 ops a window: a fraction of an op", 400, 399.6, 160, false},
		{"15% with 160 ops a window", 400, 340, 160, true},
		{"0.1% with 10000 ops a window: ten ops", 400, 399.6, 10000, true},
	} {
		m := buildMetric(metricDefs[OpsPerS], trials(c.base, c.ops), trials(c.can, c.ops), o)
		if m.Significant != c.want {
			t.Errorf("%s: significant %v (note %q), want %v", c.name, m.Significant, m.Note, c.want)
		}
	}
}
