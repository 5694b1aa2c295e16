package sweep

import (
	"slices"
	"strings"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// The fast path by default: a range without a step
// (--concurrency 1..1024) asks for a search, which places its own levels;
// a list or a range with a step (1..64x2, 100..1000+100) keeps a grid.
// The plan's first line says which, and why.

// planChoice is grid or search, and why, in the words of the plan line.
type planChoice struct {
	search string // "": a grid; else the search mode, knee or pool
	why    string
}

// bareRange says v holds a range without a step ("1..256"), the form that
// asks for a search.
func bareRange(v string) bool {
	for _, part := range strings.Split(v, ",") {
		if _, to, ok := strings.Cut(part, ".."); ok && !strings.ContainsAny(to, "x+") {
			return true
		}
	}
	return false
}

// gridOnly is why this run cannot be searched, "" when it can, and the
// flag that says so.
func (o *Options) gridOnly() (flag, why string) {
	pool := strings.TrimSpace(o.pool)
	switch {
	case o.spawn > 0:
		return "--spawn", "several agents measure a grid in lock step (a search runs in one process)"
	case o.agentMode():
		return "--agents", "several agents measure a grid in lock step (a search runs in one process)"
	case o.order == plan.OrderInterleaved:
		return "--order interleaved", "interleaved targets take a grid (a search takes one target at a time)"
	case pool != "match" && !bareRange(pool):
		return "--pool " + pool, "a list of pool sizes makes a grid of concurrency × pool (a search measures pool match)"
	case len(o.ownLevels) > 0:
		return "--concurrency NAME=LIST", "levels of a target's own make a grid (a search takes one span for every target)"
	}
	return "", ""
}

// choosePlan reads --concurrency (or the target kind's default, d) and
// --pool as a grid or a search's span, and says which and why. A search's
// levels are its span's two ends (searchOptions.plan places the rest) and
// its knee is measured at pool match. The open loop (--rate) sets its own
// levels (applyOpen). Every refusal names its flag and says how to get a
// grid instead.
func (o *Options) choosePlan(d planDefaults) ([]int, plan.PoolPlan, planChoice, error) {
	if o.changed("rate") || o.changed("profile") {
		pool, err := plan.ParsePool(o.pool)
		if err != nil {
			return nil, plan.PoolPlan{}, planChoice{}, errext.Usagef("--pool: %w", err)
		}
		why := "the open loop (--rate) measures every rate given"
		if o.changed("profile") {
			// --search with --profile is refused by applyProfile.
			return nil, pool, planChoice{why: "a profile (--profile) runs every pool setting through the load given"}, nil
		}
		// --search with --rate is refused by searchOptions.plan.
		return nil, pool, planChoice{search: strings.TrimSpace(o.search), why: why}, nil
	}
	// Given: a list for every target (NAME=LIST alone leaves the others
	// at the default).
	conc, given := o.concurrency, o.concurrency != ""
	gridFlag, gridWhy := o.gridOnly()
	if !given {
		conc = d.concurrency
		if gridFlag != "" && d.gridConcurrency != "" && !o.searching() {
			conc = d.gridConcurrency
		}
	}
	var c planChoice
	pool := strings.TrimSpace(o.pool)
	switch {
	case o.searching():
		c = planChoice{search: o.search, why: "--search " + o.search + " was given"}
	case bareRange(conc) || bareRange(pool):
		mode, what := results.SearchKnee, "searching for the knee"
		if bareRange(pool) {
			mode, what = results.SearchPool, "searching for the knee, then the pool size"
		}
		switch {
		case gridFlag != "" && given && bareRange(conc):
			return nil, plan.PoolPlan{}, c, errext.Usagef("%s: --concurrency %s has no step, which asks for a search, but %s; give --concurrency as a list or MIN..MAXxSTEP for a grid", gridFlag, textfmt.Short(conc), gridWhy)
		case gridFlag != "":
			return nil, plan.PoolPlan{}, c, errext.Usagef("%s: --pool %s has no step, which asks for --search pool, but %s; give --pool as a list or MIN..MAXxSTEP for a grid", gridFlag, textfmt.Short(pool), gridWhy)
		case given && !bareRange(conc):
			return nil, plan.PoolPlan{}, c, errext.Usagef("--pool %s: a range without a step asks for --search pool, which places its own concurrency levels, but --concurrency %s is a grid; give --concurrency as MIN..MAX to search, or --pool as a list or MIN..MAXxSTEP for a grid", textfmt.Short(pool), textfmt.Short(conc))
		case given || bareRange(pool):
			flag, v := "--concurrency", conc
			if !bareRange(conc) || bareRange(pool) {
				flag, v = "--pool", pool
			}
			c = planChoice{search: mode, why: "a range without a step was given (" + flag + " " + v + "): " + what + "; give a list or MIN..MAXxSTEP for a grid"}
		default:
			c = planChoice{search: mode, why: "the default for a deployment is a search over " + conc + ": " + what + "; give --concurrency as a list or MIN..MAXxSTEP for a grid"}
		}
	default:
		levels, err := plan.ParseLevels(conc, results.MaxConcurrency)
		if err != nil {
			return nil, plan.PoolPlan{}, c, errext.Usagef("--concurrency: %w", err)
		}
		pp, err := plan.ParsePool(o.pool)
		if err != nil {
			return nil, plan.PoolPlan{}, c, errext.Usagef("--pool: %w", err)
		}
		return levels, pp, planChoice{why: gridReason(conc, given, d, gridWhy)}, nil
	}
	lo, hi, err := plan.ParseSpan(conc, results.MaxConcurrency)
	if err != nil {
		return nil, plan.PoolPlan{}, c, errext.Usagef("--concurrency: %w", err)
	}
	return slices.Compact([]int{lo, hi}), plan.PoolPlan{Match: true, Given: "match"}, c, nil
}

// gridReason says why a grid was chosen, and how to search instead.
func gridReason(conc string, given bool, d planDefaults, gridWhy string) string {
	const search = "; give MIN..MAX without a step to search for the knee"
	switch {
	case gridWhy != "" && !given:
		return gridWhy + ": the levels " + conc
	case !given && d.why != "":
		return d.why + search
	case strings.Contains(conc, ".."):
		return "a range with a step was given (--concurrency " + conc + "): every level of it" + search
	}
	return "a list was given (--concurrency " + conc + "): every level of it" + search
}
