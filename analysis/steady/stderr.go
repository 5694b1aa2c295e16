package steady

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultRunNoisePct is the between-run noise floor of a step's
// throughput, one standard deviation in percent: what moves a whole run
// (a restart, a cold cache, another tenant, a busy load host) and no
// window's batch means can see. Comparisons of two runs add it to each
// side's variance (compare, analysis/curves). It is the floor of a MongoDB
// deployment or a simulator; RunNoisePct gives each server kind's.
// docs/analysis.md ("One trial a side") has the spreads they were set
// from: the same spec run twice.
const DefaultRunNoisePct = 3.0

// ferretDBRunNoisePct is embedded FerretDB's floor: its SQLite backend
// shares the load host's cores, and the same spec run twice differed by
// 11% (one standard deviation) on 2 cores, against 1.4% for the simulator.
const ferretDBRunNoisePct = 12.0

// RunNoisePct is the between-run noise floor of a server kind (the
// results header's server_kind): FerretDB's for "ferretdb", the default
// for MongoDB, the simulator and a kind not recorded.
func RunNoisePct(serverKind string) float64 {
	if serverKind == "ferretdb" {
		return ferretDBRunNoisePct
	}
	return DefaultRunNoisePct
}

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
