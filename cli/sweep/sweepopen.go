package sweep

import (
	"fmt"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/plan"
)

// applyOpen turns the open-loop flags into the plan: with --rate, the
// rate levels, the arrival process and max-in-flight (which is then the
// plan's concurrency: the most calls in flight per client), and the pool
// defaults to the driver's own 100 instead of "match", which needs a
// concurrency. Without --rate, the open-loop flags are refused.
func (o *Options) applyOpen(p *plan.Plan) error {
	profile := o.changed("profile")
	if !o.changed("rate") && !profile {
		for _, f := range []string{"arrivals", "max-in-flight"} {
			if o.changed(f) {
				return errext.Usagef("--%s: only with --rate or --profile (an open-loop sweep)", f)
			}
		}
		return nil
	}
	switch {
	case profile && o.changed("rate"):
		return errext.Usagef("--profile and --rate: the profile gives the rate at every moment; give one")
	case profile && o.changed("concurrency"):
		// A profile offers arrivals: what bounds the calls a client runs
		// at once is --max-in-flight; a concurrency list would be ignored.
		return errext.Usagef("--profile and --concurrency: a profile offers calls at its rates (open loop), --concurrency runs workers back to back (closed loop); bound the calls in flight per client with --max-in-flight")
	case o.changed("concurrency"):
		return errext.Usagef("--rate and --concurrency: --rate offers calls at fixed rates (open loop), --concurrency runs workers back to back (closed loop); give one")
	}
	if !profile {
		rates, err := plan.ParseLevels(o.rate, plan.MaxRate)
		if err != nil {
			return errext.Usagef("--rate: %w", err)
		}
		p.Rate = rates
	}
	p.Arrivals, p.MaxInFlight = o.arrivals, o.maxInFlight
	if !o.changed("max-in-flight") {
		// Many clients share one process's bound on calls in flight:
		// the default is what each may hold within it.
		p.MaxInFlight = min(o.maxInFlight, plan.MaxWorkers/max(p.Clients, 1))
	}
	p.Concurrency = []int{p.MaxInFlight}
	if !o.changed("pool") {
		p.Pool = plan.PoolPlan{Sizes: []int{plan.DefaultOpenPool}, Given: fmt.Sprint(plan.DefaultOpenPool)}
	}
	return nil
}
