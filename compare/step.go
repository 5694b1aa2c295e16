package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/internal/stats/twosample"
	"github.com/poolsweep/poolsweep/results"
)

// buildStep compares one matched step: every metric of metricNames over
// both sides' trials, and the op-type class of what both sides issued.
func buildStep(k stepKey, b, c *side, o Options) *Step {
	bs, cs := b.steps[k], c.steps[k]
	st := &Step{
		BaselineTarget: b.target[k.role], CandidateTarget: c.target[k.role],
		Workload: k.workload, Concurrency: k.c, Pool: k.pool, Clients: k.k, Rate: k.rate,
		BaselineTrials: len(bs), CandidateTrials: len(cs),
		Metrics: map[string]*metricComparison{},
		role:    k.role,
	}
	st.Target = st.BaselineTarget
	if st.CandidateTarget != st.BaselineTarget {
		st.Target = st.BaselineTarget + " → " + st.CandidateTarget
	}
	var counts opCounts
	for _, s := range append(slices.Clone(bs), cs...) {
		counts.add(s)
	}
	st.Class, st.counts = counts.class(), counts
	for _, name := range metricNames {
		st.Metrics[name] = buildMetric(metricDefs[name], bs, cs, o)
	}
	return st
}

func values(def metricDef, steps []*results.StepResult) []float64 {
	var out []float64
	for _, s := range steps {
		if v, ok := def.extract(s); ok && !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	return out
}

func ptr(v float64) *float64 { return &v }

// summary is the center and spread of one side's trials, the way every
// package summarises trials (internal/stats).
func summary(xs []float64) (center, spreadPct *float64) {
	s := stats.Summarize(xs)
	center = ptr(s.Center)
	if sp := s.SpreadPct(); !math.IsNaN(sp) {
		spreadPct = ptr(sp)
	}
	return center, spreadPct
}

func buildMetric(def metricDef, bs, cs []*results.StepResult, o Options) *metricComparison {
	xs, ys := values(def, bs), values(def, cs)
	if len(xs) == 0 && len(ys) == 0 {
		return nil
	}
	m := &metricComparison{Name: def.name, Unit: def.unit, BaselineN: len(xs), CandidateN: len(ys)}
	if len(xs) > 0 {
		m.Baseline, m.BaselineSpreadPct = summary(xs)
	}
	if len(ys) > 0 {
		m.Candidate, m.CandidateSpreadPct = summary(ys)
	}
	switch {
	case len(xs) == 0:
		m.Status, m.Note = statusOneSided, "not measured in the baseline"
		return m
	case len(ys) == 0:
		m.Status, m.Note = statusOneSided, "not measured in the candidate"
		return m
	}
	base := *m.Baseline
	m.Delta = ptr(*m.Candidate - base)
	if base != 0 {
		m.DeltaPct = ptr(*m.Delta / math.Abs(base) * 100)
	}
	if len(xs) < minTrials || len(ys) < minTrials {
		if def.name == OpsPerS && batchMetric(m, bs, cs, o) {
			return m
		}
		m.Status = StatusUnconfirmed
		if m.Note != "" {
			return m // batchMetric said why it could not test
		}
		m.Note = fmt.Sprintf("%d+%d trials: at least %d per side are needed to test a difference", len(xs), len(ys), minTrials)
		return m
	}

	// Positive metrics are compared on log values, so the interval is for
	// the ratio candidate/baseline; others (zero errors, 0% CPU) on the
	// plain difference.
	logScale := twosample.LogScale(xs, ys)
	tx, ty := xs, ys
	if logScale {
		tx, ty = twosample.Logs(xs), twosample.Logs(ys)
	}
	r := compareSamples(tx, ty, o.Alpha)
	m.Method = r.method
	m.PValue = ptr(r.p)
	if r.hasCI {
		m.Confidence = ptr(r.confidence)
		if logScale {
			m.CILowPct, m.CIHighPct = ptr(math.Expm1(r.lo)*100), ptr(math.Expm1(r.hi)*100)
			m.CILow, m.CIHigh = ptr(base*math.Expm1(r.lo)), ptr(base*math.Expm1(r.hi))
		} else {
			m.CILow, m.CIHigh = ptr(r.lo), ptr(r.hi)
			if base != 0 {
				m.CILowPct, m.CIHighPct = ptr(r.lo/math.Abs(base)*100), ptr(r.hi/math.Abs(base)*100)
			}
		}
	}
	m.decide(r, o)
	if def.name == OpsPerS {
		m.belowResolution(bs, cs)
	}
	return m
}

// belowResolution takes back a throughput change smaller than one op in
// the shortest window compared: a trial's ops/s is a count over its
// window, so a difference of a fraction of an op per window is the
// count's rounding and the windows' timing, never the server's. Seen on
// one simulator spec in two processes: 5 trials a side of about 160 ops,
// all a fraction of an op apart (−0.1%, p=0.008), which ranks alone call
// significant.
func (m *metricComparison) belowResolution(bs, cs []*results.StepResult) {
	if !m.Significant || m.DeltaPct == nil {
		return
	}
	fewest := int64(math.MaxInt64)
	for _, s := range append(append([]*results.StepResult{}, bs...), cs...) {
		if s.Ops > 0 {
			fewest = min(fewest, s.Ops)
		}
	}
	if fewest == math.MaxInt64 {
		return
	}
	if res := 100 / float64(fewest); math.Abs(*m.DeltaPct) < res {
		m.Significant, m.Status = false, statusNoChange
		m.Note = fmt.Sprintf("below what a window resolves: one op in %d is %.2g%%", fewest, res)
	}
}

// decide sets Significant, Status and the minimum-effect note from a
// test. Significant needs both the test and an interval clear of zero:
// with ties the two can disagree, and then the cautious answer wins.
func (m *metricComparison) decide(r testResult, o Options) {
	m.Significant = r.significant(o.Alpha)
	if m.Significant && o.MinEffectPct > 0 && m.DeltaPct != nil && math.Abs(*m.DeltaPct) < o.MinEffectPct {
		m.Significant = false
		m.Note = fmt.Sprintf("significant but below the minimum effect of %g%%", o.MinEffectPct)
	}
	m.Status = statusNoChange
	if m.Significant {
		m.Status = statusChanged
	}
}
