// Package root is poolsweep's root command: it puts the commands of
// cli/* together, runs the one a command line names, and turns what it
// returns into the exit status (internal/errext) and, for an error, one
// redacted line on stderr.
package root

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/analyze"
	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/compare"
	"github.com/poolsweep/poolsweep/cli/fleet"
	"github.com/poolsweep/poolsweep/cli/inspect"
	"github.com/poolsweep/poolsweep/cli/merge"
	"github.com/poolsweep/poolsweep/cli/plot"
	"github.com/poolsweep/poolsweep/cli/report"
	"github.com/poolsweep/poolsweep/cli/serve"
	"github.com/poolsweep/poolsweep/cli/storm"
	"github.com/poolsweep/poolsweep/cli/workload"
	"github.com/poolsweep/poolsweep/internal/buildinfo"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/topology"
)

// Extra is what the root takes from cmd/poolsweep: the commands still
// in package main, and what the commands here borrow from them, until
// the sweep's run has moved into the run library (issue 34).
type Extra struct {
	// Commands builds the commands still in package main (sweep) on the
	// streams Run gives every command.
	Commands []func(*cmdutil.Env) *cobra.Command
	// ProgressMode is the --progress a command line asks for, read before
	// cobra parses it; with "json" every line of stderr is a JSON object
	// from the start, cobra's refusals of the command line included. nil:
	// never json.
	ProgressMode func(root *cobra.Command, args []string) string
	// JSONProgress makes stderr a writer of JSON lines, with the flush
	// that ends it.
	JSONProgress func(stderr io.Writer) (w io.Writer, flush func())
	// Summary is the end-of-run table merge prints.
	Summary merge.Summary
	// Storm is what storm borrows from the sweep: its target start-up.
	Storm storm.Deps
	// Runners replace the commands that start or connect to something.
	Runners Runners
}

// Runners replace, once the flags are parsed, the commands that start or
// connect to something (the cli/cli seam): nil runs the command itself;
// tests pass their own to check what argv turns into.
type Runners struct {
	Serve   func(context.Context, *serve.Options) error
	Inspect func(context.Context, *inspect.Options) error
	Storm   func(context.Context, *storm.Options) error
}

// Run executes poolsweep with args on e's streams and returns the exit
// status. Every error becomes one redacted line on stderr.
func Run(ctx context.Context, args []string, e *cmdutil.Env, x Extra) (code int) {
	out := &stdoutWatch{w: e.Stdout}
	stdin, stdout, stderr := e.Stdin, io.Writer(out), e.Stderr
	e = &cmdutil.Env{Stdin: stdin, Stdout: stdout, Stderr: stderr}
	root := NewCmd(e, x)
	if x.ProgressMode != nil && x.JSONProgress != nil && x.ProgressMode(root, args) == "json" {
		// Every line of stderr is a JSON object from here on: cobra's own
		// refusals of the command line and the last "poolsweep: …" line
		// too.
		jp, flush := x.JSONProgress(stderr)
		defer flush()
		stderr, e.Stderr = jp, jp
	}
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	defer func() {
		// A bug in this goroutine must still end in one line, not a stack
		// trace on the user's terminal.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "poolsweep: internal error: %s\n", topology.Redact(fmt.Sprint(r)))
			code = errext.ExitFailed
		}
	}()
	// No 100-kB value echoed whole, whatever made the error (cmdutil/echo.go).
	err := cmdutil.ShortValues(root.ExecuteContext(ctx), args)
	stderr = e.Stderr // a command may have made it its own
	if out.closed.Load() && (err == nil || errors.Is(err, syscall.EPIPE)) {
		return errext.ExitClosedStdout // nothing to say: no one reads it
	}
	if err == nil {
		return errext.ExitOK
	}
	fmt.Fprintln(stderr, cmdutil.ErrorLine(err))
	return errext.ExitCode(err)
}

// stdoutWatch notes that a write to stdout found its reader gone (EPIPE:
// main asks for SIGPIPE as a signal, so that a sweep is not killed by it
// before its end record).
type stdoutWatch struct {
	w      io.Writer
	closed atomic.Bool
}

func (s *stdoutWatch) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	if errors.Is(err, syscall.EPIPE) {
		s.closed.Store(true)
	}
	return n, err
}

// NewCmd builds the root command with every command on e's streams.
func NewCmd(e *cmdutil.Env, x Extra) *cobra.Command {
	root := &cobra.Command{
		Use:   "poolsweep",
		Short: "Find the client concurrency and maxPoolSize where a MongoDB deployment saturates",
		Long: `poolsweep steps through client concurrency and driver connection-pool sizes against
standalone, replica-set and sharded MongoDB deployments, measures throughput and latency
at each step, finds the saturation knee and draws throughput-versus-connections plots.

With no --uri or --target, "poolsweep sweep" starts an embedded FerretDB server for you.`,
		Example: `  poolsweep sweep                                  # embedded server, default plan
  poolsweep sweep --uri mongodb://db1:27017 --workload api
  poolsweep inspect --uri mongodb://db1:27017
  poolsweep analyze poolsweep-out/*/results.jsonl`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       buildinfo.Version(),
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.FlagError(err) })
	// "poolsweep bogus" is bad input too, not a failed run.
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return errext.Usagef("unknown command %s; see poolsweep --help", textfmt.Token(args[0]))
		}
		return cmd.Help()
	}
	root.PersistentPreRunE = cmdutil.RefuseEmpty
	r := x.Runners
	root.AddCommand(
		serve.NewCmdServe(e, r.Serve),
		inspect.NewCmdInspect(e, r.Inspect),
		analyze.NewCmdAnalyze(e, nil),
		plot.NewCmdPlot(e, nil),
		report.NewCmdReport(e, nil),
		compare.NewCmdCompare(e, nil),
		merge.NewCmdMerge(e, x.Summary, nil),
		fleet.NewCmdFleet(e, nil),
		storm.NewCmdStorm(e, x.Storm, r.Storm),
		workload.NewCmdWorkload(e, nil),
	)
	for _, c := range x.Commands {
		root.AddCommand(c(e))
	}
	for _, c := range root.Commands() {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.FlagError(err) })
	}
	return root
}
