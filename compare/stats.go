package compare

import "github.com/poolsweep/poolsweep/internal/stats/twosample"

// Test methods, the value of Metric.Method: twosample's.
const (
	methodMannWhitney = twosample.MethodMannWhitney
	methodWelch       = twosample.MethodWelch
)

// minTrials is the number of trials per side below which a difference is
// shown but never called significant.
const minTrials = twosample.MinTrials

// testResult is the outcome of comparing two samples on one scale
// (candidate − baseline): twosample's, or the batch means' test.
type testResult struct {
	method     string
	p          float64
	lo, hi     float64 // confidence interval of the shift
	confidence float64 // achieved confidence of [lo, hi]
	hasCI      bool
}

// compareSamples tests candidate against baseline (twosample.Test).
func compareSamples(x, y []float64, alpha float64) testResult {
	r := twosample.Test(x, y, alpha)
	return testResult{method: r.Method, p: r.P, lo: r.Lo, hi: r.Hi, confidence: r.Confidence, hasCI: r.HasCI}
}

// significant is twosample's rule: p below alpha and an interval clear
// of zero.
func (r testResult) significant(alpha float64) bool {
	return twosample.Result{P: r.p, Lo: r.lo, Hi: r.hi, HasCI: r.hasCI}.Significant(alpha)
}
