package plot

import (
	"slices"
	"testing"

	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

// TestPlotFlags: argv becomes the options the figures are drawn with,
// and a value a flag does not take never reaches the drawing.
func TestPlotFlags(t *testing.T) {
	o, code, stderr := cmdtest.Parse(t, NewCmdPlot, "a.jsonl", "-o", "figs", "--figure", "throughput, latency", "--plateau", "0.8", "--lenient")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	k, _ := o.analysis.Options()
	if !slices.Equal(o.files, []string{"a.jsonl"}) || o.out != "figs" || o.figures != "throughput,latency" || k.Plateau != 0.8 || !o.read.Lenient {
		t.Errorf("options %+v", o)
	}
	// --steady draws a figure of its own, without --figure.
	o, code, stderr = cmdtest.Parse(t, NewCmdPlot, "a.jsonl", "-o", "figs", "--steady", "sharded:16,2")
	if code != 0 || o == nil {
		t.Fatalf("--steady: exit %d: %s", code, stderr)
	}
	if s := shared.SteadyOption(o.steady); s == nil || s.Target != "sharded" || s.Concurrency != 16 || s.Trial != 2 {
		t.Errorf("--steady %+v", s)
	}
	for _, bad := range [][]string{
		{"a.jsonl", "-o", "f", "--figure", "pie"}, // not a figure
		{"a.jsonl", "-o", "f", "--steady", "x:y"}, // not a step
		{"a.jsonl", "-o", ""},                     // empty
		{"-o", "f"},                               // no files
		{"a.jsonl"},                               // -o is required
		{"a.jsonl", "-o", "f", "--steady", "16", "--figure", "latency"}, // --steady draws its own figure
		{"a.jsonl", "-o", "no/such/parent/f"},                           // -o's parent must exist
	} {
		if o, code, stderr := cmdtest.Parse(t, NewCmdPlot, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
