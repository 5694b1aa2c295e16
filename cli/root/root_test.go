package root

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/serve"
	"github.com/poolsweep/poolsweep/internal/errext"
)

// run runs poolsweep's root on args with x, and returns the exit status
// and both streams.
func run(args []string, x Extra) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, &cmdutil.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, x)
	return code, out.String(), errb.String()
}

// TestRunExitAndLine: what root makes of what a command returns: the
// exit status from errext, and one line on stderr.
func TestRunExitAndLine(t *testing.T) {
	for _, tt := range []struct {
		args []string
		code int
		line string
	}{
		{[]string{"bogus"}, errext.ExitUsage, `poolsweep: unknown command "bogus"; see poolsweep --help`}, // a command that is not one
		{[]string{"analyze", "--nope"}, errext.ExitUsage, "poolsweep: unknown flag --nope; see --help"},   // pflag's refusal, in our words
		{[]string{"plot", "a", "-o", " "}, errext.ExitUsage, "poolsweep: --out: an empty value"},          // refused before the command runs
		{[]string{"extra"}, errext.ExitOK, ""},                                                            // a command of main's (Extra.Commands)
	} {
		x := Extra{Commands: []func(*cmdutil.Env) *cobra.Command{func(e *cmdutil.Env) *cobra.Command {
			return &cobra.Command{Use: "extra", RunE: func(*cobra.Command, []string) error { return nil }}
		}}}
		code, _, stderr := run(tt.args, x)
		if code != tt.code || strings.TrimSpace(stderr) != tt.line {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", tt.args, code, stderr, tt.code, tt.line)
		}
	}
}

// TestRunJSONProgress: with the progress mode json, stderr is the writer
// JSONProgress gives from before the command line is parsed (so cobra's
// refusal goes through it), a command's stderr is that writer, and it is
// flushed at the end.
func TestRunJSONProgress(t *testing.T) {
	var lines bytes.Buffer
	flushed := false
	var seen io.Writer
	x := Extra{
		ProgressMode: func(_ *cobra.Command, args []string) string { return "json" },
		JSONProgress: func(w io.Writer) (io.Writer, func()) { return &lines, func() { flushed = true } },
		Runners:      Runners{Serve: func(context.Context, *serve.Options) error { return nil }},
		Commands: []func(*cmdutil.Env) *cobra.Command{func(e *cmdutil.Env) *cobra.Command {
			return &cobra.Command{Use: "extra", RunE: func(*cobra.Command, []string) error { seen = e.Stderr; return nil }}
		}},
	}
	code, _, stderr := run([]string{"serve", "--listen", "x"}, x)
	if code != errext.ExitUsage || stderr != "" || !strings.Contains(lines.String(), "--listen") || !flushed {
		t.Errorf("exit %d, stderr %q, JSON writer %q, flushed %v", code, stderr, lines.String(), flushed)
	}
	if code, _, _ := run([]string{"extra"}, x); code != 0 || seen != &lines {
		t.Errorf("exit %d: the command's stderr is not the JSON writer", code)
	}
}
