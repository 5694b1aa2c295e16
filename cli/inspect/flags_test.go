package inspect

import (
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

// TestInspectFlags: argv becomes the options inspect connects with, and
// Validate judges them together, with nothing connected.
func TestInspectFlags(t *testing.T) {
	o, code, stderr := cmdtest.Parse(t, NewCmdInspect, "--uri", "mongodb://h1:27017/?maxPoolSize=200", "--format", "json", "--save-replies", "rep")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if o.uri != "mongodb://h1:27017/?maxPoolSize=200" || o.format != "json" || o.saveReplies != "rep" || o.replies != "" {
		t.Errorf("options %+v", o)
	}
	if ps, err := o.Validate(); err != nil || ps.MaxPoolSize != 200 || !ps.MaxPoolSizeSet {
		t.Errorf("validate: %+v %v", ps, err)
	}
	if o, _, _ := cmdtest.Parse(t, NewCmdInspect, "--replies", "dir"); o == nil || o.replies != "dir" {
		t.Fatalf("--replies: %+v", o)
	}
	for _, bad := range [][]string{
		{"--uri", "http://h/"},                       // not a MongoDB URI
		{"--uri", "mongodb://h", "--format", "yaml"}, // not a format
		{"extra"}, // no arguments
		// Flags that do not go together, found by Validate before the run.
		{"--replies", "dir", "--uri", "mongodb://h"},                     // --replies reads offline
		{"--replies", "dir", "--save-replies", "out"},                    // nothing to save offline
		{"--format", "json"},                                             // --uri (or --replies) is required
		{"--uri", "mongodb://h", "--save-replies", "no/such/parent/out"}, // its parent must exist
	} {
		if o, code, stderr := cmdtest.Parse(t, NewCmdInspect, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
