package main

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
func (o *sweepOptions) applyOpen(p *plan.Plan) error {
	if !o.changed("rate") {
		for _, f := range []string{"arrivals", "max-in-flight"} {
			if o.changed(f) {
				return errext.Usagef("--%s: only with --rate (an open-loop sweep)", f)
			}
		}
		return nil
	}
	if o.changed("concurrency") {
		return errext.Usagef("--rate and --concurrency: --rate offers calls at fixed rates (open loop), --concurrency runs workers back to back (closed loop); give one")
	}
	rates, err := plan.ParseLevels(o.rate, plan.MaxRate)
	if err != nil {
		return errext.Usagef("--rate: %w", err)
	}
	p.Rate, p.Arrivals, p.MaxInFlight = rates, o.arrivals, o.maxInFlight
	p.Concurrency = []int{o.maxInFlight}
	if !o.changed("pool") {
		p.Pool = plan.PoolPlan{Sizes: []int{plan.DefaultOpenPool}, Given: fmt.Sprint(plan.DefaultOpenPool)}
	}
	return nil
}
