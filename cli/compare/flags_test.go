package compare

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

// TestCompareFlags: argv becomes the options the comparison runs with,
// and a value a flag does not take never reaches it.
func TestCompareFlags(t *testing.T) {
	o, code, stderr := cmdtest.Parse(t, NewCmdCompare, "a.jsonl", "b.jsonl", "--format", "markdown", "--alpha", "0.01", "--min-effect", "2",
		"--fail-on-regression", "5%", "--run-noise", "4%", "--plot", "figs", "--lenient")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !slices.Equal(o.files, []string{"a.jsonl", "b.jsonl"}) || o.format != "markdown" || o.alpha != 0.01 || o.minEffect != 2 ||
		o.failOn != 5 || !o.failOnSet || o.runNoise != 4 || !o.runNoiseSet || o.plotDir != "figs" || !o.read.Lenient {
		t.Errorf("options %+v", o)
	}
	o, _, _ = cmdtest.Parse(t, NewCmdCompare, "ab.jsonl", "--baseline", "w1", "--candidate", "majority")
	if o == nil || o.baseline != "w1" || o.candidate != "majority" || o.format != "text" || o.alpha != compare.DefaultAlpha || o.failOnSet || o.runNoiseSet {
		t.Errorf("one file, defaults: %+v", o)
	}
	same := filepath.Join(t.TempDir(), "a.jsonl")
	if err := os.WriteFile(same, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"a", "b", "--alpha", "1"},                      // open at 1
		{"a", "b", "--run-noise", "101%"},               // past 100%
		{"a", "b", "--fail-on-regression", "five"},      // not a percentage
		{"a", "b", "--min-effect", "1001"},              // past 1000%
		{"a", "b", "--run-noise", "1e-320%"},            // a denormal: not 0, and nearer it than anything measured
		{"a", "b", "--run-noise", "0.001%"},             // below MinPercent
		{"a", "b", "--fail-on-regression", "NaN%"},      // not finite
		{"a", "b", "--fail-on-regression", "0x1p-3"},    // not decimal
		{"a", "b", "--min-effect", "1e-400"},            // underflows to 0
		{"a", "b", "--alpha", "1e-320"},                 // a denormal float
		{},                                              // no files
		{"a", "b", "c"},                                 // three files
		{"ab"},                                          // one file, no targets named
		{"ab", "--baseline", "w1"},                      // one file, one target named
		{"ab", "--baseline", "w1", "--candidate", "w1"}, // a target against itself
		{same, same},                                    // a file against itself
		{"a", "b", "--plot", "no/such/parent/figs"},     // --plot's parent must exist
	} {
		if o, code, stderr := cmdtest.Parse(t, NewCmdCompare, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
