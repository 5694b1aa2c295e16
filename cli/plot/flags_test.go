package plot

import (
	"slices"
	"testing"

	"github.com/poolsweep/poolsweep/cli/cmdutil/cmdtest"
	"github.com/poolsweep/poolsweep/cli/shared"
)

// TestPlotFlags: argv becomes the options the figures are drawn with,
// and a value a flag does not take never reaches the drawing.
func TestPlotFlags(t *testing.T) {
	o, code, stderr := cmdtest.Parse(t, NewCmdPlot, "a.jsonl", "-o", "figs", "--figure", "throughput, latency", "--steady", "sharded:16,2", "--plateau", "0.8", "--lenient")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	k, _ := o.analysis.Options()
	if !slices.Equal(o.files, []string{"a.jsonl"}) || o.out != "figs" || o.figures != "throughput,latency" || o.steady != "sharded:16,2" || k.Plateau != 0.8 || !o.read.Lenient {
		t.Errorf("options %+v", o)
	}
	if s := shared.SteadyOption(o.steady); s == nil || s.Target != "sharded" || s.Concurrency != 16 || s.Trial != 2 {
		t.Errorf("--steady %+v", s)
	}
	for _, bad := range [][]string{
		{"a.jsonl", "-o", "f", "--figure", "pie"}, // not a figure
		{"a.jsonl", "-o", "f", "--steady", "x:y"}, // not a step
		{"a.jsonl", "-o", ""},                     // empty
		{"-o", "f"},                               // no files
	} {
		if o, code, stderr := cmdtest.Parse(t, NewCmdPlot, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
