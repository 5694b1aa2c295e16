// Package compare sets two runs side by side, step by step (the A/B of a
// server setting or a topology): it pairs the steps of a baseline and a
// candidate, compares throughput, latency, CPU and errors across trials
// with rank statistics in the style of benchstat, and words a verdict per
// workload. It reads decoded results and never prints; the Write*
// functions render to a passed io.Writer (the curve comparisons through
// analysis/render, the one renderer of the deployment verdict).
package compare

import (
	"errors"
	"fmt"

	"github.com/poolsweep/poolsweep/analysis/curves"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// DefaultAlpha is the significance level when Options.Alpha is zero.
const DefaultAlpha = 0.05

// errNothingToCompare is returned (wrapped, with the reason) when no step of
// the baseline has a partner in the candidate.
var errNothingToCompare = errors.New("nothing to compare")

// Options control matching and statistics. The zero value compares two
// files with alpha = 0.05.
type Options struct {
	// Baseline and Candidate name two targets to compare; both or neither.
	// With them, the baseline steps are those of target Baseline in the
	// baseline results and the candidate steps those of target Candidate in
	// the candidate results, which may be the same file (--baseline a
	// --candidate b on one results file). Names that are no target but two
	// values of one series axis (results.ParseAxisValue: "w1" and
	// "majority", "primary" and "secondaryPreferred") pick the steps run
	// with each value instead, paired across the rest of their label.
	Baseline, Candidate string
	// Alpha is the significance level of the two-sided tests and sets the
	// confidence of the intervals (1 − Alpha); 0 means DefaultAlpha.
	Alpha float64
	// MinEffectPct, when > 0, reports statistically significant differences
	// smaller than this many percent as no change: on a drifting machine a
	// real but tiny difference is usually the machine, not the setting.
	MinEffectPct float64
	// RunNoisePct is the between-run noise floor of a step's throughput,
	// one standard deviation in percent, that a comparison of two runs
	// adds to each side's batch-means variance (batchmeans.go); nil means
	// the floor of the noisiest server kind compared (steady.RunNoisePct:
	// embedded FerretDB 12%, else 3%), and 0 no floor. It does not apply
	// within one run.
	RunNoisePct *float64

	// withinRun is set by Match: both sides come from one run.
	withinRun bool
	// kindFloor is set by Match: the floor of the server kinds compared.
	kindFloor float64
}

// status of one metric's comparison.
type status string

// Metric statuses.
const (
	statusChanged     status = "changed"     // significant at Alpha
	statusNoChange    status = "no_change"   // tested, inside the noise ("~")
	StatusUnconfirmed status = "unconfirmed" // fewer than minTrials trials on a side: not tested
	statusOneSided    status = "one_sided"   // measured on one side only
)

// Comparison is the result of Match: matched steps with their metrics, the
// steps left without a partner, and a verdict per workload.
type Comparison struct {
	Baseline     sideInputs
	Candidate    sideInputs
	Alpha        float64
	MinEffectPct float64
	// WithinRun says both sides come from one run (one run ID): their
	// steps are independent measurements of one time and place, and a
	// one-trial test needs no between-run noise floor. RunNoisePct is the
	// floor used otherwise.
	WithinRun   bool
	RunNoisePct float64
	// Axis, in an A/B over a series axis, is that axis; each side's
	// Series names its value.
	Axis      results.Axis
	Steps     []*Step
	Unmatched []unmatchedStep
	Verdicts  []verdict
	// Trials, when some step's throughput was left undecided, says which
	// sweep would decide it and how long it takes; nil otherwise.
	Trials *trialsNote
	// Curves compare the two sides curve against curve (peak against
	// peak, knee against knee, latency at matched throughput) when they
	// are different targets or two values of a series axis: a cluster and
	// a single node reach their knees at different concurrency, so the
	// steps paired at equal concurrency do not answer which deployment is
	// better. Nil for two runs of one target (an A/B of a setting).
	Curves []*curves.Comparison
	// Notes are remarks about the inputs (ignored interrupted steps, ...).
	Notes []string

	axisValues [2]string // baseline's and candidate's value on Axis
}

// sideInputs describes the inputs of one side of the comparison.
type sideInputs struct {
	Files   []string
	RunIDs  []string
	Targets []string // targets whose steps were used
	Steps   int      // step records used (trials included)
	// Series is the side's value on Comparison.Axis ("" when the sides
	// are targets or files).
	Series string
}

// Step is one matched (target role, workload, concurrency, pool, clients):
// each side's trials are its samples.
type Step struct {
	// Target labels the role: the target name, or "a → b" when the two
	// sides' targets are named differently.
	Target          string
	BaselineTarget  string
	CandidateTarget string
	Workload        string
	// Class is classReadOnly, classWriteOnly, classMixed or "" from the op
	// types both sides issued.
	Class           string
	Concurrency     int
	Pool            string
	Clients         int
	Rate            int // an open-loop step's offered calls/s; 0 in closed loop
	BaselineTrials  int
	CandidateTrials int
	// Metrics holds every name in metricNames; nil when measured on neither
	// side.
	Metrics map[string]*metricComparison

	role   string   // the stepKey role, for ordering
	counts opCounts // ops by class over both sides' trials
}

// metricComparison compares one measure of a step. Pointers are nil where a value
// does not exist (not measured, baseline zero for a percentage, no test).
type metricComparison struct {
	Name       string
	Unit       string
	Baseline   *float64 // median across baseline trials
	Candidate  *float64 // median across candidate trials
	BaselineN  int      // trials measuring it
	CandidateN int
	// BaselineSpreadPct and CandidateSpreadPct are half the range of the
	// trials relative to the median, in %: a plain noise gauge.
	BaselineSpreadPct  *float64
	CandidateSpreadPct *float64
	Delta              *float64 // Candidate − Baseline, in Unit (points for CPU)
	DeltaPct           *float64 // Delta relative to Baseline, in %
	// CILow..CIHigh is the confidence interval of the change in Unit, and
	// CILowPct..CIHighPct the same relative to Baseline in %. For positive
	// metrics it is computed on log values, i.e. for candidate/baseline − 1.
	CILow, CIHigh       *float64
	CILowPct, CIHighPct *float64
	Confidence          *float64 // achieved confidence of the interval
	PValue              *float64
	Method              string // methodMannWhitney, methodWelch, MethodBatchWelch or ""
	Significant         bool
	// NeedsTrials marks a one-trial throughput test across two runs that
	// the windows alone would call significant but the between-run noise
	// floor does not: trials would decide it.
	NeedsTrials bool
	// HostStarved marks a metric left untested because a side's load
	// host was starved at the step (Note says which and why).
	HostStarved bool
	Status      status
	Note        string
}

// unmatchedStep is a step of one side with no partner on the other.
type unmatchedStep struct {
	Side        string // "baseline" or "candidate"
	Target      string
	Workload    string
	Concurrency int
	Pool        string
	Clients     int
	Trials      int
	Reason      string
	Rate        int // open loop; 0 in closed loop
}

// Match pairs the steps of the baseline and candidate results and compares
// them. Steps pair on (target role, workload, concurrency, pool setting,
// clients); trials are the samples. When each side has one target they
// pair whatever their names; with several, by name; Options.Baseline and
// Options.Candidate pick two targets instead. It returns an error wrapping
// errNothingToCompare, with the reason in one line, when no step pairs.
func Match(base, cand []*results.Results, o Options) (*Comparison, error) {
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return nil, fmt.Errorf("alpha %g is not between 0 and 1", o.Alpha)
	}
	if (o.Baseline == "") != (o.Candidate == "") {
		return nil, errors.New("--baseline and --candidate name two targets and go together")
	}
	if len(base) == 0 || len(cand) == 0 {
		return nil, errors.New("compare needs baseline and candidate results")
	}
	if p := o.RunNoisePct; p != nil && !(*p >= 0 && *p <= 100) {
		return nil, fmt.Errorf("run noise %g%% is not between 0 and 100", *p)
	}
	cmp := &Comparison{Alpha: o.Alpha, MinEffectPct: o.MinEffectPct}

	bAll, bNotes := collect(base)
	cAll, cNotes := collect(cand)
	cmp.Notes = append(bNotes, cNotes...)
	if o.Baseline != "" && o.Baseline == o.Candidate && sameFiles(base, cand) {
		return nil, fmt.Errorf("--baseline and --candidate both name %s: nothing to compare", textfmt.Token(o.Baseline))
	}

	byRole := false
	var axis results.Axis
	var values [2]string
	if o.Baseline != "" {
		var err error
		axis, values, err = axisSides(bAll, cAll, o)
		if err != nil {
			return nil, err
		}
		switch {
		case axis != "":
			if bAll, err = pickAxis(bAll, axis, values[0], "baseline", base); err != nil {
				return nil, err
			}
			if cAll, err = pickAxis(cAll, axis, values[1], "candidate", cand); err != nil {
				return nil, err
			}
			byRole = len(targetsOf(bAll)) > 1 || len(targetsOf(cAll)) > 1
		default:
			if bAll, err = pickTarget(bAll, o.Baseline, "baseline", base); err != nil {
				return nil, err
			}
			if cAll, err = pickTarget(cAll, o.Candidate, "candidate", cand); err != nil {
				return nil, err
			}
		}
	} else {
		bt, ct := targetsOf(bAll), targetsOf(cAll)
		byRole = len(bt) > 1 || len(ct) > 1
	}
	for _, x := range []struct {
		steps []*results.StepResult
		rs    []*results.Results
		name  string
	}{{bAll, base, "baseline"}, {cAll, cand, "candidate"}} {
		if len(x.steps) == 0 {
			return nil, fmt.Errorf("%w: %s %s has no finished steps", errNothingToCompare, x.name, shown(paths(x.rs)))
		}
	}

	b := group("baseline", base, bAll, byRole, axis)
	c := group("candidate", cand, cAll, byRole, axis)
	cmp.Baseline = describe(base, bAll)
	cmp.Candidate = describe(cand, cAll)
	o.withinRun = oneRun(cmp.Baseline, cmp.Candidate)
	o.kindFloor = kindFloor(base, cand, cmp.Baseline, cmp.Candidate)
	cmp.WithinRun, cmp.RunNoisePct = o.withinRun, o.runNoise()
	if axis != "" {
		cmp.Axis = axis
		cmp.Baseline.Series, cmp.Candidate.Series = results.AxisText(axis, values[0]), results.AxisText(axis, values[1])
		cmp.axisValues = values
	}

	for _, k := range b.keys {
		if _, ok := c.steps[k]; !ok {
			cmp.Unmatched = append(cmp.Unmatched, unmatched(b, c, k, byRole))
			continue
		}
		cmp.Steps = append(cmp.Steps, buildStep(k, b, c, o))
	}
	for _, k := range c.keys {
		if _, ok := b.steps[k]; !ok {
			cmp.Unmatched = append(cmp.Unmatched, unmatched(c, b, k, byRole))
		}
	}
	cmp.Curves = curvesOf(base, cand, cmp, o)
	if len(cmp.Steps) == 0 && len(cmp.Curves) == 0 {
		why := "no step pairs on target, workload, concurrency, pool and clients"
		if len(cmp.Unmatched) > 0 {
			why = cmp.Unmatched[0].Reason
		}
		return nil, fmt.Errorf("%w between %s and %s: %s", errNothingToCompare,
			shown(paths(base)), shown(paths(cand)), why)
	}
	if len(cmp.Steps) == 0 {
		cmp.Notes = append(cmp.Notes, "no step pairs at equal concurrency: the sides are compared curve against curve only")
	}
	sortSteps(cmp.Steps, b.keys)
	cmp.Verdicts = verdicts(cmp)
	cmp.Trials = trialsAdvice(cmp, b, c)
	return cmp, nil
}

// oneRun says both sides come from the same single run: the same run ID
// (one file, or the agents' files of one run).
func oneRun(b, c sideInputs) bool {
	return len(b.RunIDs) == 1 && len(c.RunIDs) == 1 && b.RunIDs[0] == c.RunIDs[0]
}

// curvesOf compares the sides curve against curve when they are two
// targets (named by --baseline and --candidate, or each side's only
// target, named differently) or two values of a series axis; nil for two
// runs of one target.
func curvesOf(base, cand []*results.Results, c *Comparison, o Options) []*curves.Comparison {
	var bp, cp curves.Pick
	switch {
	case c.Axis != "":
		bp = curves.Pick{Axis: c.Axis, Value: c.axisValues[0], Name: axisName(c.Axis, c.axisValues[0])}
		cp = curves.Pick{Axis: c.Axis, Value: c.axisValues[1], Name: axisName(c.Axis, c.axisValues[1])}
	case o.Baseline != "":
		bp, cp = curves.Pick{Target: o.Baseline, Name: o.Baseline}, curves.Pick{Target: o.Candidate, Name: o.Candidate}
	case len(c.Baseline.Targets) == 1 && len(c.Candidate.Targets) == 1 && c.Baseline.Targets[0] != c.Candidate.Targets[0]:
		bt, ct := c.Baseline.Targets[0], c.Candidate.Targets[0]
		bp, cp = curves.Pick{Target: bt, Name: bt}, curves.Pick{Target: ct, Name: ct}
	default:
		return nil
	}
	return curves.Between(base, cand, sameFiles(base, cand), bp, cp, knee.DefaultOptions(), c.Alpha, o.runNoise())
}

// axisName names a side of an A/B over a series axis in a verdict:
// "secondaryPreferred", "w:majority".
func axisName(a results.Axis, v string) string {
	if a == results.AxisWriteConcern {
		return "w:" + v
	}
	return v
}
