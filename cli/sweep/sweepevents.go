package sweep

import (
	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// Events under load (--event T=ACTION): an action fired into every
// profile step. The values are read while the command line is parsed
// (plan.ParseEvent) and checked against the profile with the plan
// (plan's validateEvents); what the target must be for each action is
// checked once it answers, before any load (sweep.CheckEvents).

// addEventFlags registers --event.
func (o *Options) addEventFlags(f *pflag.FlagSet) {
	cmdutil.TextArrayVar(f, &o.events, "event", "T=ACTION", checkEvent,
		"with --profile: an action fired into every step T into its profile (repeatable): stepdown (replSetStepDown on the replica set's primary), and on the simulator slow=F:D (service time × F for D), freeze=D (no answer for D), reset (every connection closed) and router-restart (a mongos away for its restart time), e.g. 20s=stepdown, 10s=slow=10:5s; docs/sweep.md")
	travel(f, travelAsGiven, "event")
}

func checkEvent(s string) error {
	_, err := plan.ParseEvent(s)
	return err
}

// applyEvents reads --event into the plan in time order; the plan's
// Validate checks them against the profile.
func (o *Options) applyEvents(p *plan.Plan) error {
	if !o.changed("event") {
		return nil
	}
	var evs []results.EventSpec
	for _, s := range o.events {
		ev, err := plan.ParseEvent(s)
		if err != nil {
			return errext.Usagef("--event: %w", err)
		}
		evs = append(evs, ev)
	}
	plan.SortEvents(evs)
	p.Events = evs
	return nil
}
