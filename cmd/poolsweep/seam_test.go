package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/inspect"
	"github.com/poolsweep/poolsweep/cli/root"
	"github.com/poolsweep/poolsweep/cli/serve"
	"github.com/poolsweep/poolsweep/cli/storm"
	sweepcmd "github.com/poolsweep/poolsweep/cli/sweep"
)

// The tests' seam into cli/root: the command line run in-process, on the
// test's streams, with runners in place of the commands that start or
// connect to something.

// env is the streams a test runs poolsweep on.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// runners replace, once the flags are parsed, the commands that start or
// connect to something (root.Runners): nil runs the command itself.
type runners struct {
	sweep   func(context.Context, *sweepOptions) error
	serve   func(context.Context, *serveOptions) error
	inspect func(context.Context, *inspectOptions) error
	storm   func(context.Context, *stormOptions) error
}

type (
	sweepOptions   = sweepcmd.Options
	serveOptions   = serve.Options
	inspectOptions = inspect.Options
	stormOptions   = storm.Options
)

func (r runners) root() root.Runners {
	return root.Runners{Sweep: r.sweep, Serve: r.serve, Inspect: r.inspect, Storm: r.storm}
}

func (e *env) cmdutil() *cmdutil.Env {
	return &cmdutil.Env{Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr}
}

// run executes poolsweep with args as main does and returns the exit
// status (cli/root).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	return runWith(ctx, args, &env{stdin: stdin, stdout: stdout, stderr: stderr}, runners{})
}

// runWith is run with the commands' runners r.
func runWith(ctx context.Context, args []string, e *env, r runners) (code int) {
	return root.Run(ctx, args, e.cmdutil(), r.root())
}

// newRootCmd is the root command on e's streams, with r's runners.
func newRootCmd(e *env, r runners) *cobra.Command {
	return root.NewCmd(e.cmdutil(), r.root())
}
