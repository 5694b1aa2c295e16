package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/topology"
)

// Exit statuses.
const (
	exitOK          = 0
	exitFailed      = 1
	exitUsage       = 2
	exitInterrupted = 130
)

// usageError is bad input: exit status 2, one line naming the flag.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// errInterrupted ends a run that the user stopped; what was measured is kept.
var errInterrupted = errors.New("interrupted")

// env is what commands need from the process, so tests can run them
// in-process with their own streams.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// run executes poolsweep with args and returns the exit status. Every
// error becomes one redacted line on stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	defer func() {
		// A bug in this goroutine must still end in one line, not a stack
		// trace on the user's terminal.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "poolsweep: internal error: %s\n", topology.Redact(fmt.Sprint(r)))
			code = exitFailed
		}
	}()
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	var u usageError
	switch {
	case errors.Is(err, errInterrupted):
		fmt.Fprintln(stderr, "poolsweep: interrupted; finished steps are kept")
		return exitInterrupted
	case errors.As(err, &u):
		fmt.Fprintf(stderr, "poolsweep: %s\n", oneLine(topology.Redact(err.Error())))
		return exitUsage
	default:
		fmt.Fprintf(stderr, "poolsweep: %s\n", oneLine(topology.Redact(err.Error())))
		return exitFailed
	}
}

func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return s
}

func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func newRootCmd(e *env) *cobra.Command {
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
		Version:       toolVersion(),
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	// "poolsweep bogus" is bad input too, not a failed run.
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return usagef("unknown command %q; see poolsweep --help", args[0])
		}
		return cmd.Help()
	}
	root.AddCommand(newSweepCmd(e), newServeCmd(e), newInspectCmd(e), newAnalyzeCmd(e), newPlotCmd(e), newReportCmd(e), newCompareCmd(e))
	for _, c := range root.Commands() {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	}
	return root
}

// exactArgs is cobra.ExactArgs with a usage error.
func argsUsage(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return usageError{err}
		}
		return nil
	}
}
