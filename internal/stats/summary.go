package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultConfidence is the confidence of every interval poolsweep reports
// unless told otherwise.
const DefaultConfidence = 0.95

// MinBootstrapN is the fewest values for which a bootstrap interval of the
// median means anything: with one or two values every resample's median is
// one of at most three numbers, so below this the observed range is
// reported instead.
const MinBootstrapN = 3

// Summary is a sample summarised the way poolsweep reports trials: the
// median as the center, an interval around it, how confident that interval
// is, the sample size, and what would make it trustworthy.
type Summary struct {
	Center float64 // the median; NaN when N is 0
	// Low and High bound the interval. With fewer than MinBootstrapN values
	// (or before a bootstrap) they are the observed minimum and maximum.
	Low, High float64
	// Confidence is the interval's confidence level, 0 when the interval is
	// the observed range and carries no stated confidence.
	Confidence float64
	N          int
	Warnings   []string
}

// Summarize is the median and the observed range of xs, with a warning
// when there are too few values for a confidence interval. NaN values are
// left out and counted in a warning.
func Summarize(xs []float64) Summary {
	clean, dropped := finite(xs)
	s := Summary{N: len(clean), Center: math.NaN(), Low: math.NaN(), High: math.NaN()}
	if dropped > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d value(s) that are not finite numbers left out", dropped))
	}
	switch s.N {
	case 0:
		s.Warnings = append(s.Warnings, "no values")
		return s
	case 1:
		s.Warnings = append(s.Warnings, fmt.Sprintf("1 value: no spread; need %d or more for an interval", MinBootstrapN))
	case 2:
		s.Warnings = append(s.Warnings, fmt.Sprintf("2 values: the interval is their range; need %d or more for a confidence interval", MinBootstrapN))
	}
	s.Center = Median(clean)
	s.Low, s.High = slices.Min(clean), slices.Max(clean)
	return s
}

// WithInterval returns s with a percentile interval at the given confidence
// taken from the bootstrap medians meds (the same sample resampled with
// replacement, one median per resample). It leaves s alone when s has
// fewer than MinBootstrapN values or meds is empty.
func (s Summary) WithInterval(meds []float64, confidence float64) Summary {
	if s.N < MinBootstrapN || len(meds) == 0 {
		return s
	}
	s.Low, s.High = PercentileInterval(meds, confidence)
	s.Confidence = confidence
	return s
}

// SpreadPct is half the interval relative to the center, in percent: a
// plain noise gauge. NaN when it cannot be told (fewer than two values or a
// zero center).
func (s Summary) SpreadPct() float64 {
	if s.N < 2 || s.Center == 0 || math.IsNaN(s.Center) {
		return math.NaN()
	}
	return (s.High - s.Low) / 2 / math.Abs(s.Center) * 100
}

// PercentileInterval is the central interval of xs holding the given
// confidence: its (1−c)/2 and (1+c)/2 percentiles.
func PercentileInterval(xs []float64, confidence float64) (lo, hi float64) {
	a := (1 - confidence) / 2 * 100
	return Percentile(xs, a), Percentile(xs, 100-a)
}

// Resampler draws bootstrap resamples (with replacement, the size of the
// sample) and returns their medians in O(n): counting the draws per rank of
// the sorted sample avoids sorting every resample.
type Resampler struct {
	rng    *rand.Rand
	counts []int
}

// NewResampler draws from rng; maxN sizes its buffer (it grows if needed).
func NewResampler(rng *rand.Rand, maxN int) *Resampler {
	return &Resampler{rng: rng, counts: make([]int, maxN)}
}

// Median is the median of one resample of sorted, which must be sorted
// ascending and non-empty.
func (r *Resampler) Median(sorted []float64) float64 {
	n := len(sorted)
	if n == 1 {
		return sorted[0]
	}
	if cap(r.counts) < n {
		r.counts = make([]int, n)
	}
	c := r.counts[:n]
	clear(c)
	for range n {
		c[r.rng.IntN(n)]++
	}
	lo, hi := (n-1)/2, n/2
	var vlo, vhi float64
	cum := 0
	found := false
	for i, k := range c {
		cum += k
		if !found && cum > lo {
			vlo, found = sorted[i], true
		}
		if cum > hi {
			vhi = sorted[i]
			break
		}
	}
	return (vlo + vhi) / 2
}

// finite returns the finite values of xs and how many were not.
func finite(xs []float64) ([]float64, int) {
	out := make([]float64, 0, len(xs))
	for _, v := range xs {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out, len(xs) - len(out)
}

func sorted(xs []float64) []float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s
}
