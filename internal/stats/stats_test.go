package stats

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func same(a, b float64) bool {
	return a == b || (math.IsNaN(a) && math.IsNaN(b)) || math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b))
}

func TestDescriptive(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name     string
		xs       []float64
		median   float64
		mean     float64
		variance float64
	}{
		{"empty is NaN, not 0", nil, nan, nan, nan},
		{"one value has no variance", []float64{7}, 7, 7, nan},
		{"even count averages the middle two", []float64{4, 1, 3, 2}, 2.5, 2.5, 5.0 / 3},
		{"odd count takes the middle", []float64{5, 1, 9}, 5, 5, 16},
		{"a NaN poisons the median", []float64{1, nan, 3}, nan, nan, nan},
	}
	for _, tt := range tests {
		if got := Median(tt.xs); !same(got, tt.median) {
			t.Errorf("%s: Median = %v, want %v", tt.name, got, tt.median)
		}
		if got := Mean(tt.xs); !same(got, tt.mean) {
			t.Errorf("%s: Mean = %v, want %v", tt.name, got, tt.mean)
		}
		if got := Variance(tt.xs); !same(got, tt.variance) {
			t.Errorf("%s: Variance = %v, want %v", tt.name, got, tt.variance)
		}
	}
	// Median does not reorder its input.
	xs := []float64{3, 1, 2}
	Median(xs)
	if xs[0] != 3 || xs[1] != 1 {
		t.Errorf("Median sorted its input: %v", xs)
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{15, 20, 35, 40, 50} // NumPy's default (linear) answers
	tests := []struct {
		p, want float64
	}{
		{0, 15},     // the minimum
		{100, 50},   // the maximum
		{50, 35},    // the median
		{40, 29},    // rank 1.6: 20 + 0.6·15
		{2.5, 15.5}, // rank 0.1
		{97.5, 49},  // rank 3.9
		{-1, math.NaN()},
		{101, math.NaN()},
	}
	for _, tt := range tests {
		if got := Percentile(xs, tt.p); !same(got, tt.want) {
			t.Errorf("Percentile(%v) = %v, want %v", tt.p, got, tt.want)
		}
	}
	if got := Percentile(nil, 50); !math.IsNaN(got) {
		t.Errorf("empty: %v, want NaN", got)
	}
	if lo, hi := PercentileInterval(xs, 0.95); !same(lo, 15.5) || !same(hi, 49) {
		t.Errorf("PercentileInterval = %v, %v", lo, hi)
	}
}

func TestOuterPercentiles(t *testing.T) {
	// Knees found by 11 resamples (as level indices).
	xs := []float64{3, 2, 2, 2, 2, 2, 2, 2, 2, 1, 4}
	lo, hi := OuterPercentiles(xs, 2.5, 97.5)
	if lo != 1 || hi != 4 { // ranks 0.25 and 9.75 round outwards to 0 and 10
		t.Errorf("got %v, %v, want 1, 4", lo, hi)
	}
	lo, hi = OuterPercentiles(xs, 25, 75)
	if lo != 2 || hi != 2 {
		t.Errorf("inner quartiles: %v, %v", lo, hi)
	}
	if lo, hi := OuterPercentiles(nil, 2.5, 97.5); !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("empty: %v %v", lo, hi)
	}
}

func TestBinomial(t *testing.T) {
	tests := []struct {
		n, k int
		want float64
	}{
		{5, 2, 10},
		{10, 5, 252},
		{6, 0, 1},
		{6, 7, 0},  // k > n
		{6, -1, 0}, // k < 0
		{60, 30, 118264581564861424},
		{100, 50, 1.0089134454556418e29},
	}
	for _, tt := range tests {
		got := Binomial(tt.n, tt.k)
		if math.Abs(got-tt.want) > 1e-12*tt.want {
			t.Errorf("Binomial(%d, %d) = %v, want %v", tt.n, tt.k, got, tt.want)
		}
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name           string
		xs             []float64
		center, lo, hi float64
		n              int
		warn           string // a warning that must be there ("" = none)
	}{
		{"no values", nil, math.NaN(), math.NaN(), math.NaN(), 0, "no values"},
		{"one value", []float64{5}, 5, 5, 5, 1, "1 value: no spread"},
		{"two values give their range", []float64{6, 4}, 5, 4, 6, 2, "2 values"},
		{"three values", []float64{1, 9, 2}, 2, 1, 9, 3, ""},
		{"a NaN is left out and said", []float64{1, math.NaN(), 3, 2}, 2, 1, 3, 3, "not finite"},
	}
	for _, tt := range tests {
		s := Summarize(tt.xs)
		if !same(s.Center, tt.center) || !same(s.Low, tt.lo) || !same(s.High, tt.hi) || s.N != tt.n || s.Confidence != 0 {
			t.Errorf("%s: got %+v", tt.name, s)
		}
		joined := strings.Join(s.Warnings, "; ")
		if tt.warn == "" && joined != "" || !strings.Contains(joined, tt.warn) {
			t.Errorf("%s: warnings %q, want %q", tt.name, joined, tt.warn)
		}
	}
	if got := Summarize([]float64{90, 110}).SpreadPct(); got != 10 {
		t.Errorf("SpreadPct = %v, want 10", got)
	}
	if got := Summarize([]float64{5}).SpreadPct(); !math.IsNaN(got) {
		t.Errorf("SpreadPct of one value = %v, want NaN", got)
	}
}

func TestResamplerMedian(t *testing.T) {
	// Every resample median of {1, 3} is 1, 2 or 3, and over many draws
	// each appears about as often as theory says (¼, ½, ¼).
	r := NewResampler(rand.New(rand.NewPCG(7, 7)), 1)
	counts := map[float64]int{}
	const n = 20000
	for range n {
		counts[r.Median([]float64{1, 3})]++
	}
	if len(counts) != 3 {
		t.Fatalf("medians %v", counts)
	}
	for v, want := range map[float64]float64{1: 0.25, 2: 0.5, 3: 0.25} {
		if got := float64(counts[v]) / n; math.Abs(got-want) > 0.02 {
			t.Errorf("P(median=%v) = %.3f, want %.2f", v, got, want)
		}
	}
	if got := r.Median([]float64{4}); got != 4 {
		t.Errorf("one value: %v", got)
	}
}
