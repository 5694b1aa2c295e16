package steady

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultRunNoisePct is the between-run noise floor of a step's
// throughput, one standard deviation in percent: what moves a whole run
// (a restart, a cold cache, another tenant, a busy load host) and no
// window's batch means can see. Comparisons of two runs add it to each
// side's variance (compare, compare/curves). docs/analysis.md ("One trial
// a side") has the spread it was set from: the same spec run twice, on
// the simulator and on embedded FerretDB.
const DefaultRunNoisePct = 3.0

// StdErr recovers the standard error of a batch-means mean, and its
// degrees of freedom, from the half-width a step recorded
// (results.StepSteady: HalfWidthPerS, Batches, Confidence). The half-width
// is the Student t one of halfWidth, so the standard error is it over the
// same quantile, with batches − 1 degrees of freedom. ok is false when the
// record cannot give one (fewer than MinBatches means, a confidence
// outside (0, 1), a negative or non-finite half-width). A zero half-width
// (no spread in the means) gives a zero standard error: the caller decides
// what a constant rate means.
func StdErr(halfWidth float64, batches int, confidence float64) (se, df float64, ok bool) {
	if batches < MinBatches || !(confidence > 0 && confidence < 1) ||
		math.IsNaN(halfWidth) || math.IsInf(halfWidth, 0) || halfWidth < 0 {
		return 0, 0, false
	}
	df = float64(batches - 1)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-confidence)/2)
	return halfWidth / q, df, true
}
