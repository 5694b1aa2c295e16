package storm

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/cmdutil/cmdtest"
)

// parse is cmdtest.Parse of storm with deps.
func parse(t *testing.T, deps Deps, args ...string) (*Options, int, string) {
	t.Helper()
	return cmdtest.Parse(t, func(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
		return NewCmdStorm(e, deps, runF)
	}, args...)
}

// TestStormFlags: argv becomes the storms to run, Validate plans them
// with nothing started, and --target gets the check the sweep lends.
func TestStormFlags(t *testing.T) {
	o, code, stderr := parse(t, Deps{}, "--uri", "mongodb://h1:27017", "--clients", "10,50", "--pool", "8", "--max-connecting", "2,8",
		"--trials", "2", "--timeout", "30s", "--probe-interval", "5ms", "-o", "storm.jsonl", "--no-telemetry")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if o.uri != "mongodb://h1:27017" || o.pool != 8 || o.trials != 2 || o.timeout != 30*time.Second || o.probeInterval != 5*time.Millisecond || o.out != "storm.jsonl" || !o.noTelemetry {
		t.Errorf("options %+v", o)
	}
	t.Chdir(t.TempDir()) // -o storm.jsonl must not exist
	p, err := o.Validate()
	if err != nil || !slices.Equal(p.clients, []int{10, 50}) || !slices.Equal(p.maxConnecting, []int{2, 8}) || p.target.Name != "target" {
		t.Errorf("validate: %+v %v", p, err)
	}

	// --target is checked as it is parsed, by the check storm is given.
	refuse := Deps{CheckTarget: func(string) error { return errors.New("not a target") }}
	if o, code, stderr := parse(t, refuse, "--target", "s=sim:slots=8", "-o", "s.jsonl"); o != nil || code != 2 {
		t.Errorf("--target refused by its check: exit %d, reached the run %v (%s)", code, o != nil, stderr)
	}
	for _, bad := range [][]string{
		{"--uri", "mongodb://h", "--pool", "0", "-o", "s"},      // below 1
		{"--uri", "mongodb://h", "--clients", "0", "-o", "s"},   // a level of 0
		{"--uri", "mongodb://h", "--timeout", "11m", "-o", "s"}, // past 10m
		{"--uri", "mongodb://h", "-o", "s", "extra"},            // no arguments
	} {
		if o, code, stderr := parse(t, Deps{}, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
