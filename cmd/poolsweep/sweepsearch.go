package main

import (
	"fmt"
	"io"
	"math"
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
	choiceVar(f, &s.search, "search", "", []string{results.SearchKnee, results.SearchPool}, false, `find the answer in a fraction of the grid's steps: "knee" locates the knee on a log₂ grid between the lowest and highest --concurrency; "pool" then finds the smallest maxPoolSize at the knee that keeps its throughput`)
	textVar(f, &s.resolution, "resolution", "sqrt2", "sqrt2 or a factor from 1.05 to 4", func(v string) error { _, err := parseResolution(v); return err },
		"with --search: the factor between neighbouring levels of the grid the knee is located on, sqrt2 or a number from 1.05 to 4")
	durationVar(f, &s.budget, "budget", 0, time.Second, maxBudget, "with --search: a wall-time budget (e.g. 20m), 1s to 168h; the search plans its probes to fit the measured cost per step and, when it ends first, reports its best bracket")
	durationVar(f, &s.sloP99, "slo-p99", 0, time.Microsecond, maxSLOP99, "with --search pool: the p99 latency per call a pool size must meet, 1µs to 1h")
}

// plan turns the search flags into the plan's search: its grid replaces
// the concurrency list (only the list's lowest and highest level count),
// and the levels that decide the knee get 3 trials unless --trials says
// otherwise. Every problem is a usage error naming its flag.
func (s *searchOptions) plan(p *plan.Plan, changed func(string) bool) error {
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
	case !p.Pool.Match:
		return usagef("--pool: --search measures pool match (P = C); --search pool finds the pool size itself")
	case p.Order == plan.OrderInterleaved:
		return usagef("--order interleaved: --search takes one target at a time")
	case len(p.Concurrency) < 2:
		return usagef("--concurrency: --search needs a range of at least two levels, e.g. 1..128x2 (got %v)", p.Concurrency)
	case changed("slo-p99") && mode != results.SearchPool:
		return usagef("--slo-p99: only with --search pool (analyze --slo-p99 reads it for a knee)")
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
		SLOP99Ms: float64(s.sloP99) / float64(time.Millisecond)}
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
