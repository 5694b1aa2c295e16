package compare

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestUDistribution(t *testing.T) {
	for _, n := range [][2]int{{1, 1}, {3, 3}, {4, 6}, {5, 5}, {8, 3}} {
		d := uDistribution(n[0], n[1])
		sum := 0.0
		for i, p := range d {
			sum += p
			// The null distribution of U is symmetric about n1·n2/2.
			if !near(p, d[len(d)-1-i], 1e-12) {
				t.Errorf("%v: P(U=%d)=%g but P(U=%d)=%g", n, i, p, len(d)-1-i, d[len(d)-1-i])
			}
		}
		if !near(sum, 1, 1e-12) || len(d) != n[0]*n[1]+1 {
			t.Errorf("%v: %d values summing to %g", n, len(d), sum)
		}
	}
	// 3 vs 3: 20 arrangements, one with U=0 and one with U=1.
	d := uDistribution(3, 3)
	if !near(d[0], 1.0/20, 1e-12) || !near(d[1], 1.0/20, 1e-12) || !near(d[2], 2.0/20, 1e-12) {
		t.Errorf("3v3 head = %v", d[:3])
	}
}

func TestMannWhitneyP(t *testing.T) {
	for _, tc := range []struct {
		name string
		x, y []float64
		want float64
	}{
		// Fully separated 3 vs 3: the smallest p a 3v3 rank test can give, 2/20.
		{"3v3 separated", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		// Fully separated 4 vs 4: 2/C(8,4) = 2/70, the first size below 0.05.
		{"4v4 separated", []float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70},
		// Fully separated 5 vs 5: 2/252.
		{"5v5 separated", []float64{10, 11, 12, 13, 14}, []float64{1, 2, 3, 4, 5}, 2.0 / 252},
		// Interleaved 5 vs 5: U=10, P(U<=10)=87/252 (R's wilcox.test gives 0.6905).
		{"5v5 interleaved", []float64{1, 3, 5, 7, 9}, []float64{2, 4, 6, 8, 10}, 174.0 / 252},
		// With a tie, exact enumeration of midranks {1,2.5,2.5,4}: 4 of 6 splits as extreme (by hand).
		{"tie enumeration", []float64{1, 2}, []float64{2, 3}, 4.0 / 6},
		// All values equal: no evidence at all.
		{"all tied", []float64{0, 0, 0, 0}, []float64{0, 0, 0, 0}, 1},
		// Constant but different sides (errors 0 vs 5): ties within sides, still fully separated: 2/70.
		{"constant sides", []float64{0, 0, 0, 0}, []float64{5, 5, 5, 5}, 2.0 / 70},
	} {
		if got := mannWhitneyP(tc.x, tc.y); !near(got, tc.want, 1e-9) {
			t.Errorf("%s: p = %.6f, want %.6f", tc.name, got, tc.want)
		}
	}
}

// The three p-value paths (U distribution, enumeration with ties, normal
// approximation) must agree where they overlap.
func TestMannWhitneyPathsAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for range 30 {
		x, y := make([]float64, 6), make([]float64, 7)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		for i := range y {
			y[i] = r.NormFloat64() + 0.8
		}
		ranks, _ := midranks(x, y)
		r1 := 0.0
		for _, v := range ranks[:len(x)] {
			r1 += v
		}
		dev := math.Abs(r1 - float64(len(x)*(len(x)+1))/2 - float64(len(x)*len(y))/2)
		exact := mannWhitneyP(x, y)
		if enum := enumerateP(ranks, len(x), dev); !near(exact, enum, 1e-9) {
			t.Fatalf("exact %g != enumeration %g", exact, enum)
		}
	}
	// Large samples: the normal approximation (used beyond the exact
	// limits) is within 0.01 of the exact distribution.
	for range 20 {
		x, y := make([]float64, 40), make([]float64, 40)
		for i := range x {
			x[i] = r.NormFloat64()
			y[i] = r.NormFloat64() + 0.3
		}
		exact := mannWhitneyP(x, y)
		ranks, _ := midranks(x, y)
		r1 := 0.0
		for _, v := range ranks[:len(x)] {
			r1 += v
		}
		dev := math.Abs(r1 - float64(len(x)*(len(x)+1))/2 - float64(len(x)*len(y))/2)
		if approx := normalP(ranks, len(x), len(y), dev); !near(exact, approx, 0.005) {
			t.Errorf("exact %g vs normal approximation %g", exact, approx)
		}
	}
}

func TestHodgesLehmannCI(t *testing.T) {
	x := []float64{0, 0, 0, 0, 0}
	y := []float64{1, 2, 3, 4, 5}
	// 5 vs 5 at alpha 0.05: P(U<=2)=4/252 so k=3, confidence 1-8/252; the
	// 25 differences are 1..5 five times each, the 3rd smallest 1 and the
	// 3rd largest 5.
	lo, hi, conf, ok := hodgesLehmannCI(x, y, 0.05)
	if !ok || lo != 1 || hi != 5 || !near(conf, 1-8.0/252, 1e-12) {
		t.Errorf("got [%g, %g] conf %g ok %v", lo, hi, conf, ok)
	}
	// 3 vs 3 cannot reach 95%.
	if _, _, _, ok := hodgesLehmannCI(x[:3], y[:3], 0.05); ok {
		t.Error("3v3 gave a 95% interval")
	}
}

func TestWelch(t *testing.T) {
	// R: t.test(c(4,5,6), c(1,2,3)): t = 3.6742, df = 4, p = 0.02131,
	// 95% CI 0.7330 .. 5.2670.
	r := welch([]float64{1, 2, 3}, []float64{4, 5, 6}, 0.05)
	if !near(r.p, 0.02131, 5e-5) || !near(r.lo, 0.7330, 5e-4) || !near(r.hi, 5.2670, 5e-4) {
		t.Errorf("welch = p %g [%g, %g]", r.p, r.lo, r.hi)
	}
	// Constant, equal sides: no difference; constant, different: certain.
	if r := welch([]float64{2, 2, 2}, []float64{2, 2, 2}, 0.05); r.p != 1 {
		t.Errorf("equal constants: p = %g", r.p)
	}
	if r := welch([]float64{2, 2, 2}, []float64{3, 3, 3}, 0.05); r.p != 0 || r.lo != 1 || r.hi != 1 {
		t.Errorf("different constants: p = %g [%g, %g]", r.p, r.lo, r.hi)
	}
}

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
		status Status
		method string
	}{
		// Two trials per side: a delta is shown, never tested.
		{"2 trials", []float64{100, 101}, []float64{80, 81}, Options{Alpha: 0.05}, StatusUnconfirmed, ""},
		// 3 vs 3 separated by 20%: the rank test could not say, Welch does.
		{"3 trials welch", []float64{100, 101, 99}, []float64{80, 81, 79}, Options{Alpha: 0.05}, StatusChanged, MethodWelch},
		// 4 vs 4 separated: the rank test is used and can reject.
		{"4 trials rank", []float64{100, 101, 99, 100.5}, []float64{80, 81, 79, 80.5}, Options{Alpha: 0.05}, StatusChanged, MethodMannWhitney},
		// Overlapping samples: not a change.
		{"overlap", []float64{100, 103, 97, 101, 99}, []float64{101, 98, 102, 100, 97}, Options{Alpha: 0.05}, StatusNoChange, MethodMannWhitney},
		// A real 1% difference with tiny noise is significant but below a 2% floor.
		{"min effect", []float64{100, 100.1, 99.9, 100, 100.05}, []float64{99, 99.1, 98.9, 99, 99.05}, Options{Alpha: 0.05, MinEffectPct: 2}, StatusNoChange, MethodMannWhitney},
	} {
		m := buildMetric(def, opsSteps(tc.x), opsSteps(tc.y), tc.o)
		if m.Status != tc.status || m.Method != tc.method || m.Significant != (tc.status == StatusChanged) {
			t.Errorf("%s: status %s method %q significant %v note %q", tc.name, m.Status, m.Method, m.Significant, m.Note)
		}
	}
	// Errors 0 on the baseline: compared on the plain difference, no %.
	base := []*results.StepResult{{}, {}, {}, {}}
	cand := []*results.StepResult{{Errors: results.ErrorCounts{Timeout: 5}}, {Errors: results.ErrorCounts{Timeout: 7}}, {Errors: results.ErrorCounts{Network: 6}}, {Errors: results.ErrorCounts{Server: 6}}}
	m := buildMetric(metricDefs[Errors], base, cand, Options{Alpha: 0.05})
	if m.DeltaPct != nil || m.CILowPct != nil || *m.Delta != 6 || m.Status != StatusChanged || *m.CILow != 5 || *m.CIHigh != 7 {
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
