package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/root"
	"github.com/poolsweep/poolsweep/cli/storm"
	"github.com/poolsweep/poolsweep/topology"
)

// run executes poolsweep with args and returns the exit status
// (cli/root). Every error becomes one redacted line on stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	return runWith(ctx, args, &env{stdin: stdin, stdout: stdout, stderr: stderr}, runners{})
}

// runWith is run with the commands' runners r.
func runWith(ctx context.Context, args []string, e *env, r runners) (code int) {
	return root.Run(ctx, args, &cmdutil.Env{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr}, r.extra())
}

// newRootCmd is the root command on e's streams, with r's runners.
func newRootCmd(e *env, r runners) *cobra.Command {
	return root.NewCmd(&cmdutil.Env{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr}, r.extra())
}

// runners replace, once the flags are parsed, the commands that start or
// connect to something (the cli/cli seam): nil runs the command itself;
// tests pass their own to check what argv turns into.
type runners struct {
	sweep   func(context.Context, *sweepOptions) error
	serve   func(context.Context, *serveOptions) error
	inspect func(context.Context, *inspectOptions) error
	storm   func(context.Context, *stormOptions) error
}

// extra is what cli/root takes from this package: the commands still
// here (the sweep, until its run has moved into the run library, issue
// 34), and what the commands in cli/ borrow from their files.
func (r runners) extra() root.Extra {
	return root.Extra{
		Commands: []func(*cmdutil.Env) *cobra.Command{
			onStreams(func(e *env) *cobra.Command { return newSweepCmd(e, r.sweep) }),
		},
		ProgressMode: progressMode, // progressmode.go
		JSONProgress: func(w io.Writer) (io.Writer, func()) {
			// The writer itself, not a wrapper: the sweep finds it on its
			// stderr and writes its events through it (sweeprun.go).
			jp := newJSONProgress(w)
			return jp, jp.flush
		},
		Summary: writeSummary, // summary.go
		Storm:   stormDeps(),
		Runners: root.Runners{Serve: r.serve, Inspect: r.inspect, Storm: r.storm},
	}
}

// onStreams builds a command of this package on root's streams: its env
// is filled from them as it runs (after root has made stderr JSON lines
// under --progress json), and the stderr it leaves (a sweep may make it
// its own) is handed back for root's last line.
func onStreams(build func(*env) *cobra.Command) func(*cmdutil.Env) *cobra.Command {
	return func(ce *cmdutil.Env) *cobra.Command {
		e := &env{stdin: ce.Stdin, stdout: ce.Stdout, stderr: ce.Stderr}
		cmd := build(e)
		runE := cmd.RunE
		cmd.RunE = func(c *cobra.Command, args []string) error {
			e.stdin, e.stdout, e.stderr = ce.Stdin, ce.Stdout, ce.Stderr
			err := runE(c, args)
			ce.Stderr = e.stderr
			return err
		}
		return cmd
	}
}

// stormDeps lends storm the sweep's target start-up (sweeprun.go,
// sweeptelemetry.go) and its --target check (sweep.go).
func stormDeps() storm.Deps {
	return storm.Deps{
		CheckTarget: checkTarget,
		Start: func(ctx context.Context, ce *cmdutil.Env, t topology.Target) (storm.Target, func(), error) {
			ts, stop, err := startTargets(ctx, &env{stdin: ce.Stdin, stdout: ce.Stdout, stderr: ce.Stderr}, []topology.Target{t})
			if err != nil {
				return storm.Target{}, stop, err
			}
			st := ts[0]
			return storm.Target{Target: st.Target.Target, Header: st.header, Telemetry: func() (storm.Observer, error) {
				return newStepTelemetry(st, false)
			}}, stop, nil
		},
	}
}
