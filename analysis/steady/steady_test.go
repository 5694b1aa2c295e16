package steady

import (
	"math"
	"math/rand/v2"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

// series builds n values: f(i) plus Gaussian noise of sd from a fixed seed.
func series(n int, sd float64, seed uint64, f func(i int) float64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 1))
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = f(i) + sd*rng.NormFloat64()
	}
	return xs
}

// ar1 is an AR(1) series x_i = phi·x_{i−1} + e_i around mean.
func ar1(n int, phi, mean float64, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 2))
	xs := make([]float64, n)
	x := 0.0
	for i := range xs {
		x = phi*x + rng.NormFloat64()
		xs[i] = mean + x
	}
	return xs
}

func TestMSER5(t *testing.T) {
	step := func(until int, lo, hi float64) func(int) float64 {
		return func(i int) float64 {
			if i < until {
				return lo
			}
			return hi
		}
	}
	tests := []struct {
		name    string
		xs      []float64
		point   int // -1: any
		tol     int
		settled bool
	}{
		// Noise-free: the tail after the 20 half-speed values is constant,
		// so the statistic is 0 from the 4th mean on and the first zero wins.
		{"step transient, no noise, cut exactly", series(100, 0, 1, step(20, 50, 100)), 20, 0, true},
		// The same transient in noise: the cut lands on it within one mean.
		{"step transient in noise", series(200, 3, 2, step(30, 50, 100)), 30, 5, true},
		// A steady series needs no truncation: the minimum is at the start.
		{"steady series is not cut", series(200, 5, 3, func(int) float64 { return 100 }), 0, 10, true},
		// A ramp still rising puts the minimum on the edge of the first half.
		{"ramp not ended is not settled", series(100, 0.5, 4, func(i int) float64 { return float64(i) }), -1, 0, false},
		{"too short", series(25, 1, 6, step(0, 0, 1)), -1, 0, false},
	}
	for _, tt := range tests {
		got := mser5(tt.xs)
		if got.Settled != tt.settled {
			t.Errorf("%s: settled = %v, want %v (point %d of %d means)", tt.name, got.Settled, tt.settled, got.Point, got.Means)
		}
		if tt.point >= 0 && (got.Point < tt.point-tt.tol || got.Point > tt.point+tt.tol) {
			t.Errorf("%s: point = %d, want %d ± %d", tt.name, got.Point, tt.point, tt.tol)
		}
	}
	if got := mser5([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, math.NaN()}); got.Settled {
		t.Errorf("a NaN settled: %+v", got)
	}
}

func TestLag1(t *testing.T) {
	tests := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{1, 2, 3, 4}, 0.25},    // (0.75 − 0.25 + 0.75) / 5
		{[]float64{1, -1, 1, -1}, -0.75}, // −3 / 4
		{[]float64{7, 7, 7, 7}, 0},       // no spread
		{[]float64{1, 2}, math.NaN()},    // too few
	}
	for _, tt := range tests {
		got := Lag1(tt.xs)
		if !(near(got, tt.want, 1e-12) || (math.IsNaN(got) && math.IsNaN(tt.want))) {
			t.Errorf("Lag1(%v) = %v, want %v", tt.xs, got, tt.want)
		}
	}
	// AR(1): the estimate approaches phi on a long series.
	for _, phi := range []float64{0, 0.5, 0.9} {
		if got := Lag1(ar1(20000, phi, 0, 7)); !near(got, phi, 0.03) {
			t.Errorf("AR(1) phi=%v: Lag1 = %v", phi, got)
		}
	}
}

func TestBatchMeans(t *testing.T) {
	// Alternating 1, 3: mean 2, sample variance 10/9, t(0.975, 9) = 2.262157;
	// the lag-1 autocorrelation is negative, so batches of one are kept.
	alt := []float64{1, 3, 1, 3, 1, 3, 1, 3, 1, 3}
	iv := BatchMeans(alt, 0.95)
	if !iv.OK || iv.BatchSize != 1 || iv.Batches != 10 || !iv.Independent || !near(iv.Mean, 2, 1e-12) || !near(iv.HalfWidth, 2.262157/3, 1e-5) {
		t.Errorf("alternating: %+v", iv)
	}
	// A trend: too correlated, and too short to widen: not independent.
	trend := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	if iv := BatchMeans(trend, 0.95); !iv.OK || iv.Independent || !near(iv.HalfWidth, 2.262157*math.Sqrt(55.0/6/10), 1e-5) {
		t.Errorf("trend: %+v", iv)
	}
	if iv := BatchMeans(alt[:9], 0.95); iv.OK {
		t.Errorf("9 values gave an interval: %+v", iv)
	}
	// White noise keeps batches of one; AR(1) with phi 0.9 widens them
	// until the means are nearly independent, and its interval then covers
	// the true mean where the naive one (batches of one) is far too narrow.
	white := BatchMeans(series(2000, 1, 8, func(int) float64 { return 10 }), 0.95)
	if white.BatchSize != 1 || !white.Independent {
		t.Errorf("white noise widened: %+v", white)
	}
	xs := ar1(4000, 0.9, 100, 9)
	wide := BatchMeans(xs, 0.95)
	if wide.BatchSize < 8 || !wide.Independent {
		t.Errorf("AR(1) 0.9: batches not widened enough: %+v", wide)
	}
	naive := halfWidth(xs, 0.95)
	if wide.HalfWidth < 2*naive {
		t.Errorf("AR(1) 0.9: batch-means half-width %v not well above the naive %v", wide.HalfWidth, naive)
	}
}

// TestBatchMeansCoverage checks the interval's coverage over many AR(1)
// series: near the nominal 95 %, where batches of one would cover far less.
func TestBatchMeansCoverage(t *testing.T) {
	covered, runs := 0, 400
	for s := range runs {
		iv := BatchMeans(ar1(1000, 0.7, 50, uint64(100+s)), 0.95)
		if math.Abs(iv.Mean-50) <= iv.HalfWidth {
			covered++
		}
	}
	if frac := float64(covered) / float64(runs); frac < 0.85 || frac > 0.995 {
		t.Errorf("coverage %.3f, want near 0.95", frac)
	}
}

func TestWindowRule(t *testing.T) {
	w := WindowRule{Precision: 0.02, Confidence: 0.95, MinValues: 20, MaxValues: 600, MinCalls: 1000}
	quiet := series(600, 1, 10, func(int) float64 { return 100 }) // 1 % noise per batch
	noisy := series(600, 30, 11, func(int) float64 { return 100 })
	end := func(xs []float64, perBatch int64) int {
		for n := 1; n <= len(xs); n++ {
			if _, e := w.Decide(xs[:n], int64(n)*perBatch); e != EndContinue {
				return n
			}
		}
		return -1
	}
	nq, nn := end(quiet, 100), end(noisy, 100)
	if nq != 20 { // 1 % noise: the first allowed moment
		t.Errorf("quiet series ended after %d batches, want the minimum 20", nq)
	}
	if nn <= 4*nq {
		t.Errorf("noisy series ended after %d batches, not well after the quiet one's %d", nn, nq)
	}
	// Few calls per batch: the p99 minimum holds the window open.
	if n := end(quiet, 10); n != 100 {
		t.Errorf("10 calls per batch ended after %d batches, want 100 (1000 calls)", n)
	}
	// The maximum ends a window that never gets precise.
	if _, e := w.Decide(series(600, 80, 12, func(int) float64 { return 100 }), 60000); e != EndMax {
		t.Errorf("maximum: %q", e)
	}
}

func TestWarmupRule(t *testing.T) {
	w := WarmupRule{MinValues: 10, MaxValues: 300}
	ends := func(xs []float64) (int, Truncation, End) {
		for n := 1; n <= len(xs); n++ {
			if tr, e := w.Decide(xs[:n]); e != EndContinue {
				return n, tr, e
			}
		}
		return -1, Truncation{}, EndContinue
	}
	// A ramp from half speed to full over the first 40 batches: the warm-up
	// ends only after the ramp, and its truncation point lies on the ramp's end.
	ramp := series(300, 2, 13, func(i int) float64 { return 50 + 50*math.Min(1, float64(i)/40) })
	if n, tr, e := ends(ramp); e != EndSettled || n < 40 || tr.Point < 25 || tr.Point > 50 {
		t.Errorf("ramp: ended at %d with %q, point %d", n, e, tr.Point)
	}
	// Half speed for the first 20 batches: the warm-up ends after them.
	// (MSER-5 cannot see a flat transient that has not ended yet; the
	// minimum warm-up is what covers that, see mser5.)
	halfSpeed := series(300, 2, 15, func(i int) float64 { return 50 + 50*float64(min(1, i/20)) })
	if n, _, e := ends(halfSpeed); e != EndSettled || n <= 20 {
		t.Errorf("half speed: ended at %d with %q", n, e)
	}
	// A ramp that never ends reaches the maximum unsettled.
	rising := series(300, 0.5, 14, func(i int) float64 { return float64(i) })
	if _, e := w.Decide(rising); e != EndMaxWarmup {
		t.Errorf("rising: %q", e)
	}
}

func FuzzSteady(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		xs := make([]float64, len(b))
		for i, v := range b {
			xs[i] = float64(v)
		}
		tr := mser5(xs)
		if tr.Point < 0 || tr.Point > len(xs)/2 || tr.Point%MSERBatch != 0 {
			t.Fatalf("MSER5 point %d of %d", tr.Point, len(xs))
		}
		iv := BatchMeans(xs, 0.95)
		if iv.OK {
			if iv.HalfWidth < 0 || math.IsNaN(iv.HalfWidth) || iv.Batches < MinBatches || iv.BatchSize*iv.Batches > len(xs) {
				t.Fatalf("interval %+v of %d values", iv, len(xs))
			}
			if iv.Mean < 0 || iv.Mean > 255 {
				t.Fatalf("mean %v outside the values' range", iv.Mean)
			}
		}
		if r := Lag1(xs); !math.IsNaN(r) && (r < -1-1e-9 || r > 1+1e-9) {
			t.Fatalf("Lag1 %v", r)
		}
	})
}

func TestTrending(t *testing.T) {
	tests := []struct {
		name string
		ms   []float64
		want bool
	}{
		{"flat", []float64{5, 5, 5, 5}, false},
		{"exact line", []float64{1, 2, 3, 4}, true},
		{"noise around a level", []float64{10, 12, 9, 11, 10, 12, 9, 11}, false},
		// slope 1 per step against residuals of ±0.5: t ≈ 9
		{"rising in noise", []float64{0.5, 1.5, 3.5, 3.5, 4.5, 5.5, 7.5, 7.5}, true},
		{"too few to tell", []float64{1, 9}, false},
	}
	for _, tt := range tests {
		if got := trending(tt.ms); got != tt.want {
			t.Errorf("%s: trending = %v, want %v", tt.name, got, tt.want)
		}
	}
	// A transient fading in steps: after 30 batches (6 means) MSER-5 alone
	// would call the last step the end; the slope of what follows says no.
	fade := series(30, 0.5, 16, func(i int) float64 { return 50 + 5*float64(i/5) })
	if tr := mser5(fade); tr.Settled {
		t.Errorf("a fade still in progress settled at %d", tr.Point)
	}
}

// TestBatchMeansFromCallTimes: a closed loop's callers of a 3-op call
// end their calls in waves a call time apart; batches of one base value
// cut through the waves and their means depend on each other, batches of
// several call times hold whole waves.
func TestBatchMeansFromCallTimes(t *testing.T) {
	tests := []struct {
		name        string
		callS       float64
		batchS      float64
		wantMinSize int
	}{
		// A call of 96 ms (3 ops of 32 ms) in 100-ms batches: 3 batches.
		{"API call at C=32", 0.096, 0.1, 3},
		// A call shorter than a batch still gets one whole batch.
		{"short call", 0.001, 0.1, 1},
		// Exactly 10 base batches: no rounding up to 11.
		{"whole number", 1.0 / 3, 0.1, 10},
		// Seed 003's standalone at 500 per client: 3.3 s calls.
		{"seconds-long call", 3.3, 0.1, 99},
		// No call ended: not known.
		{"no call", math.Inf(1), 0.1, 0},
		{"zero call time", 0, 0.1, 0},
	}
	for _, tt := range tests {
		if got := MinBatchSize(tt.callS, tt.batchS); got != tt.wantMinSize {
			t.Errorf("%s: MinBatchSize(%v, %v) = %d, want %d", tt.name, tt.callS, tt.batchS, got, tt.wantMinSize)
		}
	}
	if got := CallTime(96, 1000, 1); !near(got, 0.096, 1e-12) {
		t.Errorf("CallTime(96 callers, 1000 calls in 1 s) = %v, want 0.096", got)
	}
	if got := CallTime(96, 0, 1); !math.IsInf(got, 1) {
		t.Errorf("CallTime with no calls = %v, want +Inf", got)
	}

	// Waves: calls/s per 100-ms batch, a call time of 400 ms: 4 batches
	// of 1,000 then 0 for 4... (a square wave), in noise.
	wave := series(400, 50, 9, func(i int) float64 {
		if (i/4)%2 == 0 {
			return 1000
		}
		return 0
	})
	from1 := BatchMeans(wave, 0.95)
	from3 := BatchMeansFrom(wave, 0.95, MinBatchSize(0.8, 0.1)) // 8 base values a call (of 800 ms)
	if from3.BatchSize < 24 || from3.BatchSize%24 != 0 {
		t.Errorf("batch size %d, want a multiple of 24 (3 call times of 8 base values)", from3.BatchSize)
	}
	if !from3.OK || !from3.Independent || !near(from3.Mean, 500, 40) {
		t.Errorf("batches of 3 call times: %+v, want an independent interval around 500", from3)
	}
	if from1.BatchSize >= from3.BatchSize {
		t.Errorf("from 1 ended at batch size %d, not below %d: the test does not tell the two apart", from1.BatchSize, from3.BatchSize)
	}
	// Too short for ten batches of the minimum: no interval, and its
	// batch size says what was asked.
	short := BatchMeansFrom(wave[:100], 0.95, 24)
	if short.OK || short.BatchSize != 24 || short.Batches != 4 {
		t.Errorf("100 values in batches of 24: %+v, want not OK, 4 batches of 24", short)
	}
}
