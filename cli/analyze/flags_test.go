package analyze

import (
	"slices"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

// TestAnalyzeFlags: argv becomes the options the analysis runs with,
// and a value a flag does not take never reaches it.
func TestAnalyzeFlags(t *testing.T) {
	o, code, stderr := cmdtest.Parse(t, NewCmdAnalyze, "a.jsonl", "b.jsonl", "--format", "json", "--plateau", "0.9", "--min-gain", "0.2",
		"--slo-p99", "20ms", "--lenient", "--threshold", "p99<20ms@64", "--ftdc", "d1", "--ftdc", "d2", "--ftdc-replace")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	k, _ := o.analysis.Options()
	switch {
	case !slices.Equal(o.files, []string{"a.jsonl", "b.jsonl"}):
		t.Errorf("files %q", o.files)
	case o.format != "json" || !o.read.Lenient || !o.gates.Given():
		t.Errorf("format %q, lenient %v, thresholds %v", o.format, o.read.Lenient, o.gates.Given())
	case k.Plateau != 0.9 || k.MinGain != 0.2 || k.SLOP99 != 20*time.Millisecond:
		t.Errorf("knee options %+v", k)
	case !slices.Equal(o.ftdc.dirs, []string{"d1", "d2"}) || !o.ftdc.replace:
		t.Errorf("ftdc %+v", o.ftdc)
	}

	// The defaults: text, analyze's knee options, nothing else.
	o, code, _ = cmdtest.Parse(t, NewCmdAnalyze, "--csv", "runs.csv")
	if k, _ := o.analysis.Options(); code != 0 || o.csv != "runs.csv" || o.format != "text" || k.Plateau != 0.95 || k.MinGain != 0.10 || o.gates.Given() || len(o.files) != 0 {
		t.Errorf("defaults: exit %d, %+v", code, o)
	}

	for _, bad := range [][]string{
		{"a.jsonl", "--plateau", "0"},       // open at 0
		{"a.jsonl", "--format", "yaml"},     // not a format
		{"a.jsonl", "--threshold", "p99<x"}, // not a threshold
		{"a.jsonl", "--slo-p99", "2h"},      // past its hour
		{"a.jsonl", "--csv", ""},            // empty
		// Flags that do not go together, and no input: refused before
		// the run as well.
		{"--csv", "r.csv", "--ftdc", "d"},             // FTDC attaches to results files
		{"a.jsonl", "--ftdc-replace"},                 // needs --ftdc
		{"--csv", "r.csv", "--threshold", "p99<20ms"}, // thresholds judge results files
		{"a.jsonl", "--csv", "r.csv"},                 // one or the other
		{},                                            // nothing to analyse
	} {
		if o, code, stderr := cmdtest.Parse(t, NewCmdAnalyze, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
