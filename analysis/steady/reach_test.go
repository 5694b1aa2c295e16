package steady

import (
	"math"
	"testing"
)

// whiteNoise is n values of mean 100 with Gaussian noise of sd.
func whiteNoise(n int, sd float64, seed uint64) []float64 {
	return series(n, sd, seed, func(int) float64 { return 100 })
}

// firstEnd feeds w the series value by value (perBatch calls each) and
// returns where and why the window first ended.
func firstEnd(w WindowRule, xs []float64, perBatch int64) (int, End) {
	for n := 1; n <= len(xs); n++ {
		if _, e := w.Decide(xs[:n], int64(n)*perBatch); e != EndContinue {
			return n, e
		}
	}
	return len(xs), EndContinue
}

func TestProject(t *testing.T) {
	// White noise of sd 25 around 100: the half-width after 600 values is
	// t(599)·25/√600 ≈ 2.0 %; projected from the first 50, 100 and 300 it
	// comes out near that (the spread of 50 values is itself uncertain).
	xs := whiteNoise(600, 25, 21)
	want := BatchMeans(xs, 0.95).Relative()
	for _, n := range []int{50, 100, 300} {
		iv := BatchMeans(xs[:n], 0.95)
		if got := Project(iv, 600, 0.95); math.Abs(got-want) > 0.25*want {
			t.Errorf("projected from %d values: %.4f, the full series' %.4f", n, got, want)
		}
		if got := Project(iv, n, 0.95); got != iv.Relative() {
			t.Errorf("projected to its own length: %v, want %v", got, iv.Relative())
		}
	}
	if got := Project(Interval{}, 600, 0.95); !math.IsInf(got, 1) {
		t.Errorf("no interval: %v, want +Inf", got)
	}
}

func TestStallRule(t *testing.T) {
	// 2 % at 95 %, windows of 20 to 600 base batches, 100 calls each.
	w := WindowRule{Precision: 0.02, Confidence: 0.95, MinValues: 20, MaxValues: 600, MinCalls: 1000}
	tests := []struct {
		name   string
		xs     []float64
		want   End
		before int // ends at or before this many values
		after  int // and at or after this many
	}{
		// 1 % per batch: precise at the minimum, the stall rule never asked.
		{"quiet white noise", whiteNoise(600, 1, 31), EndPrecision, 20, 20},
		// 100 % per batch: the half-width at 600 would be ≈ 8 %, 4× the
		// precision: out of reach as soon as the minimum has passed.
		{"loud white noise", whiteNoise(600, 100, 32), EndOutOfReach, 25, 20},
		// 20 % per batch: ≈ 1.6 % at 600, reachable: it runs until the
		// precision holds, never ended as out of reach.
		{"reachable white noise", whiteNoise(600, 20, 33), EndPrecision, 600, 100},
		// AR(1), φ = 0.9, innovations of sd 10 around 100: the mean's
		// half-width at 600 is ≈ 1.96·10/(1−φ)/√600 ≈ 8 %. Its batches
		// need widening (lag-1 0.9 at first), which the projection
		// understates, yet it ends well before the maximum.
		{"AR(1) φ=0.9, far out of reach", ar1Around(600, 0.9, 10, 34), EndOutOfReach, 300, 20},
		// AR(1), φ = 0.5, innovations of sd 1: ≈ 0.16 % at 600; precise
		// after the minimum once its batches are widened.
		{"AR(1) φ=0.5, quiet", ar1Around(600, 0.5, 1, 35), EndPrecision, 100, 20},
	}
	// No calls at all (a stalled target): never out of reach, it runs on.
	noMin := w
	noMin.MinCalls = 0
	if _, e := noMin.Decide(make([]float64, 100), 0); e != EndContinue {
		t.Errorf("a window with no calls ended by %q", e)
	}
	for _, tt := range tests {
		n, e := firstEnd(w, tt.xs, 100)
		if e != tt.want || n > tt.before || n < tt.after {
			t.Errorf("%s: ended after %d values by %q, want %q within [%d, %d]", tt.name, n, e, tt.want, tt.after, tt.before)
		}
	}
}

// TestStallRuleRarelyWrong: white noise whose precision is reached just at
// the maximum (projection factor 1, half the rule's 2) is almost never
// ended as out of reach, over 100 series each tested after every fifth
// value (a step tests after every one; the tests are strongly correlated).
func TestStallRuleRarelyWrong(t *testing.T) {
	w := WindowRule{Precision: 0.02, Confidence: 0.95, MinValues: 20, MaxValues: 600}
	sd := 0.02 * 100 * math.Sqrt(600) / 1.96 // half-width 2 % at 600
	wrong := 0
	for seed := range uint64(100) {
		xs := whiteNoise(600, sd, 1000+seed)
		for n := w.MinValues; n < len(xs); n += 5 {
			if _, e := w.Decide(xs[:n], 0); e != EndContinue {
				if e == EndOutOfReach {
					wrong++
				}
				break
			}
		}
	}
	if wrong > 1 {
		t.Errorf("%d of 100 reachable series ended as out of reach", wrong)
	}
}

// ar1Around is an AR(1) series of coefficient phi and innovations of sd
// around 100.
func ar1Around(n int, phi, sd float64, seed uint64) []float64 {
	xs := ar1(n, phi, 0, seed)
	for i := range xs {
		xs[i] = 100 + sd*xs[i]
	}
	return xs
}
