package serve

import (
	"context"
	"testing"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/cmdutil/cmdtest"
)

func parse(t *testing.T, args ...string) (*Options, int, string) {
	t.Helper()
	var got *Options
	code, _, stderr := cmdtest.Run(t, func(e *cmdutil.Env) *cobra.Command {
		return NewCmdServe(e, func(_ context.Context, o *Options) error { got = o; return nil })
	}, append([]string{"serve"}, args...)...)
	return got, code, stderr
}

// TestServeFlags: argv becomes the server serve would start, and
// Validate judges it with nothing started.
func TestServeFlags(t *testing.T) {
	o, code, stderr := parse(t, "--sim", "rs=3,slots=4", "--listen", "127.0.0.1:0", "--log", "server.log")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if o.sim != "rs=3,slots=4" || o.listen != "127.0.0.1:0" || o.logFile != "server.log" || o.data != "" {
		t.Errorf("options %+v", o)
	}
	if spec, err := o.Validate(); err != nil || spec.Members != 3 {
		t.Errorf("validate: %+v %v", spec, err)
	}
	if o, _, _ := parse(t); o == nil || o.listen != "127.0.0.1:0" || o.sim != "" {
		t.Errorf("defaults %+v", o)
	}
	for _, bad := range [][]string{
		{"--listen", "127.0.0.1:65536"}, // past the ports
		{"--listen", "db.example:1"},    // a name, not an IP
		{"--sim", "slots=NaN"},          // not a spec
		{"now"},                         // no arguments
	} {
		if o, code, stderr := parse(t, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
