package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/internal/buildinfo"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/topology"
)

// env is what commands need from the process, so tests can run them
// in-process with their own streams.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// run executes poolsweep with args and returns the exit status. Every
// error becomes one redacted line on stderr.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	return runWith(ctx, args, &env{stdin: stdin, stdout: stdout, stderr: stderr}, runners{})
}

// runWith is run with the commands' runners r.
func runWith(ctx context.Context, args []string, e *env, r runners) (code int) {
	out := &stdoutWatch{w: e.stdout}
	stdin, stdout, stderr := e.stdin, io.Writer(out), e.stderr
	e = &env{stdin: stdin, stdout: stdout, stderr: stderr}
	root := newRootCmd(e, r)
	if progressMode(root, args) == "json" {
		// Every line of stderr is a JSON object from here on: cobra's own
		// refusals of the command line and the last "poolsweep: …" line
		// too (progressmode.go).
		jp := newJSONProgress(stderr)
		defer jp.flush()
		stderr, e.stderr = jp, jp
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
	// No 100-kB value echoed whole, whatever made the error (echo.go).
	err := shortValues(root.ExecuteContext(ctx), args)
	stderr = e.stderr // a command may have made it its own
	if out.closed.Load() && (err == nil || errors.Is(err, syscall.EPIPE)) {
		return errext.ExitClosedStdout // nothing to say: no one reads it
	}
	if err == nil {
		return errext.ExitOK
	}
	var in errext.InterruptedError
	if errors.As(err, &in) {
		fmt.Fprintf(stderr, "poolsweep: %s; finished steps are kept\n", in.Error())
	} else {
		fmt.Fprintf(stderr, "poolsweep: %s\n", safeLine(topology.Redact(err.Error())))
	}
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

// safeLine makes s fit for one line of a terminal: only its first line,
// with every control character (escape sequences, carriage returns, tabs)
// written as a visible Go escape, so that text from files, servers or
// flags cannot move the cursor, recolour or clear the screen; and no
// longer than maxLineBytes.
func safeLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	return capLine(textfmt.Escape(s))
}

func newRootCmd(e *env, r runners) *cobra.Command {
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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	// "poolsweep bogus" is bad input too, not a failed run.
	root.Args = cobra.ArbitraryArgs
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return errext.Usagef("unknown command %s; see poolsweep --help", textfmt.Token(args[0]))
		}
		return cmd.Help()
	}
	// An empty value is never what was meant ("--uri ''" must not quietly
	// sweep the embedded server): refuse it for every text flag.
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		var err error
		cmd.Flags().Visit(func(f *pflag.Flag) {
			if err != nil {
				return
			}
			switch v := f.Value.(type) {
			case pflag.SliceValue:
				for _, s := range v.GetSlice() {
					if strings.TrimSpace(s) == "" {
						err = errext.Usagef("--%s: an empty value", f.Name)
					}
				}
			default:
				if f.Value.Type() == "string" && strings.TrimSpace(f.Value.String()) == "" {
					err = errext.Usagef("--%s: an empty value", f.Name)
				}
			}
		})
		return err
	}
	root.AddCommand(newSweepCmd(e, r.sweep), newServeCmd(e, r.serve), newInspectCmd(e, r.inspect), newAnalyzeCmd(e), newPlotCmd(e), newReportCmd(e), newCompareCmd(e), newMergeCmd(e), newFleetCmd(e), newStormCmd(e, r.storm))
	for _, c := range root.Commands() {
		c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return flagError(err) })
	}
	return root
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

// argsUsage is a cobra check of the arguments with a usage error, an
// argument it quotes ("unknown command "…"") shown as its token.
func argsUsage(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			msg := err.Error()
			for _, a := range args {
				msg = strings.ReplaceAll(msg, strconv.Quote(a), textfmt.Token(a))
			}
			return errext.UsageError{Err: errors.New(msg)}
		}
		return nil
	}
}
