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
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/infile"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// maxRatePerInstance bounds --rate-per-instance: an application instance
// that takes more than 10,000 calls/s before another is added is a
// fleet of few, which --instances plans directly.
const maxRatePerInstance = 10_000

// planFlags are what fleet plans with beyond the flags it shares with
// report and sweep: the measured cost of a connection, a named limit,
// and an autoscaling fleet's trace.
type planFlags struct {
	costs           string
	limit           string
	instancesTrace  string
	rateTrace       string
	ratePerInstance float64
	minPool         string
	maxIdle         string
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
	// The pool options read as sweep reads them (plan's parsers), one value each.
	cmdutil.TextVar(f, &p.minPool, "min-pool", "", "a whole number from 0", checkOne(plan.ParseMinPool),
		"each instance's minPoolSize: the connections its pool opens at start and keeps at rest")
	cmdutil.TextVar(f, &p.maxIdle, "max-idle", "", "a duration in whole ms", checkOne(parseMaxIdle),
		"each instance's maxIdleTimeMS: how long a connection above minPoolSize stays idle before it closes (0: never)")
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
		return errext.Usagef("--instances: required (the application instances, from 1 to %d), or --instances-trace or --rate-trace for an autoscaling fleet", shared.MaxFleetInstances)
	case p.rateTrace != "" && p.ratePerInstance <= 0:
		return errext.Usagef("--rate-per-instance: required with --rate-trace (the calls/s one instance takes)")
	case p.rateTrace == "" && p.set.Changed("rate-per-instance"):
		return errext.Usagef("--rate-per-instance: turns a traffic trace into instances, which needs --rate-trace")
	case p.costs != "" && p.set.Changed("conn-memory"):
		return errext.Usagef("--conn-memory: --costs measures the memory per connection; give one")
	case p.limit != "" && p.set.Changed("max-connections"):
		return errext.Usagef("--limit: --max-connections sets the limit per host too; give one")
	}
	return nil
}

func parseMaxIdle(s string) ([]time.Duration, error) {
	return plan.ParseLengths(s, time.Millisecond, plan.MaxIdle, "never close an idle connection")
}

// checkOne makes a list parser the check of a flag that takes one value.
func checkOne[T any](parse func(string) ([]T, error)) func(string) error {
	return func(s string) error {
		_, err := one(parse, s)
		return err
	}
}

// one is the single value of s; the zero value when s is "".
func one[T any](parse func(string) ([]T, error), s string) (T, error) {
	var zero T
	if s == "" {
		return zero, nil
	}
	vs, err := parse(s)
	switch {
	case err != nil:
		return zero, err
	case len(vs) != 1:
		return zero, fmt.Errorf("one value: the instances of a fleet share their pool options")
	}
	return vs[0], nil
}

// inputs are the files these flags name, which -o must not replace.
func (p *planFlags) inputs() []outfile.Input {
	var in []outfile.Input
	in = append(in, cmdutil.FlagFile("--costs", p.costs)...)
	in = append(in, cmdutil.FlagFile("--instances-trace", p.instancesTrace)...)
	return append(in, cmdutil.FlagFile("--rate-trace", p.rateTrace)...)
}

// options reads the files the flags name and says what they add to the
// plan; bad input is one line naming the flag. instances is --instances:
// a fleet of fixed size given pool options is a trace of one row.
func (p *planFlags) options(ctx context.Context, read shared.ReadOptions, instances int) (func(*fleet.Options), error) {
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
	if trace, err = p.readTrace(ctx, instances); err != nil {
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
func readCosts(ctx context.Context, path string, read shared.ReadOptions) (*conncost.Cost, error) {
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

// readTrace reads the instance or rate trace, if one was given; pool
// options without one describe the fixed fleet of instances.
func (p *planFlags) readTrace(ctx context.Context, instances int) (*fleet.Trace, error) {
	minPool, err := one(plan.ParseMinPool, p.minPool)
	if err != nil {
		return nil, errext.Usagef("--min-pool: %s", err)
	}
	idle, err := one(parseMaxIdle, p.maxIdle)
	if err != nil {
		return nil, errext.Usagef("--max-idle: %s", err)
	}
	t := &fleet.Trace{MinPoolSize: minPool, MaxIdle: idle}
	switch {
	case p.instancesTrace != "":
		b, err := infile.ReadAll(ctx, p.instancesTrace, loadprofile.MaxTraceBytes)
		if err != nil {
			return nil, traceErr(ctx, "--instances-trace", err)
		}
		if t.Points, err = fleet.ParseInstanceTrace(p.instancesTrace, b, shared.MaxFleetInstances); err != nil {
			return nil, errext.Usagef("--instances-trace: %s", err)
		}
		t.Source = "instance counts from " + p.instancesTrace
	case p.rateTrace != "":
		pts, err := loadprofile.ReadTrace(ctx, p.rateTrace)
		if err != nil {
			return nil, traceErr(ctx, "--rate-trace", err)
		}
		if t.Points, err = fleet.InstancesFromRates(pts, p.ratePerInstance, shared.MaxFleetInstances); err != nil {
			return nil, errext.Usagef("--rate-trace: %s: %s", textfmt.Escape(p.rateTrace), err)
		}
		t.Source = fmt.Sprintf("the rate trace %s at %g calls/s per instance", p.rateTrace, p.ratePerInstance)
	case p.minPool != "" || p.maxIdle != "":
		t.Points = []fleet.TracePoint{{Instances: instances}}
		t.Source = "a fixed fleet"
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
