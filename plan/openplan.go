package plan

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/poolsweep/poolsweep/results"
)

// Open-loop plan limits and defaults.
const (
	// MaxRate bounds one --rate level (calls/s from one process).
	MaxRate = results.MaxRate
	// DefaultMaxInFlight is --max-in-flight: the calls one client keeps
	// running at once before it drops arrivals. An application has such a
	// bound too (its request threads or its event loop's backlog); 5,000
	// holds 1 s of backlog at 5,000 calls/s, and costs at most about 250 MB
	// when every one of them waits.
	DefaultMaxInFlight = 5000
	// DefaultOpenPool is the pool of an open-loop sweep when --pool is not
	// given: the driver's own default maxPoolSize, which is what an
	// application that never set it runs with.
	DefaultOpenPool = 100
)

// IsOpen says whether the plan is an open-loop one (--rate).
func (p Plan) IsOpen() bool { return len(p.Rate) > 0 }

// validateOpen checks what only an open-loop plan has; nil for a closed
// loop. Each error names the flag.
func (p Plan) validateOpen() error {
	if !p.IsOpen() && !p.IsProfile() {
		return nil
	}
	switch {
	case p.Pool.Match:
		return errors.New("--pool: match sets the pool to the concurrency, which an open loop does not have; give pool sizes (default " + strconv.Itoa(DefaultOpenPool) + ", the driver's own)")
	case p.Arrivals != results.ArrivalsUniform && p.Arrivals != results.ArrivalsPoisson:
		return fmt.Errorf("--arrivals: %q is not %s or %s", p.Arrivals, results.ArrivalsUniform, results.ArrivalsPoisson)
	case p.MaxInFlight < 1 || p.MaxInFlight > MaxWorkers/max(p.Clients, 1):
		return fmt.Errorf("--max-in-flight: %d is not between 1 and %d (%d calls in flight in one process, over %d client(s))",
			p.MaxInFlight, MaxWorkers/max(p.Clients, 1), MaxWorkers, max(p.Clients, 1))
	case len(p.Concurrency) != 1 || p.Concurrency[0] != p.MaxInFlight:
		return fmt.Errorf("--max-in-flight: an open-loop plan's concurrency must be [%d], not %v", p.MaxInFlight, p.Concurrency)
	}
	for _, r := range p.Rate {
		if err := p.checkRate("--rate", r); err != nil {
			return err
		}
	}
	flag := "--rate"
	if p.IsProfile() {
		flag = "--profile"
	}
	if grid := max(len(p.Rate), 1) * len(p.Pool.Sizes) * len(p.clientLevels()) * p.Trials; grid > MaxSteps {
		return fmt.Errorf("%s, --pool and --trials: %d steps per target is more than %d", flag, grid, MaxSteps)
	}
	return nil
}

// checkRate refuses a rate r (calls/s over all clients) that the plan
// cannot issue: above MaxRate from one process, or below one call a
// second in all. Each client's dispatcher carries r/clients, which for
// --rate may be far below one call a second: many light clients, each an
// application instance at a low rate of its own, are what a connection
// sweep holds at one total rate, and a --rate plan is how it runs. A
// profile's peak keeps its rule of at least one call a second per
// client. what names it: "--rate", or a profile's peak.
func (p Plan) checkRate(what string, r int) error {
	if r < 1 || r > MaxRate {
		return fmt.Errorf("%s: %d calls/s is not between 1 and %d", what, r, MaxRate)
	}
	if p.IsProfile() && r < p.Clients {
		return fmt.Errorf("%s: %d calls/s over %d clients is less than one call a second each", what, r, p.Clients)
	}
	return nil
}

// openSteps expands an open-loop plan: rate × pool for every target,
// workload and trial, in the closed loop's order (trials outer, the rate
// rising within a trial).
func (p Plan) openSteps(targets, workloads []string) []StepSpec {
	var grid []StepSpec
	for _, r := range p.Rate {
		for _, ps := range p.Pool.Sizes {
			grid = append(grid, StepSpec{Concurrency: p.MaxInFlight, MaxPoolSize: ps, PoolSetting: strconv.Itoa(ps), Rate: r, Arrivals: p.Arrivals})
		}
	}
	return p.expand(targets, workloads, func(string) []StepSpec { return grid })
}
