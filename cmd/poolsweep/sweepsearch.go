package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/search"
	"github.com/poolsweep/poolsweep/sweep"
)

// Bounds of the search flags.
const (
	maxBudget = 7 * 24 * time.Hour
	maxSLOP99 = time.Hour
)

// searchOptions are the adaptive search's flags (issue 14), kept apart
// from the grid's: --search, --resolution, --budget and --slo-p99.
type searchOptions struct {
	search     string
	resolution string
	budget     time.Duration
	sloP99     time.Duration
}

// addFlags registers the search flags.
func (s *searchOptions) addFlags(f *pflag.FlagSet) {
	choiceVar(f, &s.search, "search", "", []string{results.SearchKnee, results.SearchPool}, false, `find the answer in a fraction of the grid's steps: "knee" locates the knee on a log₂ grid between the lowest and highest --concurrency (MIN..MAX will do); "pool" then finds the smallest maxPoolSize at the knee that keeps its throughput, within --pool MIN..MAX when given`)
	textVar(f, &s.resolution, "resolution", "sqrt2", "sqrt2 or a factor from 1.05 to 4", func(v string) error { _, err := parseResolution(v); return err },
		"with --search: the factor between neighbouring levels of the grid the knee is located on, sqrt2 or a number from 1.05 to 4")
	durationVar(f, &s.budget, "budget", 0, time.Second, maxBudget, "with --search: a wall-time budget (e.g. 20m), 1s to 168h; the search plans its probes to fit the measured cost per step and, when it ends first, reports its best bracket")
	durationVar(f, &s.sloP99, "slo-p99", 0, time.Microsecond, maxSLOP99, "with --search pool: the p99 latency per call a pool size must meet, 1µs to 1h")
}

// levelsOrSpan is what --concurrency and --pool take when the flag is
// parsed, before it is known whether --search is set: a level list, or a
// search's span, a range without a step (plan.ParseSpan). levelsAndPool
// then holds a grid to plan.ParseLevels.
func levelsOrSpan(s string, max int) ([]int, error) {
	lo, hi, err := plan.ParseSpan(s, max)
	return []int{lo, hi}, err
}

// searching says --search was given: the search then sets its own levels
// between the ends of --concurrency, and --search pool its own pool sizes
// within those of --pool.
func (s *searchOptions) searching() bool { return strings.TrimSpace(s.search) != "" }

// levelsAndPool parses --concurrency (conc, with the defaults applied)
// and --pool. A search takes only the lowest and highest of each, in any
// list or range form, a range without a step included ("1..256"): it
// places its own levels between them. Its knee is measured with pool
// match; the pool range is the search's (searchOptions.plan).
func (o *sweepOptions) levelsAndPool(conc string) ([]int, plan.PoolPlan, error) {
	if !o.searching() || o.rate != "" {
		levels, err := plan.ParseLevels(conc, results.MaxConcurrency)
		if err != nil {
			return nil, plan.PoolPlan{}, usagef("--concurrency: %v", err)
		}
		pool, err := plan.ParsePool(o.pool)
		if err != nil {
			return nil, plan.PoolPlan{}, usagef("--pool: %v", err)
		}
		return levels, pool, nil
	}
	lo, hi, err := plan.ParseSpan(conc, results.MaxConcurrency)
	if err != nil {
		return nil, plan.PoolPlan{}, usagef("--concurrency: %v", err)
	}
	return slices.Compact([]int{lo, hi}), plan.PoolPlan{Match: true, Given: "match"}, nil
}

// plan turns the search flags into the plan's search: its grid replaces
// the concurrency list (only the list's lowest and highest level count),
// and the levels that decide the knee get 3 trials unless --trials says
// otherwise. Every problem is a usage error naming its flag.
func (s *searchOptions) plan(p *plan.Plan, pool string, changed func(string) bool) error {
	if s.search == "" {
		for _, f := range []string{"resolution", "budget", "slo-p99"} {
			if changed(f) {
				return usagef("--%s: only with --search knee or --search pool", f)
			}
		}
		return nil
	}
	mode := s.search
	switch {
	case p.IsOpen():
		return usagef("--search: it searches concurrency in the closed loop; with --rate give the rates to offer")
	case p.Order == plan.OrderInterleaved:
		return usagef("--order interleaved: --search takes one target at a time")
	case len(p.Concurrency) < 2:
		return usagef("--concurrency: --search needs a range of at least two levels, e.g. 1..128x2 (got %v)", p.Concurrency)
	case changed("slo-p99") && mode != results.SearchPool:
		return usagef("--slo-p99: only with --search pool (analyze --slo-p99 reads it for a knee)")
	}
	var poolMin, poolMax int
	if pool = strings.TrimSpace(pool); pool != "match" {
		if mode != results.SearchPool {
			return usagef("--pool: --search knee measures pool match (P = C); a range of pool sizes (MIN..MAX) is for --search pool")
		}
		// The pool search places its own sizes (--resolution): a list or
		// a stepped range would ask for sizes it does not try.
		if _, to, ok := strings.Cut(pool, ".."); !ok || strings.ContainsAny(to, ",x+") {
			return usagef("--pool: %s: --search pool tries sizes of its own; give the range it may try them in, MIN..MAX", pool)
		}
		var err error
		if poolMin, poolMax, err = plan.ParseSpan(pool, plan.MaxPoolSize); err != nil {
			return usagef("--pool: %v", err)
		}
	}
	r, err := parseResolution(s.resolution)
	if err != nil {
		return usagef("--resolution: %v", err)
	}
	levels, err := search.Levels(p.Concurrency[0], p.Concurrency[len(p.Concurrency)-1], r)
	if err != nil {
		return usagef("--resolution: %v", err)
	}
	if len(levels) > plan.MaxLevels {
		return usagef("--resolution: ×%g makes %d levels, more than %d", r, len(levels), plan.MaxLevels)
	}
	if !changed("trials") {
		p.Trials = 3
	}
	if changed("budget") {
		step := p.Warmup + p.Duration + 500*time.Millisecond
		if s.budget < 2*step {
			return usagef("--budget: %s does not fit two steps (each about %s: --warmup + --duration + opening connections)", s.budget, step)
		}
	}
	p.Concurrency = levels
	p.Search = &results.SearchPlan{Mode: mode, Resolution: r, Levels: levels, BudgetS: s.budget.Seconds(),
		SLOP99Ms: float64(s.sloP99) / float64(time.Millisecond), PoolMin: poolMin, PoolMax: poolMax}
	return nil
}

// parseResolution reads "sqrt2", "√2", "2", "x1.5".
func parseResolution(v string) (float64, error) {
	v = strings.TrimSpace(strings.ToLower(v))
	v = strings.TrimPrefix(strings.TrimPrefix(v, "x"), "×")
	if v == "sqrt2" || v == "√2" {
		return math.Sqrt2, nil
	}
	r, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number or sqrt2", v)
	}
	if !(r >= search.MinResolution && r <= search.MaxResolution) {
		return 0, fmt.Errorf("%g is not between %g and %g (the factor between neighbouring levels)", r, search.MinResolution, search.MaxResolution)
	}
	return r, nil
}

// fmtHours prints whole hours briefly ("168h").
func fmtHours(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return d.String()
}

// wireSearch gives the session its search planner when --search is set.
func wireSearch(session *sweep.Session) error {
	if session.Plan.Search == nil {
		return nil
	}
	var targets []results.TargetHeader
	for _, t := range session.Targets {
		targets = append(targets, t.Header)
	}
	var workloads []string
	for _, w := range session.Workloads {
		workloads = append(workloads, w.Label)
	}
	p, err := search.New(session.Plan, targets, workloads, knee.DefaultOptions())
	if err != nil {
		return usagef("--search: %v", err)
	}
	session.Planner = p
	return nil
}

// searchPlanLine is the first progress line of a search: what it
// explores, the steps and time it expects, and the grid it replaces.
func searchPlanLine(w io.Writer, session *sweep.Session, prev *results.Results) int {
	sp := session.Plan.Search
	var earlier []results.StepResult
	if prev != nil {
		for _, st := range prev.Steps {
			if !st.Interrupted {
				earlier = append(earlier, st)
			}
		}
	}
	n := session.Planner.Remaining(earlier)
	one := session.Estimate([]plan.StepSpec{{Concurrency: sp.Levels[len(sp.Levels)/2], MaxPoolSize: sp.Levels[len(sp.Levels)/2], Clients: session.Plan.Clients}})
	grid := session.Steps()
	fmt.Fprintf(w, "plan: search %s over C=%d..%d (%d levels at ×%s), about %d step(s), about %s; the full grid would be %d step(s), about %s",
		sp.Mode, sp.Levels[0], sp.Levels[len(sp.Levels)-1], len(sp.Levels), strconv.FormatFloat(math.Round(sp.Resolution*100)/100, 'f', -1, 64),
		n, fmtWall(time.Duration(n)*one), len(grid), fmtWall(session.Estimate(grid)))
	if b := sp.Budget(); b > 0 {
		fmt.Fprintf(w, "; budget %s", b)
	}
	fmt.Fprintln(w)
	return n
}

// writeSearchNotes prints what the search found, or why it stopped.
func writeSearchNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, safeLine(n))
	}
}
