package main

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/analysis"
	fleetplan "github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/inspect"
	"github.com/poolsweep/poolsweep/cli/merge"
	"github.com/poolsweep/poolsweep/cli/serve"
	"github.com/poolsweep/poolsweep/cli/storm"
	"github.com/poolsweep/poolsweep/results"
)

// The sweep command's files (sweep*.go, gates.go, progress*.go, …) stay
// in this package while its run moves into the run library (issue 34).
// What they share with the commands in cli/ now lives in cli/cmdutil (and
// cli/merge, cli/serve); the names below keep those files compiling
// unchanged, and go when the sweep moves to cli/sweep.

// env is what the sweep needs from the process. Not an alias of
// cmdutil.Env: the sweep's files use its lower-case fields (onStreams in
// root.go fills it from root's streams).
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

var (
	safeLine    = cmdutil.SafeLine
	warnAll     = cmdutil.WarnAll
	argsUsage   = cmdutil.ArgsUsage
	flagError   = cmdutil.FlagError
	checkListen = serve.CheckListen
	writeMerged = merge.WriteMerged
)

var fleetFlagNames = cmdutil.FleetFlagNames

const (
	lenientHelp      = cmdutil.LenientHelp
	maxWorkloadBytes = cmdutil.MaxWorkloadBytes
	logTailBytes     = cmdutil.LogTailBytes
)

type (
	serveOptions   = serve.Options
	inspectOptions = inspect.Options
	stormOptions   = storm.Options
)

// readInput is cmdutil.ReadInput (a generic function has no value to
// alias).
func readInput[T any](ctx context.Context, flag, path string, limit int64, read func(io.Reader) (T, error)) (T, error) {
	return cmdutil.ReadInput(ctx, flag, path, limit, read)
}

// readOptions is cmdutil.ReadOptions with the field and methods the
// sweep's files use.
type readOptions struct{ lenient bool }

func (r readOptions) lib() cmdutil.ReadOptions     { return cmdutil.ReadOptions{Lenient: r.lenient} }
func (r readOptions) options() results.ReadOptions { return r.lib().Options() }
func (r readOptions) file(ctx context.Context, path string) (*results.Results, error) {
	return r.lib().File(ctx, path)
}

// fleetFlags is cmdutil.FleetFlags with the field and methods the
// sweep's files use.
type fleetFlags struct {
	cmdutil.FleetFlags
	// instances is --instances for fleetPlan (sweeprun.go), copied by
	// asked and readStorm, which the sweep's run calls before it plans.
	instances int
}

func (k *fleetFlags) add(f *pflag.FlagSet, what string, perInstance bool) {
	k.Add(f, what, perInstance)
}

func (k *fleetFlags) asked() (bool, error) {
	k.instances = k.Instances()
	return k.Asked()
}

func (k *fleetFlags) readStorm(ctx context.Context, read readOptions) error {
	k.instances = k.Instances()
	return k.ReadStorm(ctx, read.lib())
}

func (k *fleetFlags) plan(ctx context.Context, read readOptions, rs []*results.Results, a *analysis.Analysis) (*fleetplan.Plan, error) {
	return k.Plan(ctx, read.lib(), rs, a)
}

// mergeFiles is merge.MergeFiles (the sweep's --spawn merges its agents).
func mergeFiles(ctx context.Context, paths []string, read readOptions, warn io.Writer) (*results.Results, error) {
	return merge.MergeFiles(ctx, paths, read.lib(), warn)
}

// printMerged is merge.PrintMerged with the sweep's end table.
func printMerged(w io.Writer, out string, res *results.Results, a *analysis.Analysis) {
	merge.PrintMerged(w, out, res, a, writeSummary)
}
