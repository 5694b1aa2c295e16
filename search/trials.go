package search

import (
	"errors"
	"fmt"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// Trials is a grid whose --trials is a maximum
// (plan.Plan.TrialsAtMost) as a plan.Planner. With auto windows each trial
// carries its own batch-means interval, so every step of the grid is
// measured once, in the plan's order; then a level gets another trial
// only where needsTrial, the search's own rule, finds its interval
// overlapping its neighbour's where the knee is decided, until they stand
// apart or the level has --trials trials. Like Planner, Next and
// Remaining are pure functions of the steps they are given, so a resumed
// run goes on where it stopped.
type Trials struct {
	first     []plan.StepSpec // trial 1 of every step of the grid, in the plan's order
	series    []series        // each target × workload × pool setting
	opts      knee.Options
	maxTrials int

	// The decisions for the last history seen: Next and Remaining are
	// called in turn with the same steps.
	cacheN, cacheF int
	cached         []trialDecision
	failed         []plan.StepSpec // as Next last saw them, for Remaining
}

// trialDecision is one series' next extra trial (nil: none), and the
// extra trials it still expects; report is the series' analysis it was
// decided on (ok false when it had none), which the peaks' rule reads too.
type trialDecision struct {
	next     *plan.StepSpec
	expect   int
	report   knee.Report
	reportOK bool
}

// NewTrials plans a grid whose trials are a maximum. targets and workloads
// name the series in the plan's order; o is the analysis `analyze` runs.
func NewTrials(p plan.Plan, targets []results.TargetHeader, workloads []string, o knee.Options) (*Trials, error) {
	if !p.TrialsAtMost() {
		return nil, errors.New("the plan takes every trial of every level (trials are a maximum only in a closed-loop grid with auto windows)")
	}
	if len(targets) == 0 || len(workloads) == 0 {
		return nil, errors.New("nothing to measure: no target or workload")
	}
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
	}
	once := p
	once.Trials = 1
	t := &Trials{first: once.Steps(names, workloads), opts: o, maxTrials: p.Trials, cacheN: -1}
	pools := []string{"match"}
	if !p.Pool.Match {
		pools = pools[:0]
		for _, size := range p.Pool.Sizes {
			pools = append(pools, fmt.Sprint(size))
		}
	}
	for _, tg := range targets {
		for _, w := range workloads {
			for _, pool := range pools {
				t.series = append(t.series, series{target: tg, workload: w, clients: max(p.Clients, 1), pool: pool})
			}
		}
	}
	return t, nil
}

// Next returns the first step of the grid not measured yet, then the
// first series' extra trial.
func (t *Trials) Next(done []results.StepResult, failed []plan.StepSpec) (plan.StepSpec, bool) {
	t.failed = failed
	if sp, ok := t.nextFirst(done, failed); ok {
		return sp, true
	}
	for _, d := range t.decide(done, failed) {
		if d.next != nil {
			sp := *d.next
			sp.Index = len(done) + len(failed)
			return sp, true
		}
	}
	return plan.StepSpec{}, false
}

// Remaining is the grid's steps not measured yet, and the extra trials
// expected: each series' own once its levels are measured, else one pair
// of levels that overlaps, as is typical.
func (t *Trials) Remaining(done []results.StepResult) int {
	n := len(t.pendingFirst(done, t.failed))
	for _, d := range t.decide(done, t.failed) {
		n += d.expect
	}
	return n
}

// nextFirst is the first step of the grid neither measured nor failed in
// this session.
func (t *Trials) nextFirst(done []results.StepResult, failed []plan.StepSpec) (plan.StepSpec, bool) {
	if left := t.pendingFirst(done, failed); len(left) > 0 {
		return left[0], true
	}
	return plan.StepSpec{}, false
}

func (t *Trials) pendingFirst(done []results.StepResult, failed []plan.StepSpec) []plan.StepSpec {
	have := map[string]bool{}
	for i := range done {
		have[done[i].Key()] = true
	}
	for _, sp := range failed {
		have[sp.Key()] = true
	}
	var left []plan.StepSpec
	for _, sp := range t.first {
		if !have[sp.Key()] {
			left = append(left, sp)
		}
	}
	return left
}

// decide is every series' next extra trial on the history: none while
// some step of the series' grid is still to be measured once.
func (t *Trials) decide(done []results.StepResult, failed []plan.StepSpec) []trialDecision {
	if len(done) == t.cacheN && len(failed) == t.cacheF && t.cached != nil {
		return t.cached
	}
	tried := map[string]bool{}
	for _, sp := range failed {
		tried[sp.Key()] = true
	}
	pending := map[string]bool{} // series with steps of the grid to come
	for _, sp := range t.pendingFirst(done, failed) {
		pending[sp.Target+"\x00"+sp.Workload+"\x00"+sp.PoolSetting] = true
	}
	ds := make([]trialDecision, len(t.series))
	for i, s := range t.series {
		if pending[s.target.Name+"\x00"+s.workload+"\x00"+s.pool] {
			ds[i].expect = t.maxTrials - 1
			continue
		}
		ds[i] = t.seriesDecision(s, s.stepsOf(done), tried)
	}
	if len(pending) == 0 && !anyNext(ds) {
		if k, sp, ok := t.peakDecision(done, ds, tried); ok {
			ds[k].next, ds[k].expect = &sp, 1
		}
	}
	t.cacheN, t.cacheF, t.cached = len(done), len(failed), ds
	return ds
}

func anyNext(ds []trialDecision) bool {
	for _, d := range ds {
		if d.next != nil {
			return true
		}
	}
	return false
}

// seriesDecision is one series' next extra trial, once each of its levels
// was measured.
func (t *Trials) seriesDecision(s series, steps []results.StepResult, tried map[string]bool) trialDecision {
	if len(steps) == 0 {
		return trialDecision{}
	}
	r, ok := s.analyze(steps, t.opts)
	if !ok {
		return trialDecision{}
	}
	analysed := trialDecision{report: r, reportOK: true}
	n := trials(steps)
	last := steps[len(steps)-1].Concurrency
	c, other, ok := needsTrial(r, n, t.maxTrials, last)
	if !ok {
		return analysed
	}
	sp := t.seriesStep(s, c, n[c]+1)
	if tried[sp.Key()] {
		return analysed // it failed in this session: not again
	}
	lv := map[int]knee.Level{}
	for _, l := range r.Levels {
		lv[l.Concurrency] = l
	}
	e := &results.ExtraTrial{Neighbour: other,
		Interval:          []float64{lv[c].QPSLow, lv[c].QPSHigh},
		NeighbourInterval: []float64{lv[other].QPSLow, lv[other].QPSHigh}}
	where := "the top two levels, with no knee yet"
	if r.Knee.Found {
		kc := r.Knee.Concurrency
		e.Knee = &kc
		where = fmt.Sprintf("the knee at %d and the level below it (%s confidence)", kc, r.Knee.Confidence)
	}
	e.Why = fmt.Sprintf("the throughput intervals of %d and %d overlap (%s): trial %d of at most %d", c, other, where, sp.Trial, t.maxTrials)
	sp.ExtraTrial = e
	analysed.next, analysed.expect = &sp, max(1, 2*t.maxTrials-n[c]-n[other])
	return analysed
}

// stepsOf is the series' measured steps, in the order they were measured.
func (s series) stepsOf(done []results.StepResult) []results.StepResult {
	var out []results.StepResult
	for _, st := range done {
		if st.Target == s.target.Name && st.Workload == s.workload && st.Clients == s.clients && st.PoolSetting == s.pool {
			out = append(out, st)
		}
	}
	return out
}
