package root

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/sweep"
	"github.com/poolsweep/poolsweep/internal/errext"
)

// run runs poolsweep's root on args with r, and returns the exit status
// and both streams.
func run(args []string, r Runners) (int, string, string) {
	var out, errb bytes.Buffer
	code := Run(context.Background(), args, &cmdutil.Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb}, r)
	return code, out.String(), errb.String()
}

// TestRunExitAndLine: what root makes of what a command returns: the
// exit status from errext, and one line on stderr.
func TestRunExitAndLine(t *testing.T) {
	r := Runners{Sweep: func(context.Context, *sweep.Options) error { return nil }}
	for _, tt := range []struct {
		args []string
		code int
		line string
	}{
		{[]string{"bogus"}, errext.ExitUsage, `poolsweep: unknown command "bogus"; see poolsweep --help`}, // a command that is not one
		{[]string{"analyze", "--nope"}, errext.ExitUsage, "poolsweep: unknown flag --nope; see --help"},   // pflag's refusal, in our words
		{[]string{"plot", "a", "-o", " "}, errext.ExitUsage, "poolsweep: --out: an empty value"},          // refused before the command runs
		{[]string{"sweep"}, errext.ExitOK, ""},                                                            // a command whose runner returns nil
	} {
		code, _, stderr := run(tt.args, r)
		if code != tt.code || strings.TrimSpace(stderr) != tt.line {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", tt.args, code, stderr, tt.code, tt.line)
		}
	}
}

// TestRunJSONProgress: with --progress json, stderr is runner/progress's
// JSON writer from before the command line is parsed (so cobra's refusal
// goes through it, a command's that has no --progress too), and a
// command's error line goes through it as well.
func TestRunJSONProgress(t *testing.T) {
	r := Runners{Sweep: func(context.Context, *sweep.Options) error { return errext.Usagef("refused by the runner") }}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--listen", "x", "--progress", "json"}, "--listen"},
		{[]string{"sweep", "--progress", "json"}, "refused by the runner"},
	} {
		code, _, stderr := run(tt.args, r)
		if code != errext.ExitUsage || !strings.Contains(stderr, tt.want) {
			t.Errorf("%q: exit %d, stderr %q; want %d, naming %s", tt.args, code, stderr, errext.ExitUsage, tt.want)
		}
		for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
			var obj map[string]any
			if err := json.Unmarshal([]byte(line), &obj); err != nil {
				t.Errorf("%q: stderr line %q is not a JSON object: %v", tt.args, line, err)
			}
		}
	}
}
