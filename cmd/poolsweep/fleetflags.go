package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"slices"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Bounds of the fleet's numbers: a fleet of up to 100,000 instances,
// limits as a server may have them (a mongod allows 1,000,000 connections
// by default), and a connection's memory up to 1 GiB.
const (
	maxFleetInstances   = 100_000
	maxFleetConcurrency = 100_000
	maxFleetConnections = 10_000_000
	maxConnMemoryMiB    = 1024
)

// fleetFlags are the fleet plan's inputs. fleet takes them; report and
// sweep take the same (with the same names, ranges and help) to add the
// plan to the report; registered here once for all three.
type fleetFlags struct {
	instances      int
	concurrency    int
	maxConnections int
	connMemory     float64
	storm          string
	set            *pflag.FlagSet
	// names are the flags add registered on set.
	names []string
	// stormRun is the --storm file, once read (readStorm).
	stormRun *results.Results
}

// fleetFlagNames are the flags add registers (sweep's agents are not
// given them: the leader writes the report).
var fleetFlagNames = []string{"instances", "concurrency", "max-connections", "conn-memory", "storm"}

// add registers the fleet flags on f; what says what --instances does
// for the command ("required", or what it adds). perInstance registers
// --concurrency, the callers per instance (sweep's --concurrency is its
// own levels: a sweep's report plans with the measured knee's).
func (k *fleetFlags) add(f *pflag.FlagSet, what string, perInstance bool) {
	k.set, k.names = f, fleetFlagNames
	if !perInstance {
		k.names = slices.DeleteFunc(slices.Clone(fleetFlagNames), func(n string) bool { return n == "concurrency" })
	}
	intVar(f, &k.instances, "instances", 0, 1, maxFleetInstances, fmt.Sprintf("application instances, each with its own pool per host (%s), from 1 to %d", what, maxFleetInstances))
	if perInstance {
		intVar(f, &k.concurrency, "concurrency", 0, 0, maxFleetConcurrency, "callers per instance at its busiest (0: the measured client's concurrency at its knee)")
	}
	intVar(f, &k.maxConnections, "max-connections", 0, 0, maxFleetConnections, "the server's connection limit per host (0: from the steps' serverStatus connections.current + available)")
	floatVar(f, &k.connMemory, "conn-memory", fleet.DefaultConnMemoryMiB, 0, maxConnMemoryMiB, true, false, "server memory per connection in MiB (about 1 on mongod)")
	textVar(f, &k.storm, "storm", "", "a storm run's results file (poolsweep storm -o)", nil, "a storm run of the same deployment: its connection-setup saturation beside the knee, and the fleet's restart time")
}

// asked says whether a plan was asked for; a fleet flag without
// --instances is bad input.
func (k *fleetFlags) asked() (bool, error) {
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

// readStorm reads and checks the --storm file, once: a storm run
// (fleet.CheckStorm), or one line naming --storm.
func (k *fleetFlags) readStorm(ctx context.Context, read readOptions) error {
	if k.storm == "" || k.stormRun != nil {
		return nil
	}
	run, err := results.ReadFileWith(ctx, k.storm, read.options())
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

// plan reads the storm run, if any, and makes the fleet's plan from rs
// and their analysis a. Input that cannot be planned from is one line
// naming the flag (a usage error).
func (k *fleetFlags) plan(ctx context.Context, read readOptions, rs []*results.Results, a *analysis.Analysis) (*fleet.Plan, error) {
	if err := k.readStorm(ctx, read); err != nil {
		return nil, err
	}
	o := fleet.Options{Instances: k.instances, Concurrency: k.concurrency, MaxConnections: k.maxConnections, ConnMemoryMiB: k.connMemory, Storm: k.stormRun}
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
