package render

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// Recorded results (the plot package's fixtures): two targets of one run
// (a standalone and a sharded cluster of the simulator, 3 trials a
// level), and an open-loop run of two pool sizes.
var (
	pairRun = filepath.Join("..", "..", "plot", "testdata", "pair.jsonl")
	openRun = filepath.Join("..", "..", "plot", "testdata", "open.jsonl")
)

func read(t *testing.T, path string) *results.Results {
	t.Helper()
	res, err := results.ReadResultsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// mixedRun is the pair's closed-loop steps with the open-loop run's steps
// added: one run holding both loops and two targets.
func mixedRun(t *testing.T) *results.Results {
	res := read(t, pairRun)
	res.Steps = append(res.Steps, read(t, openRun).Steps...)
	return res
}

// TestGolden renders recorded runs as the sweep's end table (Summary) and
// analyze's text (Text); refresh with go test ./analysis/render -run
// Golden -update.
func TestGolden(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		res  func(*testing.T) *results.Results
	}{
		// Closed and open loop in one run, two targets: the step table,
		// the telemetry with its n/r footnote, the knee lines, the
		// deployment verdict in short (in full in the text), then the
		// open-loop table. (cmd/poolsweep's goldens hold the pair alone.)
		{"mixed", mixedRun},
		// Open loop alone: its table carries the run's notes and warnings.
		{"open", func(t *testing.T) *results.Results { return read(t, openRun) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := tc.res(t)
			a := analysis.Of([]*results.Results{res}, knee.DefaultOptions())
			var sum, txt bytes.Buffer
			if err := Summary(&sum, res, a); err != nil {
				t.Fatal(err)
			}
			if err := Text(&txt, a); err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "summary-"+tc.name+".txt"), sum.Bytes())
			golden.Check(t, filepath.Join("testdata", "text-"+tc.name+".txt"), txt.Bytes())
		})
	}
}

// TestOneDeploymentVerdict: the sweep's end table and analyze state each
// deployment verdict in the same words: its title line, its seeds' table
// and its verdict line appear in both, and Deployments (analyze, compare)
// adds the peaks, knees, matched latency and crossover in between.
func TestOneDeploymentVerdict(t *testing.T) {
	t.Parallel()
	res := read(t, pairRun)
	a := analysis.Of([]*results.Results{res}, knee.DefaultOptions())
	if len(a.Curves) != 1 {
		t.Fatalf("%d curve comparisons, want 1 (standalone against sharded)", len(a.Curves))
	}
	var sum, txt, short bytes.Buffer
	if err := Summary(&sum, res, a); err != nil {
		t.Fatal(err)
	}
	if err := Text(&txt, a); err != nil {
		t.Fatal(err)
	}
	if err := deploymentsShort(&short, a.Curves); err != nil {
		t.Fatal(err)
	}
	c := a.Curves[0]
	title, verdict := "deployments: "+c.Title()+"\n", "  verdict: "+c.Verdict+"\n"
	for name, out := range map[string]string{"summary": sum.String(), "text": txt.String()} {
		if !strings.Contains(out, title) || !strings.Contains(out, verdict) {
			t.Errorf("%s lacks the title %q or the verdict %q", name, title, verdict)
		}
	}
	// The short form is the summary's, whole; its seeds' table is the
	// full form's.
	if !strings.Contains(sum.String(), short.String()) {
		t.Errorf("the summary does not hold DeploymentsShort's text:\n%s", short.String())
	}
	lines := strings.Split(strings.TrimSpace(short.String()), "\n")
	table := strings.Join(lines[1:len(lines)-1], "\n")
	if len(lines) < 4 || !strings.Contains(txt.String(), table) {
		t.Errorf("the seeds' table of the short form is not the full form's:\n%s", table)
	}
	for _, want := range []string{"  peak:", "  ratio:", "  knee:", "  crossover:", "latency at matched throughput"} {
		if !strings.Contains(txt.String(), want) || strings.Contains(sum.String(), want) {
			t.Errorf("%q: want it in analyze's text only", want)
		}
	}
}

// TestSummaryKneeLines: the end table's knee lines are KneeLine's of
// each series, in the analysis's order, after the step tables.
func TestSummaryKneeLines(t *testing.T) {
	t.Parallel()
	res := read(t, pairRun)
	a := analysis.Of([]*results.Results{res}, knee.DefaultOptions())
	var b bytes.Buffer
	if err := Summary(&b, res, a); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	last := -1
	for _, r := range a.Series {
		i := strings.Index(out, "\n"+KneeLine(r)+"\n")
		if i < 0 || i < last || i < strings.Index(out, "per window") {
			t.Fatalf("knee line %q at %d (previous %d)", KneeLine(r), i, last)
		}
		last = i
	}
}
