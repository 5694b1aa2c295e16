package compare

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/analysis/steady"
	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/results"
)

// One trial per level. Auto windows measure a level once, and
// a window that ended by precision carries the batch-means interval of its
// throughput (results.StepSteady). Two such steps are independent
// measurements with their own standard errors and degrees of freedom, so
// a difference of their means is a real test: Welch's, on the log of the
// throughput, with each side's variance from its batch means.
//
// Within one run that is the whole story. Across two runs it is not: a
// restart, a cold cache or another tenant moves a whole run, and no window
// sees it. Such a comparison adds a between-run noise floor, the standard
// deviation of one run's level about the truth (Options.RunNoisePct), to
// each side's variance, so that only a change large against it is called
// significant; smaller ones are sent to trials.

// MethodBatchWelch is Welch's t-test on the steps' batch means: used for
// throughput when a side has fewer than minTrials trials and every step
// of both sides has its own batch-means interval.
const MethodBatchWelch = "welch-t-batch-means"

// DefaultRunNoisePct is the between-run noise floor of a step's
// throughput, in percent (one standard deviation), when Options leave it
// unset (steady.DefaultRunNoisePct, where it is measured).
const DefaultRunNoisePct = steady.DefaultRunNoisePct

// batchSide is one side's throughput from its steps' batch means, on the
// log scale: the mean of the steps' log ops/s, its variance and the
// variance's degrees of freedom.
type batchSide struct {
	logMean  float64
	variance float64
	df       float64
	trials   int
}

// batchSideOf summarises one side's trials of a step by their batch means;
// ok is false unless every trial has a precise interval (steady.StdErr).
// With several trials the variance is the larger of the within-window one
// and the trials' own spread, so that drift between trials is not hidden.
// A trial whose load host was starved (bound.ClientLimited) is no
// measurement of the server: the host's own drift moves the whole window,
// which its batch means cannot see. starved then says why, and ok is false.
func batchSideOf(steps []*results.StepResult) (b batchSide, starved string, ok bool) {
	if len(steps) == 0 {
		return batchSide{}, "", false
	}
	for _, s := range steps {
		if limited, why := bound.ClientLimited(s); limited {
			return batchSide{}, why, false
		}
	}
	logs := make([]float64, 0, len(steps))
	var within, dfDen float64
	for _, s := range steps {
		mean, hw, batches, ok := s.Steady.ThroughputInterval()
		if !ok || !(s.OpsPerS > 0) {
			return batchSide{}, "", false
		}
		se, df, ok := steady.StdErr(hw, batches, s.Steady.Confidence)
		if !ok {
			return batchSide{}, "", false
		}
		// On the log scale the relative variance is the variance.
		rel := se / mean
		v := rel * rel
		within += v
		dfDen += v * v / df
		logs = append(logs, math.Log(s.OpsPerS))
	}
	n := float64(len(steps))
	b = batchSide{logMean: stats.Mean(logs), trials: len(steps)}
	// The mean of n independent logs: variance Σv/n²; its degrees of
	// freedom by Welch–Satterthwaite.
	b.variance = within / (n * n)
	if dfDen > 0 {
		b.df = within * within / dfDen
	} else {
		b.df = math.Inf(1)
	}
	if len(steps) >= 2 {
		if between := stats.Variance(logs) / n; between > b.variance {
			b.variance, b.df = between, n-1
		}
	}
	return b, "", true
}

// batchTest is the throughput test of one matched step by batch means.
// floor is the between-run noise floor as a relative standard deviation
// (0 within one run); it is added to both sides and taken as known.
type batchTest struct {
	testResult
	// withinOnly is the same test without the floor: whether the windows
	// alone would have called it significant.
	withinOnlySignificant bool
}

func batchWelch(b, c batchSide, floor, alpha float64) batchTest {
	diff := c.logMean - b.logMean
	run := 2 * floor * floor
	t := batchTest{testResult: tTest(diff, b.variance, b.df, c.variance, c.df, run, alpha)}
	if run > 0 {
		w := tTest(diff, b.variance, b.df, c.variance, c.df, 0, alpha)
		t.withinOnlySignificant = w.p < alpha && (w.lo > 0 || w.hi < 0)
	}
	return t
}

// tTest is Welch's test of a difference diff whose variance is vb + vc +
// known (known having infinite degrees of freedom), with its 1 − alpha
// interval.
func tTest(diff, vb, dfb, vc, dfc, known, alpha float64) testResult {
	r := testResult{method: MethodBatchWelch, confidence: 1 - alpha, hasCI: true}
	se2 := vb + vc + known
	if se2 == 0 {
		r.lo, r.hi = diff, diff
		if diff == 0 {
			r.p = 1
		}
		return r
	}
	den := 0.0
	if dfb > 0 && !math.IsInf(dfb, 1) {
		den += vb * vb / dfb
	}
	if dfc > 0 && !math.IsInf(dfc, 1) {
		den += vc * vc / dfc
	}
	df := math.Inf(1)
	if den > 0 {
		df = se2 * se2 / den
	}
	se := math.Sqrt(se2)
	var dist interface {
		Survival(float64) float64
		Quantile(float64) float64
	} = distuv.UnitNormal
	if !math.IsInf(df, 1) && df < 1e6 {
		dist = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	}
	r.p = math.Min(1, 2*dist.Survival(math.Abs(diff)/se))
	q := dist.Quantile(1 - alpha/2)
	r.lo, r.hi = diff-q*se, diff+q*se
	return r
}

// batchMetric tests a throughput metric by batch means in place of
// "unconfirmed" when both sides' steps carry intervals. It returns false
// when they do not, leaving m as it was but for a note when a side's load
// host was starved.
func batchMetric(m *metricComparison, bs, cs []*results.StepResult, o Options) bool {
	b, whyB, okB := batchSideOf(bs)
	c, whyC, okC := batchSideOf(cs)
	if !okB || !okC {
		m.HostStarved = whyB != "" || whyC != ""
		switch {
		case whyB != "":
			m.Note = "not tested: the baseline's load host was starved (" + whyB + ")"
		case whyC != "":
			m.Note = "not tested: the candidate's load host was starved (" + whyC + ")"
		}
		return false
	}
	floor := 0.0
	if !o.withinRun {
		floor = o.runNoise() / 100
	}
	t := batchWelch(b, c, floor, o.Alpha)
	base := *m.Baseline
	m.Method = t.method
	m.PValue = ptr(t.p)
	m.Confidence = ptr(t.confidence)
	m.CILowPct, m.CIHighPct = ptr(math.Expm1(t.lo)*100), ptr(math.Expm1(t.hi)*100)
	m.CILow, m.CIHigh = ptr(base*math.Expm1(t.lo)), ptr(base*math.Expm1(t.hi))
	m.Note = ""
	m.decide(t.testResult, o)
	if !m.Significant && t.withinOnlySignificant {
		m.NeedsTrials = true
		m.Note = fmt.Sprintf("the windows alone would call it significant, but across two runs it is inside the %s%% between-run noise floor", trimFloat(o.runNoise()))
	}
	return true
}

// runNoise is the between-run noise floor in percent: the one asked for,
// else the floor of the noisiest server kind compared (kindFloor, set by
// Match), else the default.
func (o Options) runNoise() float64 {
	switch {
	case o.RunNoisePct != nil:
		return *o.RunNoisePct
	case o.kindFloor > 0:
		return o.kindFloor
	}
	return DefaultRunNoisePct
}

// kindFloor is the largest between-run floor of the server kinds (the
// headers' server_kind) of the targets whose steps are compared: embedded
// FerretDB varies far more from run to run than a simulator does.
func kindFloor(base, cand []*results.Results, b, c sideInputs) float64 {
	floor := 0.0
	for _, x := range []struct {
		rs      []*results.Results
		targets []string
	}{{base, b.Targets}, {cand, c.Targets}} {
		for _, r := range x.rs {
			for _, t := range r.Header.Targets {
				if slices.Contains(x.targets, t.Name) {
					floor = math.Max(floor, steady.RunNoisePct(t.ServerKind))
				}
			}
		}
	}
	return floor
}
