// Package compare sets two runs side by side, step by step (the A/B of a
// server setting or a topology): it pairs the steps of a baseline and a
// candidate, compares throughput, latency, CPU and errors across trials
// with rank statistics in the style of benchstat, and words a verdict per
// workload. It reads decoded results and never prints; the Write*
// functions render to a passed io.Writer.
package compare

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/sweep"
)

// DefaultAlpha is the significance level when Options.Alpha is zero.
const DefaultAlpha = 0.05

// ErrNothingToCompare is returned (wrapped, with the reason) when no step of
// the baseline has a partner in the candidate.
var ErrNothingToCompare = errors.New("nothing to compare")

// Options control matching and statistics. The zero value compares two
// files with alpha = 0.05.
type Options struct {
	// Baseline and Candidate name two targets to compare; both or neither.
	// With them, the baseline steps are those of target Baseline in the
	// baseline results and the candidate steps those of target Candidate in
	// the candidate results, which may be the same file (--baseline a
	// --candidate b on one results file).
	Baseline, Candidate string
	// Alpha is the significance level of the two-sided tests and sets the
	// confidence of the intervals (1 − Alpha); 0 means DefaultAlpha.
	Alpha float64
	// MinEffectPct, when > 0, reports statistically significant differences
	// smaller than this many percent as no change: on a drifting machine a
	// real but tiny difference is usually the machine, not the setting.
	MinEffectPct float64
}

// Status of one metric's comparison.
type Status string

// Metric statuses.
const (
	StatusChanged     Status = "changed"     // significant at Alpha
	StatusNoChange    Status = "no_change"   // tested, inside the noise ("~")
	StatusUnconfirmed Status = "unconfirmed" // fewer than MinTrials trials on a side: not tested
	StatusOneSided    Status = "one_sided"   // measured on one side only
)

// Comparison is the result of Match: matched steps with their metrics, the
// steps left without a partner, and a verdict per workload.
type Comparison struct {
	Baseline     Side
	Candidate    Side
	Alpha        float64
	MinEffectPct float64
	Steps        []*Step
	Unmatched    []Unmatched
	Verdicts     []Verdict
	// Notes are remarks about the inputs (ignored interrupted steps, ...).
	Notes []string
}

// Side describes the inputs of one side of the comparison.
type Side struct {
	Files   []string
	RunIDs  []string
	Targets []string // targets whose steps were used
	Steps   int      // step records used (trials included)
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
	// Class is ClassReadOnly, ClassWriteOnly, ClassMixed or "" from the op
	// types both sides issued.
	Class           string
	Concurrency     int
	Pool            string
	Clients         int
	BaselineTrials  int
	CandidateTrials int
	// Metrics holds every name in MetricNames; nil when measured on neither
	// side.
	Metrics map[string]*Metric

	role   string   // the stepKey role, for ordering
	counts opCounts // ops by class over both sides' trials
}

// Metric compares one measure of a step. Pointers are nil where a value
// does not exist (not measured, baseline zero for a percentage, no test).
type Metric struct {
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
	Method              string // MethodMannWhitney, MethodWelch or ""
	Significant         bool
	Status              Status
	Note                string
}

// Unmatched is a step of one side with no partner on the other.
type Unmatched struct {
	Side        string // "baseline" or "candidate"
	Target      string
	Workload    string
	Concurrency int
	Pool        string
	Clients     int
	Trials      int
	Reason      string
}

// stepKey identifies a step across trials; role is "" when each side has a
// single target (or Options name them).
type stepKey struct {
	role     string
	workload string
	c        int
	pool     string
	k        int
}

// side is one side's steps grouped by key.
type side struct {
	name   string // "baseline" or "candidate"
	files  []string
	steps  map[stepKey][]*sweep.StepResult
	keys   []stepKey // first-appearance order
	target map[string]string
}

// Match pairs the steps of the baseline and candidate results and compares
// them. Steps pair on (target role, workload, concurrency, pool setting,
// clients); trials are the samples. When each side has one target they
// pair whatever their names; with several, by name; Options.Baseline and
// Options.Candidate pick two targets instead. It returns an error wrapping
// ErrNothingToCompare, with the reason in one line, when no step pairs.
func Match(base, cand []*sweep.Results, o Options) (*Comparison, error) {
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
	cmp := &Comparison{Alpha: o.Alpha, MinEffectPct: o.MinEffectPct}

	bAll, bNotes := collect(base)
	cAll, cNotes := collect(cand)
	cmp.Notes = append(bNotes, cNotes...)
	if o.Baseline != "" && o.Baseline == o.Candidate && sameFiles(base, cand) {
		return nil, fmt.Errorf("--baseline and --candidate both name %q: nothing to compare", o.Baseline)
	}

	byRole := false
	if o.Baseline != "" {
		var err error
		if bAll, err = pickTarget(bAll, o.Baseline, "baseline", base); err != nil {
			return nil, err
		}
		if cAll, err = pickTarget(cAll, o.Candidate, "candidate", cand); err != nil {
			return nil, err
		}
	} else {
		bt, ct := targetsOf(bAll), targetsOf(cAll)
		byRole = len(bt) > 1 || len(ct) > 1
	}
	for _, x := range []struct {
		steps []*sweep.StepResult
		rs    []*sweep.Results
		name  string
	}{{bAll, base, "baseline"}, {cAll, cand, "candidate"}} {
		if len(x.steps) == 0 {
			return nil, fmt.Errorf("%w: %s %s has no finished steps", ErrNothingToCompare, x.name, shown(paths(x.rs)))
		}
	}

	b := group("baseline", base, bAll, byRole)
	c := group("candidate", cand, cAll, byRole)
	cmp.Baseline = describe(base, bAll)
	cmp.Candidate = describe(cand, cAll)

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
	if len(cmp.Steps) == 0 {
		why := "no step pairs on target, workload, concurrency, pool and clients"
		if len(cmp.Unmatched) > 0 {
			why = cmp.Unmatched[0].Reason
		}
		return nil, fmt.Errorf("%w between %s and %s: %s", ErrNothingToCompare,
			shown(paths(base)), shown(paths(cand)), why)
	}
	sortSteps(cmp.Steps, b.keys)
	cmp.Verdicts = verdicts(cmp)
	return cmp, nil
}

// collect gathers the usable steps of a side: interrupted steps measured a
// cut-short window and are left out, with a note.
func collect(rs []*sweep.Results) ([]*sweep.StepResult, []string) {
	var out []*sweep.StepResult
	var notes []string
	for _, r := range rs {
		skipped := 0
		for i := range r.Steps {
			if r.Steps[i].Interrupted {
				skipped++
				continue
			}
			out = append(out, &r.Steps[i])
		}
		if skipped > 0 {
			notes = append(notes, fmt.Sprintf("%s: %d interrupted step(s) ignored", textfmt.Escape(r.Path), skipped))
		}
	}
	return out, notes
}

func sameFiles(a, b []*sweep.Results) bool {
	return slices.Equal(paths(a), paths(b))
}

// shown joins names from the inputs (paths, targets, pools) for a message,
// with non-printing characters escaped.
func shown(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = textfmt.Escape(n)
	}
	return strings.Join(out, ", ")
}

func paths(rs []*sweep.Results) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Path
	}
	return out
}

// targetsOf lists the distinct targets of steps in first-appearance order.
func targetsOf(steps []*sweep.StepResult) []string {
	var out []string
	for _, s := range steps {
		if !slices.Contains(out, s.Target) {
			out = append(out, s.Target)
		}
	}
	return out
}

func pickTarget(steps []*sweep.StepResult, name, sideName string, rs []*sweep.Results) ([]*sweep.StepResult, error) {
	var out []*sweep.StepResult
	for _, s := range steps {
		if s.Target == name {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s target %q is not in %s (targets: %s)", sideName, name,
			shown(paths(rs)), shown(targetsOf(steps)))
	}
	return out, nil
}

func group(name string, rs []*sweep.Results, steps []*sweep.StepResult, byRole bool) *side {
	s := &side{name: name, files: paths(rs), steps: map[stepKey][]*sweep.StepResult{}, target: map[string]string{}}
	for _, st := range steps {
		k := stepKey{workload: st.Workload, c: st.Concurrency, pool: st.PoolSetting, k: max(st.Clients, 1)}
		if byRole {
			k.role = st.Target
		}
		if _, ok := s.steps[k]; !ok {
			s.keys = append(s.keys, k)
		}
		s.steps[k] = append(s.steps[k], st)
		s.target[k.role] = st.Target
	}
	return s
}

func describe(rs []*sweep.Results, steps []*sweep.StepResult) Side {
	d := Side{Files: paths(rs), Targets: targetsOf(steps), Steps: len(steps)}
	for _, r := range rs {
		if r.Header.RunID != "" && !slices.Contains(d.RunIDs, r.Header.RunID) {
			d.RunIDs = append(d.RunIDs, r.Header.RunID)
		}
	}
	return d
}

// unmatched explains why key k of side s has no partner in side o, naming
// the first dimension on which o has nothing like it.
func unmatched(s, o *side, k stepKey, byRole bool) Unmatched {
	u := Unmatched{Side: s.name, Target: s.target[k.role], Workload: k.workload,
		Concurrency: k.c, Pool: k.pool, Clients: k.k, Trials: len(s.steps[k])}
	var same []stepKey
	for _, ok := range o.keys {
		if ok.role == k.role {
			same = append(same, ok)
		}
	}
	if byRole && len(same) == 0 {
		u.Reason = fmt.Sprintf("%s has no target %q", o.name, k.role)
		return u
	}
	workloads := distinct(same, func(x stepKey) string { return x.workload })
	if !slices.Contains(workloads, k.workload) {
		if len(workloads) == 1 {
			bw, cw := k.workload, workloads[0]
			if s.name == "candidate" {
				bw, cw = cw, bw
			}
			u.Reason = fmt.Sprintf("workload differs: baseline %q vs candidate %q", bw, cw)
		} else {
			u.Reason = fmt.Sprintf("%s has no workload %q", o.name, k.workload)
		}
		return u
	}
	same = filter(same, func(x stepKey) bool { return x.workload == k.workload })
	if cs := distinct(same, func(x stepKey) int { return x.c }); !slices.Contains(cs, k.c) {
		slices.Sort(cs)
		u.Reason = fmt.Sprintf("%s has no concurrency=%d (it has %s)", o.name, k.c, joinInts(cs))
		return u
	}
	same = filter(same, func(x stepKey) bool { return x.c == k.c })
	if ps := distinct(same, func(x stepKey) string { return x.pool }); !slices.Contains(ps, k.pool) {
		u.Reason = fmt.Sprintf("%s has no pool=%s at concurrency=%d (it has %s)", o.name, textfmt.Escape(k.pool), k.c, shown(ps))
		return u
	}
	same = filter(same, func(x stepKey) bool { return x.pool == k.pool })
	ks := distinct(same, func(x stepKey) int { return x.k })
	slices.Sort(ks)
	u.Reason = fmt.Sprintf("%s has no clients=%d at concurrency=%d pool=%s (it has %s)", o.name, k.k, k.c, textfmt.Escape(k.pool), joinInts(ks))
	return u
}

func distinct[T comparable](keys []stepKey, f func(stepKey) T) []T {
	var out []T
	for _, k := range keys {
		if v := f(k); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

func filter(keys []stepKey, keep func(stepKey) bool) []stepKey {
	var out []stepKey
	for _, k := range keys {
		if keep(k) {
			out = append(out, k)
		}
	}
	return out
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// sortSteps orders steps by role and workload as the baseline first ran
// them, then pool, clients and concurrency, so tables read like curves.
func sortSteps(steps []*Step, order []stepKey) {
	roleIdx, wlIdx := map[string]int{}, map[string]int{}
	for _, k := range order {
		if _, ok := roleIdx[k.role]; !ok {
			roleIdx[k.role] = len(roleIdx)
		}
		if _, ok := wlIdx[k.workload]; !ok {
			wlIdx[k.workload] = len(wlIdx)
		}
	}
	slices.SortStableFunc(steps, func(a, b *Step) int {
		if c := roleIdx[a.role] - roleIdx[b.role]; c != 0 && len(roleIdx) > 1 {
			return c
		}
		if c := wlIdx[a.Workload] - wlIdx[b.Workload]; c != 0 {
			return c
		}
		if c := comparePool(a.Pool, b.Pool); c != 0 {
			return c
		}
		if c := a.Clients - b.Clients; c != 0 {
			return c
		}
		return a.Concurrency - b.Concurrency
	})
}

// comparePool puts "match" first, then numbers in numeric order.
func comparePool(a, b string) int {
	if a == b {
		return 0
	}
	na, ea := strconv.Atoi(a)
	nb, eb := strconv.Atoi(b)
	switch {
	case ea != nil && eb != nil:
		return strings.Compare(a, b)
	case ea != nil:
		return -1
	case eb != nil:
		return 1
	}
	return na - nb
}

func buildStep(k stepKey, b, c *side, o Options) *Step {
	bs, cs := b.steps[k], c.steps[k]
	st := &Step{
		BaselineTarget: b.target[k.role], CandidateTarget: c.target[k.role],
		Workload: k.workload, Concurrency: k.c, Pool: k.pool, Clients: k.k,
		BaselineTrials: len(bs), CandidateTrials: len(cs),
		Metrics: map[string]*Metric{},
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
	for _, name := range MetricNames {
		st.Metrics[name] = buildMetric(metricDefs[name], bs, cs, o)
	}
	return st
}

func values(def metricDef, steps []*sweep.StepResult) []float64 {
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

func buildMetric(def metricDef, bs, cs []*sweep.StepResult, o Options) *Metric {
	xs, ys := values(def, bs), values(def, cs)
	if len(xs) == 0 && len(ys) == 0 {
		return nil
	}
	m := &Metric{Name: def.name, Unit: def.unit, BaselineN: len(xs), CandidateN: len(ys)}
	if len(xs) > 0 {
		m.Baseline, m.BaselineSpreadPct = summary(xs)
	}
	if len(ys) > 0 {
		m.Candidate, m.CandidateSpreadPct = summary(ys)
	}
	switch {
	case len(xs) == 0:
		m.Status, m.Note = StatusOneSided, "not measured in the baseline"
		return m
	case len(ys) == 0:
		m.Status, m.Note = StatusOneSided, "not measured in the candidate"
		return m
	}
	base := *m.Baseline
	m.Delta = ptr(*m.Candidate - base)
	if base != 0 {
		m.DeltaPct = ptr(*m.Delta / math.Abs(base) * 100)
	}
	if len(xs) < MinTrials || len(ys) < MinTrials {
		m.Status = StatusUnconfirmed
		m.Note = fmt.Sprintf("%d+%d trials: at least %d per side are needed to test a difference", len(xs), len(ys), MinTrials)
		return m
	}

	// Positive metrics are compared on log values, so the interval is for
	// the ratio candidate/baseline; others (zero errors, 0% CPU) on the
	// plain difference.
	logScale := slices.Min(xs) > 0 && slices.Min(ys) > 0
	tx, ty := xs, ys
	if logScale {
		tx, ty = logs(xs), logs(ys)
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
	// Significant needs both the test and an interval clear of zero: with
	// ties the two can disagree, and then the cautious answer wins.
	m.Significant = r.p < o.Alpha && r.hasCI && (r.lo > 0 || r.hi < 0)
	if m.Significant && o.MinEffectPct > 0 && m.DeltaPct != nil && math.Abs(*m.DeltaPct) < o.MinEffectPct {
		m.Significant = false
		m.Note = fmt.Sprintf("significant but below the minimum effect of %g%%", o.MinEffectPct)
	}
	m.Status = StatusNoChange
	if m.Significant {
		m.Status = StatusChanged
	}
	return m
}

func logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = math.Log(v)
	}
	return out
}

// ReadFiles decodes results files in order. A decoding problem keeps the
// *sweep.LineError (file:line) in the chain.
func ReadFiles(paths ...string) ([]*sweep.Results, error) {
	out := make([]*sweep.Results, 0, len(paths))
	for _, p := range paths {
		r, err := sweep.ReadResultsFile(p)
		if err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		out = append(out, r)
	}
	return out, nil
}
