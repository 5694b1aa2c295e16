package bound

import (
	"fmt"
	"math"

	"github.com/poolsweep/poolsweep/results"
)

// littlesLawTolerancePct is the deviation above which a step gets a warning.
const littlesLawTolerancePct = 20

// littlesLaw checks a closed-loop step: with concurrencyInFlight workers
// issuing calls back to back, calls/s × mean call latency must come back to
// about the same number. A large gap means time spent outside the measured
// call (client-side queueing, a starved client, think time) or a measuring
// fault. Pass the total over all clients (K·C) and the total calls/s.
// OK is false when the deviation exceeds littlesLawTolerancePct, or when
// there is nothing to check (no concurrency).
func littlesLaw(concurrencyInFlight int, callsPerS float64, meanCallLatencyMs float64) results.LittlesLaw {
	return littlesCheck(float64(concurrencyInFlight), callsPerS*meanCallLatencyMs/1000)
}

// littlesCheck compares the calls in flight as counted (expected) with
// rate × time per call (measured). With nothing counted, or a measured
// value that is not a number, there is nothing to check and OK is false.
func littlesCheck(expected, measured float64) results.LittlesLaw {
	l := results.LittlesLaw{ExpectedInFlight: expected, MeasuredInFlight: measured}
	if expected <= 0 || math.IsNaN(measured) || math.IsInf(measured, 0) {
		return l
	}
	l.DeviationPct = (measured - expected) / expected * 100
	l.OK = math.Abs(l.DeviationPct) <= littlesLawTolerancePct
	return l
}

// littlesLawWarning is the step warning for a failed check, or "" when the
// check passed or could not run.
func littlesLawWarning(l results.LittlesLaw) string {
	return littlesWarning(l, "Little's law: %.0f calls in flight but calls/s × mean latency gives %.1f (%+.0f%%): "+
		"time is spent outside the measured calls (client-side queueing or a starved client) or the timing is wrong")
}

// littlesWarning words a failed check with format, which takes the calls
// counted, the product and the deviation; "" when l passed or could not run.
func littlesWarning(l results.LittlesLaw, format string) string {
	if l.OK || l.ExpectedInFlight <= 0 {
		return ""
	}
	return fmt.Sprintf(format, l.ExpectedInFlight, l.MeasuredInFlight, l.DeviationPct)
}
