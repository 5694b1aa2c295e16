package steady

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The stall rule: a window whose throughput cannot reach the precision
// before the longest window allowed ends as soon as that is clear, not at
// the maximum. A batch-means half-width shrinks like t(k−1)·s/√k as the
// window gains batch means of the same size (s, the spread of the means,
// stays what it is), so the half-width at the maximum is projected from
// the interval so far.

// ReachFactor is how far outside the precision the projected half-width
// at the maximum must lie for the window to end as out of reach. At 2,
// reaching the precision would need four times the longest window
// allowed (the half-width shrinks as 1/√n), and the projection rests on
// the spread of at least MinBatches independent batch means: the chance
// that their standard deviation comes out twice the true one is
// P(χ²₉ > 36) ≈ 4·10⁻⁵ at ten means, less with more. Means that are not
// independent (a positive lag-1 autocorrelation) understate the spread,
// so their projection is too small and the rule only later to fire.
const ReachFactor = 2.0

// Project is the relative half-width iv would have after total base
// values at the confidence of iv: the same batch size, the same spread of
// the batch means, more of them. +Inf when iv is not OK or its mean is 0;
// iv's own relative half-width when total holds no more batches than iv.
func Project(iv Interval, total int, confidence float64) float64 {
	rel := iv.Relative()
	if math.IsInf(rel, 0) || iv.BatchSize < 1 {
		return rel
	}
	k := total / iv.BatchSize
	if k <= iv.Batches || iv.Batches < 2 {
		return rel
	}
	// hw = q(k−1)·s/√k: the same s, k batch means instead of iv.Batches.
	return rel * tQuantile(k-1, confidence) / tQuantile(iv.Batches-1, confidence) * math.Sqrt(float64(iv.Batches)/float64(k))
}

// OutOfReach says the precision cannot be reached within total base
// values: iv holds at least MinBatches means and even its projection at
// total is more than ReachFactor times precision. A mean of zero (no
// calls at all: a stalled target) is not out of reach, only not yet
// measured. The projection is returned either way (+Inf without an
// interval or with a mean of zero).
func OutOfReach(iv Interval, total int, precision, confidence float64) (bool, float64) {
	p := Project(iv, total, confidence)
	return iv.OK && iv.Batches >= MinBatches && !math.IsInf(p, 0) && p > ReachFactor*precision, p
}

// tQuantile is the two-sided Student t quantile of confidence with nu
// degrees of freedom.
func tQuantile(nu int, confidence float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(nu)}.Quantile(1 - (1-confidence)/2)
}
