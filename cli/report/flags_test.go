package report

import (
	"slices"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

// TestReportFlags: argv becomes the options the report is written with,
// and a value a flag does not take never reaches the writing.
func TestReportFlags(t *testing.T) {
	o, code, stderr := cmdtest.Parse(t, NewCmdReport, "ab.jsonl", "-o", "r.md", "--format", "markdown", "--baseline", "a", "--candidate", "b",
		"--steady", "16", "--instances", "40", "--slo-p99", "20ms", "--lenient")
	if code != 0 || o == nil {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	k, _ := o.analysis.Options()
	switch {
	case !slices.Equal(o.files, []string{"ab.jsonl"}) || o.out != "r.md" || o.format != "markdown":
		t.Errorf("files %q, out %q, format %q", o.files, o.out, o.format)
	case o.baseline != "a" || o.candidate != "b" || o.steady != "16" || !o.read.Lenient:
		t.Errorf("options %+v", o)
	case k.SLOP99.String() != "20ms" || o.fleet.Instances() != 40:
		t.Errorf("knee %+v, instances %d", k, o.fleet.Instances())
	}
	if o, _, _ := cmdtest.Parse(t, NewCmdReport, "a.jsonl", "-o", "r.html"); o == nil || o.format != "html" || o.fleet.Instances() != 0 {
		t.Errorf("defaults %+v", o)
	}
	for _, bad := range [][]string{
		{"a.jsonl", "-o", "r", "--format", "pdf"},       // not a format
		{"a.jsonl", "-o", "r", "--instances", "0"},      // below 1
		{"a.jsonl", "-o", "r", "--conn-memory", "2000"}, // past 1 GiB
		{"-o", "r"},                  // no files
		{"a.jsonl"},                  // -o is required
		{"a.jsonl", "-o", "a.jsonl"}, // the report over its own input
		{"a.jsonl", "-o", "r.html", "--baseline", "x"},                                // one target named
		{"a.jsonl", "b.jsonl", "-o", "r.html", "--baseline", "x", "--candidate", "y"}, // two files are the A/B pair already
		{"a.jsonl", "-o", "r.html", "--storm", "s.jsonl"},                             // a fleet plan needs --instances
		{"a.jsonl", "-o", "no/such/dir/r.html"},                                       // -o's directory must exist
	} {
		if o, code, stderr := cmdtest.Parse(t, NewCmdReport, bad...); o != nil || code != 2 {
			t.Errorf("%q: exit %d, reached the run: %v (%s)", bad, code, o != nil, stderr)
		}
	}
}
