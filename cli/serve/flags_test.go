package serve

import (
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

// TestServeFlags: argv becomes the server serve would start, and
// Validate judges it with nothing started.
func TestServeFlags(t *testing.T) {
	o, code, stderr := cmdtest.Parse(t, NewCmdServe, "--sim", "rs=3,slots=4", "--listen", "127.0.0.1:0", "--log", "server.log")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if o.sim != "rs=3,slots=4" || o.listen != "127.0.0.1:0" || o.logFile != "server.log" || o.data != "" {
		t.Errorf("options %+v", o)
	}
	if spec, err := o.Validate(); err != nil || spec.Members != 3 {
		t.Errorf("validate: %+v %v", spec, err)
	}
	if o, _, _ := cmdtest.Parse(t, NewCmdServe); o == nil || o.listen != "127.0.0.1:0" || o.sim != "" {
		t.Errorf("defaults %+v", o)
	}
	for _, bad := range [][]string{
		{"--listen", "127.0.0.1:65536"}, // past the ports
		{"--listen", "db.example:1"},    // a name, not an IP
		{"--sim", "slots=NaN"},          // not a spec
		{"now"},                         // no arguments
		// Flags that do not go together, found by Validate before the run.
		{"--sim", "slots=4", "--data", "d"},                    // the simulator keeps no files
		{"--data", "d", "--postgresql-url", "postgres://h/db"}, // one backend
		{"--postgresql-url", "mysql://h/db"},                   // not postgres
		{"--data", "no/such/parent/d"},                         // its parent must exist
	} {
		if o, code, stderr := cmdtest.Parse(t, NewCmdServe, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
