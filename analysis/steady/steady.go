// Package steady decides, from a step's own rate series, when a measured
// window may start and when it may end: MSER-5 for the end of the warm-up
// transient (White 1997; Hoad, Robinson and Davies 2010), and the method of
// non-overlapping batch means for the confidence interval of a window's
// throughput (Law and Kelton, "Simulation Modeling and Analysis", ch. 9).
//
// It is pure: series in, decisions out. The step loop (sweep) feeds it the
// calls completed in each short base batch (say 100 ms); descriptive
// statistics come from internal/stats and the Student t quantile from
// gonum, the homes they already have.
package steady

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsweep/poolsweep/internal/stats"
)

// MSERBatch is the size of the batches MSER-5 averages over before it
// looks for the truncation point: White's "5" in MSER-5.
const MSERBatch = 5

// Truncation is MSER-5's answer for a series.
type Truncation struct {
	// Point is the number of base values to drop from the start: the
	// minimising batch index times MSERBatch. Meaningful only when Settled.
	Point int
	// Settled says the minimum of the marginal standard error lies strictly
	// inside the first half of the series (the transient ended and there
	// is as much steady data after it as before) and the means it keeps
	// show no trend (a t test of their slope at 5 %). When the minimum sits
	// on the edge of the first half, or what follows it still rises or
	// falls, the series may still be in its transient.
	Settled bool
	// Means is how many batch means of MSERBatch the search used.
	Means int
}

// MinMSERMeans is the fewest batch means MSER-5 needs before its answer
// means anything: with fewer, the first half holds one or two candidate
// points and any series looks settled.
const MinMSERMeans = 6

// mser5 is White's MSER-5 truncation rule over xs (one value per base
// batch, in time order): average xs in non-overlapping batches of five
// (a trailing partial batch is left out), and choose the truncation d that
// minimises the marginal standard error Σ_{i>d}(m_i − m̄_d)² / (n − d)² over
// d in the first half of the n means. Fewer than MinMSERMeans means, or a
// non-finite value, give an unsettled answer.
//
// Like every truncation rule it sees only a transient that has ended: a
// series that is all transient so far, and flat (a server at half speed
// for the first seconds), looks steady. A step's minimum warm-up is what
// covers a transient of that kind.
func mser5(xs []float64) Truncation {
	n := len(xs) / MSERBatch
	t := Truncation{Means: n}
	if n < MinMSERMeans {
		return t
	}
	means := batch(xs, MSERBatch)
	if means == nil {
		return t
	}
	half := n / 2
	best, bestD := math.Inf(1), 0
	for d := 0; d <= half; d++ {
		if se := mserStatistic(means[d:]); se < best {
			best, bestD = se, d
		}
	}
	t.Point = bestD * MSERBatch
	t.Settled = bestD < half && !trending(means[bestD:])
	return t
}

// trending says the means keep a trend after the truncation point: their
// least-squares slope differs from zero at 5 % (two-sided t test). A
// transient that fades in steps looks to MSER-5 as if it ended at its last
// step so far; the slope of what it keeps shows that it has not.
func trending(ms []float64) bool {
	_, sig := slope(ms)
	return sig
}

// slope is the least-squares slope of ms per value, and whether it
// differs from zero at 5 % (two-sided t test); not significant with fewer
// than three values.
func slope(ms []float64) (float64, bool) {
	k := len(ms)
	if k < 3 {
		return 0, false
	}
	xm := float64(k-1) / 2
	ym := stats.Mean(ms)
	var sxx, sxy float64
	for i, y := range ms {
		sxx += (float64(i) - xm) * (float64(i) - xm)
		sxy += (float64(i) - xm) * (y - ym)
	}
	b := sxy / sxx
	var rss float64
	for i, y := range ms {
		r := y - ym - b*(float64(i)-xm)
		rss += r * r
	}
	se := math.Sqrt(rss / float64(k-2) / sxx)
	if se == 0 {
		return b, b != 0
	}
	return b, math.Abs(b/se) > tQuantile(k-2, 0.95)
}

// mserStatistic is Σ(m_i − m̄)² / k² over the k values of tail.
func mserStatistic(tail []float64) float64 {
	k := float64(len(tail))
	m := stats.Mean(tail)
	var ss float64
	for _, v := range tail {
		ss += (v - m) * (v - m)
	}
	return ss / (k * k)
}

// MinBatches is the fewest batch means a window's interval is taken from:
// with fewer, the t quantile is large and the batch means' own variance
// too uncertain to trust.
const MinBatches = 10

// Interval is a window's throughput interval by non-overlapping batch
// means, in the units of the base values (per base batch; the caller
// scales to per second).
type Interval struct {
	OK        bool    // false: too few values for MinBatches means
	BatchSize int     // base values per batch mean
	Batches   int     // batch means used (a trailing partial batch is left out)
	Mean      float64 // mean of the batch means
	HalfWidth float64 // confidence half-width of Mean
	// Lag1 is the lag-1 autocorrelation of the batch means.
	Lag1 float64
	// Independent says Lag1 is small (lag1Small): the batches are long
	// enough for the t interval. Without it the interval is too narrow.
	Independent bool
}

// Relative is the half-width over the mean; +Inf when the mean is 0 or
// the interval is not OK.
func (iv Interval) Relative() float64 {
	if !iv.OK || iv.Mean == 0 {
		return math.Inf(1)
	}
	return iv.HalfWidth / math.Abs(iv.Mean)
}

// lag1Small says whether a lag-1 autocorrelation r of n batch means is
// small enough to treat the means as independent: r is below 0.2 (the
// rule of thumb of Law and Kelton) or not significantly positive at 5 %,
// one-sided, under the large-sample standard error 1/√n.
func lag1Small(r float64, n int) bool {
	if math.IsNaN(r) {
		return false
	}
	return r < 0.2 || r <= 1.645/math.Sqrt(float64(n))
}

// BatchMeans is the confidence interval (confidence in (0, 1)) of the
// mean of xs by non-overlapping batch means. It starts from batches of one
// base value and doubles the batch size while the means' lag-1
// autocorrelation is not small and at least MinBatches means would remain;
// the answer says whether it ended with independent batches.
func BatchMeans(xs []float64, confidence float64) Interval {
	return BatchMeansFrom(xs, confidence, 1)
}

// BatchMeansFrom is BatchMeans starting from batches of minSize base
// values (MinBatchSize: several call times): a batch shorter than a call
// of several ops cuts through the callers' calls, and the lag-1 test of
// ten such means too rarely sees the dependence. With fewer than
// MinBatches batches of minSize the interval is not OK, its BatchSize
// minSize.
func BatchMeansFrom(xs []float64, confidence float64, minSize int) Interval {
	minSize = max(minSize, 1)
	iv := Interval{BatchSize: minSize, Batches: len(xs) / minSize}
	for size := minSize; len(xs)/size >= MinBatches; size *= 2 {
		means := batch(xs, size)
		if means == nil {
			return Interval{}
		}
		iv = Interval{OK: true, BatchSize: size, Batches: len(means), Mean: stats.Mean(means), Lag1: Lag1(means)}
		iv.HalfWidth = halfWidth(means, confidence)
		iv.Independent = lag1Small(iv.Lag1, iv.Batches)
		if iv.Independent {
			return iv
		}
	}
	return iv
}

// batch averages xs in non-overlapping batches of size (a trailing partial
// batch left out); nil when a value is not finite.
func batch(xs []float64, size int) []float64 {
	out := make([]float64, len(xs)/size)
	for i := range out {
		var s float64
		for _, v := range xs[i*size : (i+1)*size] {
			s += v
		}
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil
		}
		out[i] = s / float64(size)
	}
	return out
}

// halfWidth is the Student t half-width of the mean of means.
func halfWidth(means []float64, confidence float64) float64 {
	n := float64(len(means))
	v := stats.Variance(means)
	if v == 0 {
		return 0
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-confidence)/2)
	return q * math.Sqrt(v/n)
}

// Lag1 is the lag-1 sample autocorrelation of xs (the usual estimator:
// lag-1 autocovariance over the variance, both with divisor n); 0 when xs
// has no spread, NaN for fewer than three values.
func Lag1(xs []float64) float64 {
	if len(xs) < 3 {
		return math.NaN()
	}
	m := stats.Mean(xs)
	var num, den float64
	for i, v := range xs {
		den += (v - m) * (v - m)
		if i > 0 {
			num += (v - m) * (xs[i-1] - m)
		}
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// CallTimesPerBatch is the fewest mean call times a batch mean spans.
// Closed-loop callers of a call of several ops (the API call: two finds
// and an update) end their calls in waves about a call time apart, so a
// batch of one call time or less swings with the wave it cuts; a batch of
// several call times holds several whole waves, and its neighbours share
// at most the one the boundary cuts.
const CallTimesPerBatch = 3

// MinBatchSize is the fewest base values of batchS seconds a batch mean
// holds when the mean call time is callS seconds: CallTimesPerBatch call
// times, at least one base value. A call time not known (no call ended:
// callS not positive and finite) gives 0: not known.
func MinBatchSize(callS, batchS float64) int {
	if !(callS > 0) || math.IsInf(callS, 0) || !(batchS > 0) {
		return 0
	}
	return max(1, int(math.Ceil(CallTimesPerBatch*callS/batchS-1e-9)))
}

// CallTime is the mean call time, in seconds, of workers closed-loop
// callers that completed calls calls in seconds s (Little's law: each
// caller is always in a call); +Inf when no call completed.
func CallTime(workers int, calls float64, s float64) float64 {
	if calls <= 0 || workers <= 0 || !(s > 0) {
		return math.Inf(1)
	}
	return float64(workers) * s / calls
}

// End says why a window ended (or that it goes on).
type End string

// Ends of a window.
const (
	EndContinue  End = ""             // not yet
	EndPrecision End = "precision"    // the interval is within the precision
	EndMax       End = "max-duration" // the longest window allowed ran out first
	// EndOutOfReach: even at the longest window allowed the half-width
	// would stay over ReachFactor times the precision (reach.go).
	EndOutOfReach End = "precision-out-of-reach"
	// EndOverloaded: an open-loop target did not keep up with the offered
	// rate; its queue, and the corrected latency, kept growing (open.go).
	EndOverloaded End = "overloaded"
	EndFixed      End = "fixed"        // a fixed --duration
	EndMaxWarmup  End = "max-warmup"   // warm-up: no truncation point within the maximum
	EndSettled    End = "settled"      // warm-up: MSER-5 found the transient's end
	EndWarmFixed  End = "fixed-warmup" // warm-up: a fixed --warmup
)

// WindowRule ends an auto window: when its throughput's half-width is
// within Precision of the mean, with at least MinValues base batches (the
// minimum duration) and MinCalls calls (so that p99 rests on enough calls);
// past those, as out of reach once even the half-width projected at
// MaxValues stays over ReachFactor times the precision (OutOfReach); or at
// MaxValues base batches whatever the precision.
type WindowRule struct {
	Precision  float64 // relative half-width, e.g. 0.02
	Confidence float64 // e.g. 0.95
	MinValues  int
	MaxValues  int
	MinCalls   int64
	// MinBatchSize is the fewest base values a batch mean holds
	// (MinBatchSize of the step's call time); 0 or 1: any.
	MinBatchSize int
}

// Decide is the rule's answer after the base batches xs (calls or ops per
// base batch) holding calls calls in all: the interval so far, and whether
// and why the window ends now. A window without MinBatches means of
// MinBatchSize goes on (to the maximum at the latest): it holds too few
// independent batches for any interval.
func (w WindowRule) Decide(xs []float64, calls int64) (Interval, End) {
	iv := BatchMeansFrom(xs, w.Confidence, w.MinBatchSize)
	switch {
	case len(xs) >= w.MaxValues:
		return iv, EndMax
	case len(xs) < w.MinValues || calls < w.MinCalls:
		return iv, EndContinue
	case iv.OK && iv.Independent && iv.Relative() <= w.Precision:
		return iv, EndPrecision
	}
	if out, _ := OutOfReach(iv, w.MaxValues, w.Precision, w.Confidence); out {
		return iv, EndOutOfReach
	}
	return iv, EndContinue
}

// WarmupRule ends an auto warm-up: once MSER-5 over the rate series so far
// finds a truncation point strictly inside its first half, after at least
// MinValues base batches; or, unsettled, at MaxValues.
type WarmupRule struct {
	MinValues int
	MaxValues int
}

// Decide is the rule's answer after the base batches xs.
func (w WarmupRule) Decide(xs []float64) (Truncation, End) {
	tr := mser5(xs)
	switch {
	case len(xs) < w.MinValues:
		return tr, EndContinue
	case tr.Settled:
		return tr, EndSettled
	case len(xs) >= w.MaxValues:
		return tr, EndMaxWarmup
	}
	return tr, EndContinue
}
