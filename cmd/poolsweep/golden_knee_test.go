package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// Recorded results the golden outputs are made from. sim-api.jsonl is a
// small simulator sweep (slots=8, service=2ms, api workload, C 1..32x2,
// 3 trials) recorded with this tree's poolsweep on the shared 2-core
// machine; the others are the fixtures of the plot and compare packages.
var (
	simRun     = filepath.Join("testdata", "sim-api.jsonl")
	searchRun  = filepath.Join("testdata", "search-pool.jsonl")
	pairRun    = filepath.Join("..", "..", "plot", "testdata", "pair.jsonl")
	gridRun    = filepath.Join("..", "..", "plot", "testdata", "grid.jsonl")
	abBase     = filepath.Join("..", "..", "compare", "testdata", "base.jsonl")
	abCand     = filepath.Join("..", "..", "compare", "testdata", "cand.jsonl")
	seedsTable = filepath.Join("..", "..", "testdata", "seeds-003.csv")
)

// TestGoldenAnalyzeCompare runs analyze and compare in-process on recorded
// results and compares what a user reads on stdout with
// testdata/golden/*.golden, in the style of benchstat's cmd tests.
// Refresh with: go test ./cmd/poolsweep -run Golden -update
func TestGoldenAnalyzeCompare(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
	}{
		// A recorded simulator sweep: bootstrap intervals, USL fit, bounds.
		{"analyze-sim.txt", []string{"analyze", simRun}},
		{"analyze-sim.json", []string{"analyze", simRun, "--format", "json"}},
		// A recorded --search pool run: one knee series (the pool probes
		// are the search's), and the search's own conclusion.
		{"analyze-search.txt", []string{"analyze", searchRun}},
		// Two targets of one run, with an SLO.
		{"analyze-pair.txt", []string{"analyze", pairRun, "--slo-p99", "50ms"}},
		{"analyze-pair.json", []string{"analyze", pairRun, "--slo-p99", "50ms", "--format", "json"}},
		// A pool grid cut short: an interrupted step, planned steps missing,
		// no end record.
		{"analyze-grid.txt", []string{"analyze", gridRun}},
		{"analyze-grid.json", []string{"analyze", gridRun, "--format", "json"}},
		// The seeds' table as CSV.
		{"analyze-seeds-csv.txt", []string{"analyze", "--csv", seedsTable}},
		// The audit-log study in miniature, in all three formats.
		{"compare-study.txt", []string{"compare", abBase, abCand}},
		{"compare-study.md", []string{"compare", abBase, abCand, "--format", "markdown"}},
		{"compare-study.json", []string{"compare", abBase, abCand, "--format", "json"}},
		// Two targets of one file.
		{"compare-pair.txt", []string{"compare", pairRun, "--baseline", "standalone", "--candidate", "sharded"}},
		// ... and their curves (peak against peak, latency at matched
		// throughput, the seeds' table) in the other formats.
		{"compare-pair.md", []string{"compare", pairRun, "--baseline", "standalone", "--candidate", "sharded", "--format", "markdown"}},
		{"compare-pair.json", []string{"compare", pairRun, "--baseline", "standalone", "--candidate", "sharded", "--format", "json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(t, tt.args...)
			if code != 0 {
				t.Fatalf("poolsweep %s: exit %d, stderr %q", strings.Join(tt.args, " "), code, stderr)
			}
			// stdout is what users read; stderr holds only the reader's
			// warnings (the grid run has no end record), golden too.
			golden.Check(t, filepath.Join("testdata", "golden", tt.name+".golden"), []byte(stdout))
			if stderr != "" {
				golden.Check(t, filepath.Join("testdata", "golden", tt.name+".stderr.golden"), []byte(stderr))
			}
		})
	}
}

// TestGoldenSweepSummary is what a user reads on stdout when a sweep ends
// (the step table, the per-window telemetry with n/r footnotes, the
// CLIENT-BOUND warning, the knee lines, missing steps), made from recorded
// results so that it is compared byte for byte.
func TestGoldenSweepSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, path string }{
		{"summary-sim.txt", simRun},
		{"summary-pair.txt", pairRun},
		{"summary-grid.txt", gridRun},
		{"summary-search.txt", searchRun},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := readRes(t, tc.path)
			var b bytes.Buffer
			_ = render.Summary(&b, res, analysis.Of([]*results.Results{res}, knee.DefaultOptions()))
			golden.Check(t, filepath.Join("testdata", "golden", tc.name+".golden"), b.Bytes())
		})
	}
}

// TestSearchedRunOneVerdict: a searched run has one verdict. The sweep's
// summary prints one knee line (the pool search's probes are not knee
// series, each with a "none within tested range" of its own), and the
// search's conclusion names the knee that line names.
func TestSearchedRunOneVerdict(t *testing.T) {
	t.Parallel()
	res := readRes(t, searchRun)
	a := analysis.Of([]*results.Results{res}, knee.DefaultOptions())
	var b bytes.Buffer
	_ = render.Summary(&b, res, a)
	var knees []string
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, "knee:") {
			knees = append(knees, l)
		}
	}
	if len(knees) != 1 || len(a.Series) != 1 || !a.Series[0].Knee.Found {
		t.Fatalf("knee lines %q, %d series: want one, with a knee", knees, len(a.Series))
	}
	k := a.Series[0].Knee.Concurrency
	if !strings.HasPrefix(knees[0], fmt.Sprintf("knee: sim concurrency=%d ", k)) {
		t.Errorf("knee line %q, analysis knee %d", knees[0], k)
	}
	if len(a.Searches) != 1 || !strings.HasPrefix(a.Searches[0].Conclusion, fmt.Sprintf("search: knee at concurrency %d located", k)) {
		t.Errorf("search conclusion %+v does not name the knee %d", a.Searches, k)
	}
	// Neither restates what the other decides: the search line has no
	// confidence or peak of its own.
	if c := a.Searches[0].Conclusion; strings.Contains(c, "confidence,") || strings.Contains(c, "peak ") {
		t.Errorf("the search line restates the verdict: %q", c)
	}
}
