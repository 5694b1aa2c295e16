package sweep

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/spf13/cobra"
)

// TestUsageErrorsBeforeRunF: the usage errors the flags make together,
// and those of the inputs they name, are found before the runF seam, so
// that a flags-only test meets them as a user does: exit 2, one line, and
// the run never reached.
func TestUsageErrorsBeforeRunF(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--uri", "mongodb://a:1/", "--target", "b=mongodb://b:1/"}, "--uri and --target"},
		{[]string{"--spawn", "2", "--threshold", "p99<20ms"}, "--threshold"},
		{[]string{"--storm", "x.jsonl"}, "--storm"},
		{[]string{"--target", "a=sim:slots=4", "--target", "a=sim:slots=8"}, "used twice"},
		{[]string{"--workload-file", dir + "/missing.yaml"}, "--workload-file"},
		{[]string{"--resume", dir + "/not-a-run"}, "--resume"},
	} {
		reached := false
		e := &cmdutil.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
		cmd := NewCmdSweep(e, func(context.Context, *Options) error { reached = true; return nil })
		cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return cmdutil.FlagError(err) })
		cmd.SetArgs(tt.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		cmd.SilenceErrors, cmd.SilenceUsage = true, true
		err := cmd.Execute()
		switch {
		case reached:
			t.Errorf("%v: runF was reached; the usage error was not found before it", tt.args)
		case err == nil || errext.ExitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n"):
			t.Errorf("%v: error %v (exit %d), want one line with %q, exit 2", tt.args, err, errext.ExitCode(err), tt.want)
		}
	}
}
