package threshold

import (
	"fmt"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Evaluate judges every threshold against the run's one analysis a (the
// series and their knees) and the step records of rs (the values).
//
// A threshold is checked in every series; it passes only when every check
// passes. The rules:
//   - @every: every measured step (not interrupted, the target did not
//     fail, every agent took part), closed and open loop; the worst step
//     of each series is its check.
//   - @LEVEL and @knee: the closed-loop series' level (the knee's, for
//     @knee), as the median of its trials' values, the way the analysis
//     reports a level.
//   - knee: the series' knee concurrency.
//
// A threshold that cannot be evaluated fails, with a note saying why: a
// level a series did not measure, a series without a knee, a run with no
// closed-loop series for @LEVEL, @knee or knee, no measured step at all,
// a latency threshold on a step in which no call ended.
func Evaluate(ts []Threshold, rs []*results.Results, a *analysis.Analysis) []results.ThresholdOutcome {
	var steps []*results.StepResult
	for _, r := range rs {
		for i := range r.Steps {
			st := &r.Steps[i]
			if st.Measured() && !st.Partial {
				steps = append(steps, st)
			}
		}
	}
	out := make([]results.ThresholdOutcome, 0, len(ts))
	for _, t := range ts {
		var checks []results.ThresholdCheck
		switch {
		case t.Metric == Knee:
			checks = kneeChecks(t, a)
		case t.Where == every:
			checks = everyChecks(t, steps)
		default:
			checks = levelChecks(t, a, steps)
		}
		o := results.ThresholdOutcome{Threshold: t.Text, Pass: len(checks) > 0, Unit: t.unit(), Checks: checks}
		for _, c := range checks {
			o.Pass = o.Pass && c.Pass
		}
		out = append(out, o)
	}
	return out
}

// check is a check of value v (nil: not evaluated, note says why).
func check(t Threshold, series string, v *float64, note string) results.ThresholdCheck {
	c := results.ThresholdCheck{Series: series, Value: v, Note: note}
	c.Pass = v != nil && t.holds(*v)
	return c
}

// noSeries is the failed check of a threshold that needs a closed-loop
// series when the run has none.
func noSeries(t Threshold) []results.ThresholdCheck {
	return []results.ThresholdCheck{check(t, "", nil, "no closed-loop series: an open-loop run has no concurrency levels or knee")}
}

func kneeChecks(t Threshold, a *analysis.Analysis) []results.ThresholdCheck {
	if len(a.Series) == 0 {
		return noSeries(t)
	}
	var checks []results.ThresholdCheck
	for _, r := range a.Series {
		name := reportName(&r)
		if !r.Knee.Found {
			checks = append(checks, check(t, name, nil, "no knee found within the tested range"))
			continue
		}
		v := float64(r.Knee.Concurrency)
		c := check(t, name, &v, "")
		c.Concurrency = r.Knee.Concurrency
		checks = append(checks, c)
	}
	return checks
}

func levelChecks(t Threshold, a *analysis.Analysis, steps []*results.StepResult) []results.ThresholdCheck {
	if len(a.Series) == 0 {
		return noSeries(t)
	}
	var checks []results.ThresholdCheck
	for _, r := range a.Series {
		name := reportName(&r)
		level := t.Level
		if t.Where == atKnee {
			if !r.Knee.Found {
				checks = append(checks, check(t, name, nil, "no knee found within the tested range"))
				continue
			}
			level = r.Knee.Concurrency
		}
		var vals []float64
		trials := 0
		var why string
		for _, st := range steps {
			if !inSeries(st, &r) || st.Concurrency != level || !knee.OnCurve(st) {
				continue
			}
			trials++
			v, ok, w := value(t, st)
			if !ok {
				why = w
				continue
			}
			vals = append(vals, v)
		}
		var c results.ThresholdCheck
		switch {
		case trials == 0:
			c = check(t, name, nil, fmt.Sprintf("concurrency %d was not measured", level))
		case len(vals) == 0:
			c = check(t, name, nil, why)
		default:
			m := stats.Median(vals)
			c = check(t, name, &m, "")
		}
		c.Concurrency, c.Trials = level, len(vals)
		checks = append(checks, c)
	}
	return checks
}

func everyChecks(t Threshold, steps []*results.StepResult) []results.ThresholdCheck {
	if len(steps) == 0 {
		return []results.ThresholdCheck{check(t, "", nil, "no measured step")}
	}
	var order []string
	worst := map[string]results.ThresholdCheck{}
	for _, st := range steps {
		name := stepSeries(st)
		prev, seen := worst[name]
		if !seen {
			order = append(order, name)
		}
		v, ok, why := value(t, st)
		c := check(t, name, nil, why)
		if ok {
			c = check(t, name, &v, "")
		}
		c.Concurrency, c.Trial, c.Rate = st.Concurrency, st.Trial, st.Rate
		if !seen || worse(t, c, prev) {
			worst[name] = c
		}
	}
	checks := make([]results.ThresholdCheck, len(order))
	for i, n := range order {
		checks[i] = worst[n]
	}
	return checks
}

// worse says whether check c is worse than prev: not evaluated beats
// evaluated, then the value furthest on the wrong side.
func worse(t Threshold, c, prev results.ThresholdCheck) bool {
	switch {
	case prev.Value == nil:
		return false
	case c.Value == nil:
		return true
	case t.lowerIsBetter():
		return *c.Value > *prev.Value
	}
	return *c.Value < *prev.Value
}

// value is the threshold's metric in step st; ok false (and why) when the
// step cannot say.
func value(t Threshold, st *results.StepResult) (v float64, ok bool, why string) {
	switch t.Metric {
	case Ops:
		return st.OpsPerS, true, ""
	case calls:
		return st.CallsPerS, true, ""
	case p50, p99:
		if st.Calls == 0 {
			return 0, false, fmt.Sprintf("no call ended in the window at concurrency %d (trial %d): no latency to judge", st.Concurrency, st.Trial)
		}
		if t.Metric == p50 {
			return st.Latency.P50, true, ""
		}
		return st.Latency.P99, true, ""
	case poolWait:
		return st.Pool.CheckoutWait.P99, true, ""
	case Connections:
		return float64(st.Connections), true, ""
	case Errors:
		if t.Share {
			return 100 * st.FailedShare(), true, ""
		}
		return float64(st.Errors.Total()), true, ""
	}
	return 0, false, "not a step metric"
}

// inSeries says whether st belongs to the analysis's series r.
func inSeries(st *results.StepResult, r *knee.Report) bool {
	return st.Target == r.Target && st.Workload == r.Workload && st.PoolSetting == r.Pool && max(st.Clients, 1) == max(r.Clients, 1)
}

// reportName names a closed-loop series: "sim read pool=match".
func reportName(r *knee.Report) string {
	return seriesName(r.Target, r.Workload, r.Pool, r.Clients, false)
}

// stepSeries names the series of a step.
func stepSeries(st *results.StepResult) string {
	return seriesName(st.Target, st.Workload, st.PoolSetting, st.Clients, st.Mode == results.ModeOpen)
}

func seriesName(target, workload, pool string, clients int, open bool) string {
	s := textfmt.Escape(target)
	if workload != "" {
		s += " " + textfmt.Escape(workload)
	}
	s += " pool=" + textfmt.Escape(pool)
	if clients > 1 {
		s += fmt.Sprintf(" clients=%d", clients)
	}
	if open {
		s += " open loop"
	}
	return s
}
