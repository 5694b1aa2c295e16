package merge

import (
	"context"
	"slices"
	"testing"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/cli/cmdutil/cmdtest"
)

// newCmd is NewCmdMerge without the end table (the flags-only tests print
// nothing).
func newCmd(e *cmdutil.Env, runF func(context.Context, *Options) error) *cobra.Command {
	return NewCmdMerge(e, nil, runF)
}

// TestMergeFlags: argv becomes the files to merge and where to write
// them, and a bad command line never reaches the merging.
func TestMergeFlags(t *testing.T) {
	o, code, stderr := cmdtest.Parse(t, newCmd, "agent-0", "agent-1/results.jsonl", "-o", "merged/", "--lenient")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !slices.Equal(o.files, []string{"agent-0", "agent-1/results.jsonl"}) || o.out != "merged/" || !o.read.Lenient {
		t.Errorf("options %+v", o)
	}
	for _, bad := range [][]string{
		{"-o", "m.jsonl"},       // no files
		{"a", "--out", ""},      // empty
		{"a", "-o", "m", "--x"}, // no such flag
	} {
		if o, code, stderr := cmdtest.Parse(t, newCmd, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
