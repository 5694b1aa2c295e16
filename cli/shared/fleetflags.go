package shared

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Bounds of the fleet's numbers: a fleet of up to 100,000 instances,
// limits as a server may have them (a mongod allows 1,000,000 connections
// by default), and a connection's memory up to 1 GiB.
const (
	MaxFleetInstances   = 100_000
	maxFleetConcurrency = 100_000
	maxFleetConnections = 10_000_000
	maxConnMemoryMiB    = 1024
)

// FleetFlags are the fleet plan's inputs. fleet takes them; report and
// sweep take the same (with the same names, ranges and help) to add the
// plan to the report; registered here once for all three.
type FleetFlags struct {
	instances      int
	concurrency    int
	maxConnections int
	connMemory     float64
	storm          string
	set            *pflag.FlagSet
	// names are the flags add registered on set.
	names []string
	// stormRun is the --storm file, once read (ReadStorm).
	stormRun *results.Results
}

// FleetFlagNames are the flags add registers (sweep's agents are not
// given them: the leader writes the report).
var FleetFlagNames = []string{"instances", "concurrency", "max-connections", "conn-memory", "storm"}

// Add registers the fleet flags on f; what says what --instances does
// for the command ("required", or what it adds). perInstance registers
// --concurrency, the callers per instance (sweep's --concurrency is its
// own levels: a sweep's report plans with the measured knee's).
func (k *FleetFlags) Add(f *pflag.FlagSet, what string, perInstance bool) {
	k.set, k.names = f, FleetFlagNames
	if !perInstance {
		k.names = slices.DeleteFunc(slices.Clone(FleetFlagNames), func(n string) bool { return n == "concurrency" })
	}
	cmdutil.IntVar(f, &k.instances, "instances", 0, 1, MaxFleetInstances, fmt.Sprintf("application instances, each with its own pool per host (%s), from 1 to %d", what, MaxFleetInstances))
	if perInstance {
		cmdutil.IntVar(f, &k.concurrency, "concurrency", 0, 0, maxFleetConcurrency, "callers per instance at its busiest (0: the measured client's concurrency at its knee)")
	}
	cmdutil.IntVar(f, &k.maxConnections, "max-connections", 0, 0, maxFleetConnections, "the server's connection limit per host (0: from the steps' serverStatus connections.current + available)")
	cmdutil.FloatVar(f, &k.connMemory, "conn-memory", fleet.DefaultConnMemoryMiB, 0, maxConnMemoryMiB, true, false, "server memory per connection in MiB (about 1 on mongod)")
	cmdutil.TextVar(f, &k.storm, "storm", "", "a storm run's results file (poolsweep storm -o)", nil, "a storm run of the same deployment: its connection-setup saturation beside the knee, and the fleet's restart time")
}

// Instances is --instances: 0 when not given.
func (k *FleetFlags) Instances() int { return k.instances }

// Asked says whether a plan was asked for; a fleet flag without
// --instances is bad input.
func (k *FleetFlags) Asked() (bool, error) {
	if k.instances > 0 {
		return true, nil
	}
	for _, name := range k.names {
		if name != "instances" && k.set.Changed(name) {
			return false, errext.Usagef("--%s: plans a fleet, which needs --instances", name)
		}
	}
	return false, nil
}

// ReadStorm reads and checks the --storm file, once: a storm run
// (fleet.CheckStorm), or one line naming --storm.
func (k *FleetFlags) ReadStorm(ctx context.Context, read ReadOptions) error {
	if k.storm == "" || k.stormRun != nil {
		return nil
	}
	run, err := results.ReadFileWith(ctx, k.storm, read.Options())
	if err != nil {
		if ctx.Err() != nil {
			return errext.InterruptedBy(ctx)
		}
		return errext.Usagef("--storm: %w", textfmt.EscapeError(err))
	}
	if err := fleet.CheckStorm(run); err != nil {
		return errext.Usagef("--storm: %s", textfmt.Escape(err.Error()))
	}
	k.stormRun = run
	return nil
}

// Plan reads the storm run, if any, and makes the fleet's plan from rs
// and their analysis a; more set the options a command adds beyond these
// flags (fleet's measured costs, named limit and trace). Input that
// cannot be planned from is one line naming the flag (a usage error).
func (k *FleetFlags) Plan(ctx context.Context, read ReadOptions, rs []*results.Results, a *analysis.Analysis, more ...func(*fleet.Options)) (*fleet.Plan, error) {
	if err := k.ReadStorm(ctx, read); err != nil {
		return nil, err
	}
	o := k.options()
	for _, set := range more {
		set(&o)
	}
	p, err := fleet.Make(rs, a, o)
	var mis *fleet.MismatchError
	switch {
	case errors.Is(err, fleet.ErrNothing):
		return nil, errext.Usagef("--instances: %w", err)
	case errors.As(err, &mis):
		return nil, errext.Usagef("--storm: %s", textfmt.Escape(mis.Reason))
	}
	return p, err
}

// Inputs are the files the fleet flags name (--storm), which an output
// of the command must not replace.
func (k *FleetFlags) Inputs() []outfile.Input { return cmdutil.FlagFile("--storm", k.storm) }

// Names are the flags Add registered.
func (k *FleetFlags) Names() []string { return k.names }

// Options are the fleet's options as the flags give them (the storm run
// once ReadStorm has read it); nil without --instances.
func (k *FleetFlags) Options() *fleet.Options {
	if k.instances == 0 {
		return nil
	}
	o := k.options()
	return &o
}

// options leave ConnMemoryMiB 0 unless --conn-memory was given, so the
// plan says its figure is the assumption rather than the user's.
func (k *FleetFlags) options() fleet.Options {
	o := fleet.Options{Instances: k.instances, Concurrency: k.concurrency, MaxConnections: k.maxConnections, Storm: k.stormRun}
	if k.set != nil && k.set.Changed("conn-memory") {
		o.ConnMemoryMiB = k.connMemory
	}
	return o
}
