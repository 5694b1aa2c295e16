// Package cmdtest runs one poolsweep command in-process for its
// package's tests, as cli/root runs it, without the other commands.
package cmdtest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
)

// Run builds a command with build on fresh streams and runs argv (the
// command's name first) as cli/root would: pflag's errors in poolsweep's
// words, empty values refused, long values cut, and an error as root's
// one line on stderr. It returns the exit status and both streams.
func Run(t testing.TB, build func(*cmdutil.Env) *cobra.Command, argv ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := build(&cmdutil.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb})
	if len(argv) == 0 || argv[0] != cmd.Name() {
		t.Fatalf("cmdtest.Run: argv %q does not start with %s", argv, cmd.Name())
	}
	return execute(cmd, &out, &errb, argv), out.String(), errb.String()
}

// Parse runs the command newCmd builds on args (after the command's
// name) with a runF that keeps its options: what argv turns into, with
// nothing run (cli/cli's flags-only test). The options are nil when the
// command line was refused; the exit status and stderr say why.
func Parse[O any](t testing.TB, newCmd func(*cmdutil.Env, func(context.Context, *O) error) *cobra.Command, args ...string) (opts *O, code int, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := newCmd(&cmdutil.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, func(_ context.Context, o *O) error {
		opts = o
		return nil
	})
	code = execute(cmd, &out, &errb, append([]string{cmd.Name()}, args...))
	return opts, code, errb.String()
}

// execute runs argv through cmd as cli/root runs a command, the error's
// line written to errb, and returns the exit status.
func execute(cmd *cobra.Command, out, errb *bytes.Buffer, argv []string) int {
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.FlagError(err) })
	cmd.PersistentPreRunE = cmdutil.RefuseEmpty
	cmd.SetArgs(argv[1:])
	cmd.SetOut(out)
	cmd.SetErr(errb)
	err := cmdutil.ShortValues(cmd.ExecuteContext(context.Background()), argv)
	if err != nil {
		fmt.Fprintln(errb, cmdutil.ErrorLine(err))
	}
	return errext.ExitCode(err)
}
