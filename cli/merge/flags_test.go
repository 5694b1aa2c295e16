package merge

import (
	"slices"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

// TestMergeFlags: argv becomes the files to merge and where to write
// them, and a bad command line never reaches the merging.
func TestMergeFlags(t *testing.T) {
	o, code, stderr := cmdtest.Parse(t, NewCmdMerge, "agent-0", "agent-1/results.jsonl", "-o", "merged/", "--lenient")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !slices.Equal(o.files, []string{"agent-0", "agent-1/results.jsonl"}) || o.out != "merged/" || !o.read.Lenient {
		t.Errorf("options %+v", o)
	}
	for _, bad := range [][]string{
		{"-o", "m.jsonl"},                  // no files
		{"a", "--out", ""},                 // empty
		{"a", "-o", "m", "--x"},            // no such flag
		{"a"},                              // --out is required
		{"a", "-o", "a"},                   // the merge over its own input
		{"a", "-o", "no/such/dir/m.jsonl"}, // --out's directory must exist
	} {
		if o, code, stderr := cmdtest.Parse(t, NewCmdMerge, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
