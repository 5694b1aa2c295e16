// Package stats is poolsweep's one descriptive-statistics layer: median,
// percentiles, mean and variance (github.com/montanaflynn/stats
// underneath), and Summary, the one way knee, compare and plot summarise the
// trials of a step — a center, an interval, its confidence, n and warnings,
// in the spirit of benchstat's benchmath.Summary.
//
// Inference (distributions, tests, optimisation) is not here: gonum is the
// better tool for that and stays where it is used.
//
// Missing values are NaN, never 0: every function returns NaN for an empty
// sample (and Variance for fewer than two values), so a caller
// cannot mistake "nothing measured" for a measured zero.
package stats

import (
	"math"

	mstats "github.com/montanaflynn/stats"
	"gonum.org/v1/gonum/stat/combin"
)

// Median is the middle value of xs (the mean of the middle two for an even
// count); NaN when xs is empty or holds a NaN. xs is not modified.
func Median(xs []float64) float64 {
	m, err := mstats.Median(xs)
	if err != nil {
		return math.NaN()
	}
	return m
}

// Percentile is the p-th percentile of xs, p in [0, 100], by linear
// interpolation between the closest ranks (Hyndman and Fan's type 7, the
// default of NumPy, R and spreadsheets): rank p/100·(n−1) of the sorted
// values. NaN when xs is empty, holds a NaN, or p is outside [0, 100].
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 || !(p >= 0 && p <= 100) {
		return math.NaN()
	}
	if p == 0 {
		// The library wants p > 0; the 0th percentile is the minimum.
		m, err := mstats.Min(xs)
		if err != nil || hasNaN(xs) {
			return math.NaN()
		}
		return m
	}
	return orNaN(mstats.Percentile(xs, p))
}

// Mean is the arithmetic mean of xs; NaN when xs is empty.
func Mean(xs []float64) float64 { return orNaN(mstats.Mean(xs)) }

// Variance is the unbiased sample variance of xs (divisor n − 1); NaN for
// fewer than two values.
func Variance(xs []float64) float64 { return orNaN(mstats.SampleVariance(xs)) }

// orNaN is v, or NaN where the library refused (empty input, too few
// values): our callers test for NaN, not for an error.
func orNaN(v float64, err error) float64 {
	if err != nil {
		return math.NaN()
	}
	return v
}

// Binomial is the binomial coefficient C(n, k) as a float: exact while it
// fits an int64 without overflow (n ≤ 60), from the log-gamma function
// beyond (relative error near 1e-14). It is 0 when k < 0 or k > n.
func Binomial(n, k int) float64 {
	if n < 0 || k < 0 || k > n {
		return 0
	}
	if n <= 60 {
		return float64(combin.Binomial(n, k))
	}
	return combin.GeneralizedBinomial(float64(n), float64(k))
}

// OuterPercentiles is the interval between the lo-th and hi-th percentiles
// of xs (p in [0, 100]) taken as observed values rounded outwards: the
// order statistic at or below the type-7 rank of lo and the one at or above
// that of hi. It is for discrete answers (a bootstrap's knees), where an
// interpolated value would name a level that was never an answer and could
// narrow the interval. NaN, NaN when xs is empty.
func OuterPercentiles(xs []float64, lo, hi float64) (float64, float64) {
	if len(xs) == 0 {
		return math.NaN(), math.NaN()
	}
	s := sorted(xs)
	n := float64(len(s) - 1)
	i := int(math.Floor(lo / 100 * n))
	j := int(math.Ceil(hi / 100 * n))
	i = min(max(i, 0), len(s)-1)
	j = min(max(j, 0), len(s)-1)
	return s[i], s[j]
}

func hasNaN(xs []float64) bool {
	for _, v := range xs {
		if math.IsNaN(v) {
			return true
		}
	}
	return false
}
