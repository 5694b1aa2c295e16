package sweep

import (
	"slices"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/topology"
)

// Levels of a target's own: deployments of different sizes saturate at
// different concurrencies (the seeds measured a standalone at 64, 500 and
// 1000 connections per client and a sharded cluster at 32 to 300), so
// --concurrency NAME=LIST gives target NAME a grid of its own, in the
// same run, against the same load host, instead of two runs compared
// across a between-run floor. A bare list stays every other target's.

// applyOwnLevels gives each target named by --concurrency NAME=LIST its
// own levels and every other target the plan's, and says so in the plan
// line. Levels of one's own make a grid: a search (one span for every
// target) is refused, as is a name that is no target's, or a bare list
// left for no target.
func (o *Options) applyOwnLevels(p *plan.Plan, targets []topology.Target, c *planChoice) error {
	if len(o.ownLevels) == 0 {
		return nil
	}
	if c.search != "" {
		return errext.Usagef("--concurrency NAME=LIST and --search: levels of a target's own make a grid, and a search takes one span for every target; give each target a list or MIN..MAXxSTEP")
	}
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
	}
	own := map[string][]int{}
	for _, v := range o.ownLevels { // each NAME=LIST checked as it was parsed
		name, list, _ := strings.Cut(v, "=")
		if !slices.Contains(names, name) {
			return errext.Usagef("--concurrency %s=…: no target is named %s (the targets: %s)", name, name, textfmt.List(names, ", "))
		}
		levels, err := plan.ParseLevels(list, plan.MaxConcurrency)
		if err != nil {
			return errext.Usagef("--concurrency: target %s: %w", name, err)
		}
		own[name] = levels
	}
	if len(own) == len(names) && o.concurrency != "" {
		return errext.Usagef("--concurrency %s: every target has levels of its own (NAME=LIST), so this list is for none; drop it", textfmt.Short(o.concurrency))
	}
	var rest []string
	for _, n := range names {
		if _, ok := own[n]; !ok {
			own[n] = p.Concurrency
			rest = append(rest, n)
		}
	}
	why := "each target at its own levels (--concurrency " + strings.Join(o.ownLevels, " ") + "): every level of each"
	if len(rest) > 0 {
		why += "; " + textfmt.List(rest, ", ") + " at " + intList(p.Concurrency)
	}
	p.SetTargetLevels(own)
	c.why = why
	return nil
}

// intList writes levels as --concurrency takes them: "64,500,1000".
func intList(levels []int) string {
	s := make([]string, len(levels))
	for i, l := range levels {
		s[i] = strconv.Itoa(l)
	}
	return strings.Join(s, ",")
}
