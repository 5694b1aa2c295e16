package workload

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

// TestFromLogFlags: argv becomes the inputs, the output, the format and
// the appName, and a bad command line never reaches the reading.
func TestFromLogFlags(t *testing.T) {
	o, code, stderr := cmdtest.Parse(t, NewCmdWorkload, "from-log", "a.log", "b.log.gz", "-o", "w.yaml", "--format", "json", "--app", "checkout")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !slices.Equal(o.files, []string{"a.log", "b.log.gz"}) || o.out != "w.yaml" || o.format != "json" || o.app != "checkout" {
		t.Errorf("options %+v", o)
	}
	if o, code, _ := cmdtest.Parse(t, NewCmdWorkload, "from-log", "a.log"); code != 0 || o.format != "yaml" || o.out != "" {
		t.Errorf("defaults: exit %d, %+v", code, o)
	}
	log := filepath.Join(t.TempDir(), "a.log")
	if err := os.WriteFile(log, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"from-log"},                           // no inputs
		{"from-log", "a.log", "--format", "x"}, // not yaml or json
		{"from-log", "a.log", "--app", ""},     // empty
		{"from-log", "a.log", "-o", ""},        // empty
		{"from-log", "a.log", "--nope"},        // no such flag
		{"bogus"},                              // no such subcommand
		// Outputs over inputs, and an input twice: found before the run.
		{"from-log", log, "-o", log},                                // the file over its own input
		{"from-log", log, "--rate-trace", log},                      // the trace over the input
		{"from-log", log, "-o", "w.yaml", "--rate-trace", "w.yaml"}, // two outputs in one file
		{"from-log", log, log},                                      // one log twice
	} {
		if o, code, stderr := cmdtest.Parse(t, NewCmdWorkload, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
