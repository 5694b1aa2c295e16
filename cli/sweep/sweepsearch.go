package sweep

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/runner/progress"
	"github.com/poolsweep/poolsweep/search"
)

// Bounds of the search flags.
const (
	maxBudget = plan.MaxRunTime // a search ends at its budget: the most a run may be planned for
	maxSLOP99 = time.Hour
)

// searchOptions are the adaptive search's flags, kept apart
// from the grid's: --search, --resolution, --budget and --slo-p99.
type searchOptions struct {
	search     string
	resolution string
	budget     time.Duration
	sloP99     time.Duration
}

// addFlags registers the search flags.
func (s *searchOptions) addFlags(f *pflag.FlagSet) {
	cmdutil.ChoiceVar(f, &s.search, "search", "", []string{results.SearchKnee, results.SearchPool}, false, `find the answer in a fraction of the grid's steps: "knee" locates the knee on a log₂ grid between the lowest and highest --concurrency (MIN..MAX will do); "pool" then finds the smallest maxPoolSize at the knee that keeps its throughput, within --pool MIN..MAX when given`)
	cmdutil.TextVar(f, &s.resolution, "resolution", "sqrt2", "sqrt2 or a factor from 1.05 to 4", func(v string) error { _, err := parseResolution(v); return err },
		"with --search: the factor between neighbouring levels of the grid the knee is located on, sqrt2 or a number from 1.05 to 4")
	cmdutil.DurationVar(f, &s.budget, "budget", 0, time.Second, maxBudget, "with --search: a wall-time budget (e.g. 20m), 1s to 168h; the search plans its probes to fit the measured cost per step and, when it ends first, reports its best bracket")
	cmdutil.DurationVar(f, &s.sloP99, "slo-p99", 0, time.Microsecond, maxSLOP99, "with --search pool: the p99 latency per call a pool size must meet, 1µs to 1h")
	travel(f, travelAsGiven, "search", "resolution", "budget", "slo-p99") // refused with --spawn, but as given if they were not
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

// plan turns the search flags into the plan's search, in mode (--search,
// or the one a range without a step asked for; "" for a grid): its grid
// replaces the concurrency list (only the list's lowest and highest level
// count), and the levels that decide the knee get 3 trials unless
// --trials says otherwise (with auto windows: at most 3, where
// neighbouring levels' intervals overlap). Every problem is a usage error
// naming its flag.
func (s *searchOptions) plan(p *plan.Plan, mode, pool string, changed func(string) bool) error {
	if mode == "" {
		for _, f := range []string{"resolution", "budget", "slo-p99"} {
			if changed(f) {
				return errext.Usagef("--%s: only with --search knee or --search pool", f)
			}
		}
		return nil
	}
	switch {
	case p.IsOpen():
		return errext.Usagef("--search: it searches concurrency in the closed loop; with --rate give the rates to offer")
	case p.Order == plan.OrderInterleaved:
		return errext.Usagef("--order interleaved: --search takes one target at a time")
	case len(p.Concurrency) < 2:
		return errext.Usagef("--concurrency: --search needs a range of at least two levels, e.g. 1..128 (got %v)", p.Concurrency)
	case changed("slo-p99") && mode != results.SearchPool:
		return errext.Usagef("--slo-p99: only with --search pool (analyze --slo-p99 reads it for a knee)")
	}
	var poolMin, poolMax int
	if pool = strings.TrimSpace(pool); pool != "match" {
		if mode != results.SearchPool {
			return errext.Usagef("--pool: --search knee measures pool match (P = C); a range of pool sizes (MIN..MAX) is for --search pool")
		}
		// The pool search places its own sizes (--resolution): a list or
		// a stepped range would ask for sizes it does not try.
		if _, to, ok := strings.Cut(pool, ".."); !ok || strings.ContainsAny(to, ",x+") {
			return errext.Usagef("--pool: %s: --search pool tries sizes of its own; give the range it may try them in, MIN..MAX", textfmt.Short(pool))
		}
		var err error
		if poolMin, poolMax, err = plan.ParseSpan(pool, plan.MaxPoolSize); err != nil {
			return errext.Usagef("--pool: %w", err)
		}
	}
	r, err := parseResolution(s.resolution)
	if err != nil {
		return errext.Usagef("--resolution: %w", err)
	}
	levels, err := search.Levels(p.Concurrency[0], p.Concurrency[len(p.Concurrency)-1], r)
	if err != nil {
		return errext.Usagef("--resolution: %w", err)
	}
	if len(levels) > plan.MaxLevels {
		return errext.Usagef("--resolution: ×%g makes %d levels, more than %d", r, len(levels), plan.MaxLevels)
	}
	if !changed("trials") {
		p.Trials = 3
	}
	if changed("budget") {
		shortest, _ := p.StepLengths()
		step := shortest + 500*time.Millisecond
		if s.budget < 2*step {
			return errext.Usagef("--budget: %s does not fit two steps (each at least %s: warm-up + window + opening connections)", s.budget, step)
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
		return 0, fmt.Errorf("%s is not a number or sqrt2", textfmt.Token(v))
	}
	if !(r >= search.MinResolution && r <= search.MaxResolution) {
		return 0, fmt.Errorf("%g is not between %g and %g (the factor between neighbouring levels)", r, search.MinResolution, search.MaxResolution)
	}
	return r, nil
}

// fmtHours prints whole hours briefly ("168h").
func fmtHours(d time.Duration) string { return progress.Hours(d) }

// writeSearchNotes prints what the search found, or why it stopped.
func writeSearchNotes(w io.Writer, notes []string) {
	for _, n := range notes {
		fmt.Fprintln(w, cmdutil.SafeLine(n))
	}
}
