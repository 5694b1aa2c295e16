package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/analysis/conncost"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/infile"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/results"
)

// Bounds of the autoscaling fleet's pool options: a pool of at most
// 100,000 (as --concurrency), an idle time of at most a day.
const (
	maxMinPool = 100_000
	maxIdle    = 24 * time.Hour
	// maxRatePerInstance is the most calls/s --rate-per-instance takes:
	// loadprofile's bound on a rate.
	maxRatePerInstance = loadprofile.MaxRate
)

// planFlags are what fleet plans with beyond the flags it shares with
// report and sweep: the measured cost of a connection, a named limit,
// and an autoscaling fleet's trace.
type planFlags struct {
	costs           string
	limit           string
	instancesTrace  string
	rateTrace       string
	ratePerInstance float64
	minPool         int
	maxIdle         time.Duration
	set             *pflag.FlagSet
}

func (p *planFlags) add(f *pflag.FlagSet) {
	p.set = f
	cmdutil.TextVar(f, &p.costs, "costs", "", "a results file with a connection sweep", nil, "take the memory per connection and the monitors per client from this run's connection sweep (analyze's connection_cost) instead of the 1 MiB assumption")
	cmdutil.TextVar(f, &p.limit, "limit", "", "atlas:TIER", func(s string) error { _, err := fleet.ParseLimit(s); return err },
		"a named connection limit per host: atlas:M10 … atlas:M300, the tier's limit per node less the 10 Atlas reserves")
	cmdutil.TextVar(f, &p.instancesTrace, "instances-trace", "", "a CSV file of t_s,instances", nil, "an autoscaling fleet: its instance count over time (rows t_s,instances); the plan is made for its peak")
	cmdutil.TextVar(f, &p.rateTrace, "rate-trace", "", "a CSV file of t_s,rate (sweep --profile trace:FILE's format)", nil, "an autoscaling fleet from a traffic trace: ceil(rate / --rate-per-instance) instances at each row")
	cmdutil.FloatVar(f, &p.ratePerInstance, "rate-per-instance", 0, 0, maxRatePerInstance, true, false, "with --rate-trace: the calls/s one instance takes before the autoscaler adds another")
	cmdutil.IntVar(f, &p.minPool, "min-pool", 0, 0, maxMinPool, "with a trace: each instance's minPoolSize, the connections its pool opens at start and keeps")
	cmdutil.DurationVar(f, &p.maxIdle, "max-idle", 0, 0, maxIdle, "with a trace: each instance's maxIdleTimeMS (0: idle connections are never closed)")
}

// check refuses combinations that say one thing twice or describe a
// fleet the command was not asked to plan, before anything is read.
func (p *planFlags) check(instances int) error {
	trace := p.instancesTrace != "" || p.rateTrace != ""
	switch {
	case p.instancesTrace != "" && p.rateTrace != "":
		return errext.Usagef("--rate-trace: --instances-trace gives the fleet's size too; give one")
	case trace && instances > 0:
		return errext.Usagef("--instances: the trace gives the fleet's size (the plan is made for its peak); give one")
	case !trace && instances < 1:
		return errext.Usagef("--instances: required (the application instances, from 1 to %d), or --instances-trace or --rate-trace for an autoscaling fleet", cmdutil.MaxFleetInstances)
	case p.rateTrace != "" && p.ratePerInstance <= 0:
		return errext.Usagef("--rate-per-instance: required with --rate-trace (the calls/s one instance takes)")
	case p.rateTrace == "" && p.set.Changed("rate-per-instance"):
		return errext.Usagef("--rate-per-instance: turns a traffic trace into instances, which needs --rate-trace")
	case p.costs != "" && p.set.Changed("conn-memory"):
		return errext.Usagef("--conn-memory: --costs measures the memory per connection; give one")
	case p.limit != "" && p.set.Changed("max-connections"):
		return errext.Usagef("--limit: --max-connections sets the limit per host too; give one")
	}
	if !trace {
		for _, name := range []string{"min-pool", "max-idle"} {
			if p.set.Changed(name) {
				return errext.Usagef("--%s: describes an autoscaling fleet's instances, which needs --instances-trace or --rate-trace", name)
			}
		}
	}
	return nil
}

// inputs are the files these flags name, which -o must not replace.
func (p *planFlags) inputs() []outfile.Input {
	var in []outfile.Input
	in = append(in, cmdutil.FlagFile("--costs", p.costs)...)
	in = append(in, cmdutil.FlagFile("--instances-trace", p.instancesTrace)...)
	return append(in, cmdutil.FlagFile("--rate-trace", p.rateTrace)...)
}

// options reads the files the flags name and says what they add to the
// plan; bad input is one line naming the flag.
func (p *planFlags) options(ctx context.Context, read cmdutil.ReadOptions) (func(*fleet.Options), error) {
	var (
		cost  *conncost.Cost
		limit *fleet.LimitSpec
		trace *fleet.Trace
		err   error
	)
	if p.limit != "" {
		l, err := fleet.ParseLimit(p.limit)
		if err != nil {
			return nil, errext.Usagef("--limit: %s", err)
		}
		limit = &l
	}
	if p.costs != "" {
		if cost, err = readCosts(ctx, p.costs, read); err != nil {
			return nil, err
		}
	}
	if trace, err = p.readTrace(ctx); err != nil {
		return nil, err
	}
	return func(o *fleet.Options) {
		o.Costs, o.CostsFrom, o.Limit, o.Trace = cost, p.costs, limit, trace
		if trace != nil {
			o.Instances, _ = trace.Peak()
		}
	}, nil
}

// readCosts estimates the cost of a connection from the --costs run.
func readCosts(ctx context.Context, path string, read cmdutil.ReadOptions) (*conncost.Cost, error) {
	run, err := results.ReadFileWith(ctx, path, read.Options())
	if err != nil {
		if ctx.Err() != nil {
			return nil, errext.InterruptedBy(ctx)
		}
		return nil, errext.Usagef("--costs: %w", textfmt.EscapeError(err))
	}
	cost, err := conncost.Estimate(run)
	if errors.Is(err, conncost.ErrNoConnectionSweep) {
		return nil, errext.Usagef("--costs: %s: %s", textfmt.Escape(path), err)
	}
	if err != nil {
		return nil, errext.Usagef("--costs: %s: %s", textfmt.Escape(path), textfmt.Escape(err.Error()))
	}
	return cost, nil
}

// readTrace reads the instance or rate trace, if one was given.
func (p *planFlags) readTrace(ctx context.Context) (*fleet.Trace, error) {
	t := &fleet.Trace{MinPoolSize: p.minPool, MaxIdle: p.maxIdle}
	switch {
	case p.instancesTrace != "":
		b, err := infile.ReadAll(ctx, p.instancesTrace, loadprofile.MaxTraceBytes)
		if err != nil {
			return nil, traceErr(ctx, "--instances-trace", err)
		}
		if t.Points, err = fleet.ParseInstanceTrace(p.instancesTrace, b, cmdutil.MaxFleetInstances); err != nil {
			return nil, errext.Usagef("--instances-trace: %s", err)
		}
		t.Source = "instance counts from " + p.instancesTrace
	case p.rateTrace != "":
		pts, err := loadprofile.ReadTrace(ctx, p.rateTrace)
		if err != nil {
			return nil, traceErr(ctx, "--rate-trace", err)
		}
		if t.Points, err = fleet.InstancesFromRates(pts, p.ratePerInstance, cmdutil.MaxFleetInstances); err != nil {
			return nil, errext.Usagef("--rate-trace: %s: %s", textfmt.Escape(p.rateTrace), err)
		}
		t.Source = fmt.Sprintf("the rate trace %s at %g calls/s per instance", p.rateTrace, p.ratePerInstance)
	default:
		return nil, nil
	}
	return t, nil
}

func traceErr(ctx context.Context, flag string, err error) error {
	if ctx.Err() != nil {
		return errext.InterruptedBy(ctx)
	}
	return errext.Usagef("%s: %w", flag, textfmt.EscapeError(err))
}
