package search

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// Planner is an adaptive search as a plan.Planner. It searches each
// target × workload in turn. Next, Remaining and Notes are pure functions
// of the steps they are given, so a resumed run continues the same
// search.
type Planner struct {
	plan   plan.Plan
	search results.SearchPlan
	series []series
	opts   knee.Options
	// repeat is the trials each level that decides the knee gets before
	// its interval is judged: --trials with fixed windows, 1 with auto
	// windows (each trial has its own batch-means interval). maxTrials
	// bounds the trials where neighbouring levels' intervals still
	// overlap: one more than --trials with fixed windows, --trials with
	// auto ones (the grid's rule, Trials).
	repeat, maxTrials int

	// cached decisions for the last history seen: Next and Remaining are
	// called in turn with the same steps.
	cacheN, cacheF int
	cached         []decision
	notes          []string
	failed         []plan.StepSpec // as Next last saw them, for Remaining
}

// New plans a search. plan.Search must be set and plan.Concurrency must be
// its grid (plan.Search.Levels); plan.Trials is how many trials the
// levels that decide the knee get. targets and workloads name the series,
// searched in that order (targets outer). o is the analysis `analyze`
// would run: its plateau fraction is also the pool search's tolerance,
// and plan.Search.SLOP99Ms its p99 SLO.
func New(plan plan.Plan, targets []results.TargetHeader, workloads []string, o knee.Options) (*Planner, error) {
	sp := plan.Search
	switch {
	case sp == nil:
		return nil, errors.New("the plan has no search")
	case sp.Mode != results.SearchKnee && sp.Mode != results.SearchPool:
		return nil, fmt.Errorf("%q is not knee or pool", sp.Mode)
	case len(sp.Levels) < 2:
		return nil, errors.New("the search grid needs at least two levels")
	case len(targets) == 0 || len(workloads) == 0:
		return nil, errors.New("nothing to search: no target or workload")
	case !plan.Pool.Match:
		return nil, errors.New("a search measures pool match (P = C); --search pool finds the pool size")
	case sp.PoolMin < 0 || sp.PoolMax < 0 || (sp.PoolMax > 0 && sp.PoolMax < sp.PoolMin):
		return nil, fmt.Errorf("the pool sizes %d..%d are not a range", sp.PoolMin, sp.PoolMax)
	}
	o = knee.SearchOptions(o, sp)
	if !(o.Plateau > 0 && o.Plateau <= 1) {
		o.Plateau = knee.DefaultOptions().Plateau
	}
	p := &Planner{plan: plan, search: *sp, opts: o, repeat: plan.Trials, maxTrials: plan.Trials + 1, cacheN: -1}
	if autoWindows(plan) {
		p.repeat, p.maxTrials = 1, max(plan.Trials, 1)
	}
	for _, t := range targets {
		for _, w := range workloads {
			p.series = append(p.series, series{target: t, workload: w, clients: max(plan.Clients, 1)})
		}
	}
	return p, nil
}

// decision is what one series' search does next: a probe, or nothing
// more (and then note says what it found, or why it stopped).
type decision struct {
	next   *probe
	note   string
	expect int // steps it still expects to take
}

// probe is a step the search wants.
type probe struct {
	conc, pool int // pool 0: match
	trial      int
	info       results.SearchInfo
}

// Next returns the next probe of the first series still searching.
func (p *Planner) Next(done []results.StepResult, failed []plan.StepSpec) (plan.StepSpec, bool) {
	p.failed = failed
	ds := p.decide(done, failed)
	for i, d := range ds {
		if d.next == nil {
			continue
		}
		s := p.series[i]
		spec := plan.StepSpec{Index: len(done) + len(failed), Target: s.target.Name, Workload: s.workload,
			Concurrency: d.next.conc, MaxPoolSize: d.next.conc, PoolSetting: "match", Clients: s.clients, Trial: d.next.trial}
		if d.next.pool > 0 {
			spec.MaxPoolSize, spec.PoolSetting = d.next.pool, fmt.Sprint(d.next.pool)
		}
		info := d.next.info
		spec.Search = &info
		return spec, true
	}
	return plan.StepSpec{}, false
}

// Remaining estimates the steps still to come: the current series' own
// estimate plus a fresh search of each later one, no more than the budget
// affords.
func (p *Planner) Remaining(done []results.StepResult) int {
	ds := p.decide(done, p.failed)
	n := 0
	for _, d := range ds {
		n += d.expect
	}
	if b := p.search.BudgetS; b > 0 && n > 0 {
		used := 0.0
		for _, st := range done {
			if st.Phases != nil {
				used += st.Phases.Total()
			}
		}
		afford := int(math.Max(0, (b-used)/p.stepCost(done)))
		n = max(min(n, afford), 1)
	}
	return n
}

// Notes is what each series' search found, or why it stopped early: the
// session puts them in the end record's reason.
func (p *Planner) Notes() []string { return p.notes }

// decide runs every series' search on the history. A series is closed
// once a later one has steps, whatever it would still do, so a search
// never jumps back.
func (p *Planner) decide(done []results.StepResult, failed []plan.StepSpec) []decision {
	if len(done) == p.cacheN && len(failed) == p.cacheF && p.cached != nil {
		return p.cached
	}
	hs := make([]history, len(p.series))
	last := -1
	for i, s := range p.series {
		hs[i] = s.of(done, failed)
		if hs[i].all > 0 {
			last = i
		}
	}
	cost := p.stepCost(done)
	budget := p.search.BudgetS
	usedBefore := 0.0
	ds := make([]decision, len(p.series))
	var notes []string
	active := false
	for i, s := range p.series {
		h := hs[i]
		left := math.Inf(1) // this series' share of the budget left
		if budget > 0 {
			left = (budget-usedBefore)/float64(len(p.series)-i) - h.spent
		}
		var d decision
		switch {
		case i < last:
			// Closed: what it concluded, or where it stood.
			if d = p.seriesDecision(s, h, left, cost); d.next != nil {
				d = decision{note: stopNote("the search moved on to the next series", d.next.info, h.all)}
			}
		case active:
			d = decision{expect: p.freshSteps()} // a later series, not started
		default:
			d = p.seriesDecision(s, h, left, cost)
			active = d.next != nil
		}
		usedBefore += h.spent
		ds[i] = d
		if d.next == nil && d.note != "" {
			if len(p.series) > 1 {
				d.note = s.name() + ": " + d.note
			}
			notes = append(notes, d.note)
		}
	}
	p.cacheN, p.cacheF, p.cached, p.notes = len(done), len(failed), ds, notes
	return ds
}

// seriesDecision is one series' next move within left seconds of budget,
// a step costing cost seconds.
func (p *Planner) seriesDecision(s series, h history, left, cost float64) decision {
	pr, note, expect, rep := p.kneeStage(s, h)
	switch {
	case pr == nil && p.search.Mode == results.SearchPool && rep != nil:
		var pnote string
		pr, pnote, expect = p.poolStage(s, h, *rep)
		note += "; " + pnote
	case pr == nil && p.search.Mode == results.SearchPool:
		note += "; pool: not searched without a knee"
	case p.search.Mode == results.SearchPool:
		expect += p.poolFresh(p.search.Levels[len(p.search.Levels)/2])
	}
	if pr == nil {
		return decision{note: note}
	}
	if cost > left {
		stop := fmt.Sprintf("the --budget %s ended", fmtDur(p.search.Budget()))
		if len(p.series) > 1 {
			stop += " (this series' share)"
		}
		return decision{note: stopNote(stop, pr.info, h.all)}
	}
	if h.all >= p.gridSteps() {
		return decision{note: stopNote("the search reached the full grid's step count", pr.info, h.all)}
	}
	return decision{next: pr, expect: max(expect, 1)}
}

// stopNote says where a search stood when it had to stop.
func stopNote(why string, info results.SearchInfo, steps int) string {
	s := why + " before the search finished, after " + plural(steps, "step")
	if info.Knee == nil {
		return s + ": no knee located yet"
	}
	s += fmt.Sprintf(": best answer so far, knee %d", *info.Knee)
	if len(info.Bracket) == 2 {
		what := "the knee lies in"
		if info.Mode == results.SearchPool {
			what = "the smallest good maxPoolSize lies in"
		}
		s += fmt.Sprintf(", %s (%d, %d]", what, info.Bracket[0], info.Bracket[1])
	}
	return s
}

// gridSteps is one series' full grid.
func (p *Planner) gridSteps() int { return len(p.search.Levels) * max(p.plan.Trials, 1) }

// stepCost is the measured wall time of a step (check, pre-warm, warm-up,
// window, teardown) averaged over the run so far: with auto windows each
// step's own length, as its number needed. Before any step, the plan's
// warm-up and window at their shortest plus an allowance for the rest.
func (p *Planner) stepCost(done []results.StepResult) float64 {
	sum, n := 0.0, 0
	for _, st := range done {
		if st.Phases != nil {
			sum += st.Phases.Total()
			n++
		}
	}
	if n > 0 {
		return sum / float64(n)
	}
	shortest, _ := p.plan.StepLengths()
	return (shortest + 500*time.Millisecond).Seconds()
}

// autoWindows says every window of the plan ends from the data, so that
// each trial carries its own batch-means interval.
func autoWindows(p plan.Plan) bool { return p.Auto != nil && p.Auto.Window }

// intervals says the analysis gives the levels that decide the knee an
// interval: 3 trials or more each, or auto windows (one trial's own).
func (p *Planner) intervals() bool { return p.plan.Trials >= 3 || autoWindows(p.plan) }

// freshSteps is what a search of one series is expected to take.
func (p *Planner) freshSteps() int {
	n := p.kneeFresh()
	if p.search.Mode == results.SearchPool {
		n += p.poolFresh(p.search.Levels[len(p.search.Levels)/2])
	}
	return n
}

func (s series) name() string {
	n := s.target.Name
	if s.workload != "" {
		n += " " + s.workload
	}
	return n
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// fmtDur prints a budget as it was given ("20m", "1h30m").
func fmtDur(d time.Duration) string {
	s := d.String()
	for _, z := range []string{"0s", "0m"} {
		if strings.HasSuffix(s, "m"+z) || strings.HasSuffix(s, "h"+z) {
			s = strings.TrimSuffix(s, z)
		}
	}
	return s
}
