package storm

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

// parse is cmdtest.Parse of storm.
func parse(t *testing.T, args ...string) (*Options, int, string) {
	t.Helper()
	return cmdtest.Parse(t, NewCmdStorm, args...)
}

// TestStormFlags: argv becomes the storms to run, Validate plans them
// with nothing started, and --target is checked as it is parsed.
func TestStormFlags(t *testing.T) {
	t.Chdir(t.TempDir()) // -o storm.jsonl must not exist
	if err := os.WriteFile("old.jsonl", nil, 0o600); err != nil {
		t.Fatal(err)
	}
	o, code, stderr := parse(t, "--uri", "mongodb://h1:27017", "--clients", "10,50", "--pool", "8", "--max-connecting", "2,8",
		"--trials", "2", "--timeout", "30s", "--probe-interval", "5ms", "-o", "storm.jsonl", "--no-telemetry")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if o.uri != "mongodb://h1:27017" || o.pool != 8 || o.trials != 2 || o.timeout != 30*time.Second || o.probeInterval != 5*time.Millisecond || o.out != "storm.jsonl" || !o.noTelemetry {
		t.Errorf("options %+v", o)
	}
	p, err := o.Validate()
	if err != nil || !slices.Equal(p.clients, []int{10, 50}) || !slices.Equal(p.maxConnecting, []int{2, 8}) || p.target.Name != "target" {
		t.Errorf("validate: %+v %v", p, err)
	}

	// --target is checked as it is parsed, the simulator's spec too.
	if o, code, stderr := parse(t, "--target", "s=sim:slots=0", "-o", "s.jsonl"); o != nil || code != 2 {
		t.Errorf("--target refused by its check: exit %d, reached the run %v (%s)", code, o != nil, stderr)
	}
	for _, bad := range [][]string{
		{"--uri", "mongodb://h", "--pool", "0", "-o", "s"},      // below 1
		{"--uri", "mongodb://h", "--clients", "0", "-o", "s"},   // a level of 0
		{"--uri", "mongodb://h", "--timeout", "11m", "-o", "s"}, // past 10m
		{"--uri", "mongodb://h", "-o", "s", "extra"},            // no arguments
		// Flags that do not go together, found by Validate before the run.
		{"--uri", "mongodb://h"}, // -o is required
		{"-o", "s"},              // --uri or --target is required
		{"--uri", "mongodb://h", "--target", "t=mongodb://h", "-o", "s"}, // one of them
		{"--uri", "mongodb://h", "-o", "old.jsonl"},                      // storm creates a new file
	} {
		if o, code, stderr := parse(t, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
