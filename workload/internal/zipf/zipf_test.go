package zipf

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRankFrequencies: the share of draws on each of the first ranks is
// 1/(k+1)^θ over the sum of the weights, on both sides of ExactMax. Gray's
// method places ranks 0 and 1 exactly and approximates the rest (rank 2
// of a million comes out about 20% heavy), so past the table only those
// two are held to the rule.
func TestRankFrequencies(t *testing.T) {
	for _, tc := range []struct {
		n     int64
		theta float64
	}{
		{3, 0.99},           // a handful of values, as a replayed shape's
		{10_000, 0.99},      // keys of a small collection: the exact table
		{1_000_000, 0.99},   // keys of a large one: Gray's method
		{50, 1.1},           // θ above 1 draws from the exact table
		{ExactMax + 1, 0.5}, // the first n past the table
	} {
		d := New(tc.n, tc.theta)
		r := rand.New(rand.NewPCG(1, 2))
		const draws = 400_000
		counts := make([]int, 3)
		for range draws {
			k := d.Rank(r)
			if k < 0 || k >= tc.n {
				t.Fatalf("n=%d: rank %d out of [0, n)", tc.n, k)
			}
			if k < 3 {
				counts[k]++
			}
		}
		z := zeta(tc.n, tc.theta)
		for k, c := range counts {
			if tc.n > ExactMax && k > 1 {
				break
			}
			want := 1 / math.Pow(float64(k+1), tc.theta) / z
			got := float64(c) / draws
			// Four standard errors of a binomial share.
			tol := 4 * math.Sqrt(want*(1-want)/draws)
			if math.Abs(got-want) > tol {
				t.Errorf("n=%d θ=%v: rank %d drawn %.4f of the time, want %.4f ± %.4f", tc.n, tc.theta, k, got, want, tol)
			}
		}
	}
}

// TestSharedIsMadeOnce: callers that keep no state share one table per
// (n, θ), so a replay's draws do not rebuild it.
func TestSharedIsMadeOnce(t *testing.T) {
	if Shared(100, 0.9) != Shared(100, 0.9) {
		t.Error("Shared(100, 0.9) made twice")
	}
	if Shared(100, 0.9) == Shared(100, 0.8) {
		t.Error("Shared gave one table for two exponents")
	}
}

// TestOneRank: a distribution over at most one rank always draws 0.
func TestOneRank(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int64{0, 1} {
		if k := New(n, 0.99).Rank(r); k != 0 {
			t.Errorf("n=%d: rank %d, want 0", n, k)
		}
	}
}
