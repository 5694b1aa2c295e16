package plot

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/results"
)

var (
	plotDir = flag.String("plotdir", "", "also write every figure and the reports here, to look at")
)

type scenario struct {
	name  string
	rs    []*results.Results
	a     *analysis.Analysis
	figs  []string // figure names expected
	notes int      // skipped-figure notes expected
}

func scenarios(t *testing.T) []scenario {
	pair, grid := loadInputs(t)
	inflight := readTestdata(t, "inflight.jsonl")
	return []scenario{
		// Two targets in one file with telemetry: every figure but the grid.
		{"pair", []*results.Results{pair}, withReports(pairReports(pair), pair),
			[]string{figThroughput, figLatency, figLatencyThroughput, figComparison, figTimeBreakdown}, 1},
		// A C × P grid on one target without telemetry and without reports:
		// the grid appears, comparison and time breakdown are skipped.
		{"grid", []*results.Results{grid}, unmarked(grid),
			[]string{figThroughput, figLatency, figLatencyThroughput, figPoolGrid}, 2},
		// Two files: the comparison spans files.
		{"two-files", []*results.Results{pair, grid}, withReports(pairReports(pair), pair, grid),
			[]string{figThroughput, figLatency, figLatencyThroughput, figPoolGrid, figComparison, figTimeBreakdown}, 0},
		// A recorded simulator run (slots=8, service=2ms, 3 trials) with
		// the server's in-flight ops hand-added (Little's law from its
		// opcounters and latency), missing in one trial: the time
		// breakdown gains the server's view of the knee.
		{"inflight", []*results.Results{inflight}, analyzed(inflight),
			[]string{figThroughput, figLatency, figLatencyThroughput, figTimeBreakdown}, 2},
	}
}

func TestFigureDataGolden(t *testing.T) {
	for _, sc := range scenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			figs, notes, err := Figures(sc.rs, sc.a, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if len(notes) != sc.notes {
				t.Errorf("notes %q, want %d", notes, sc.notes)
			}
			checkFigureData(t, sc.name, figs, notes, sc.figs)
			if *plotDir != "" {
				writeLook(t, filepath.Join(*plotDir, sc.name), sc, figs)
			}
		})
	}
}

// writeLook writes the figures for a person to inspect.
func writeLook(t *testing.T, dir string, sc scenario, figs []Figure) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFiles(dir, figs); err != nil {
		t.Fatal(err)
	}
}

// TestFigureMarks checks the knee/peak labels and the data behind them
// against the inputs' construction, independently of the golden files.
func TestFigureMarks(t *testing.T) {
	pair, _ := loadInputs(t)
	reports := pairReports(pair)
	figs, _, err := Figures([]*results.Results{pair}, withReports(reports, pair), Options{Figures: []string{figThroughput}})
	if err != nil {
		t.Fatal(err)
	}
	d := figs[0].Data
	want := map[string]bool{
		"knee 64 (32–128) · " + humanNumber(reports[0].Knee.QPS) + " ops/s":         false, // standalone: x = connections = C
		"peak 128 · " + humanNumber(reports[0].Peak.QPS) + " ops/s":                 false,
		"knee = peak 192 (96–192) · " + humanNumber(reports[1].Knee.QPS) + " ops/s": false, // sharded: 3 mongos, x = 3·C
	}
	for _, m := range d.Marks {
		if _, ok := want[m.Label]; ok {
			want[m.Label] = true
		}
	}
	for l, seen := range want {
		if !seen {
			t.Errorf("no mark %q in %+v", l, d.Marks)
		}
	}
	roles := map[string]int{}
	for _, s := range d.Series {
		roles[s.Role]++
		if s.Role == "usl" {
			// The USL is the generator's truth: at the knee's x it must
			// equal the truth at C = 64 (the x mapping is consistent).
			for _, p := range s.Points {
				if (s.Name == "standalone · pool=match" && p.X == 64) || (s.Name == "sharded · pool=match" && p.X == 192) {
					u := truthStandalone
					if s.Name[0] == 's' && strings.HasPrefix(s.Name, "sharded") {
						u = truthSharded
					}
					if math.Abs(p.Y-u.at(64))/p.Y > 1e-5 {
						t.Errorf("%s USL at x=%g is %g, want %g", s.Name, p.X, p.Y, u.at(64))
					}
				}
			}
		}
		if s.Role == "ops/s" {
			for _, p := range s.Points {
				if p.N != 3 || !(p.Low < p.Y && p.Y < p.High) {
					t.Errorf("%s at %g: want 3 trials and a 95%% interval around the median, got %+v", s.Name, p.X, p)
				}
			}
		}
	}
	// Each target: ops/s, calls/s (3 ops per call), usl, retrograde.
	for role, n := range map[string]int{"ops/s": 2, "calls/s": 2, "usl": 2, "retrograde": 2} {
		if roles[role] != n {
			t.Errorf("%d series of role %s, want %d (roles %v)", roles[role], role, n, roles)
		}
	}
}

func TestSVGParsesAndLabels(t *testing.T) {
	pair, grid := loadInputs(t)
	figs, _, err := Figures([]*results.Results{pair, grid}, withReports(pairReports(pair), pair, grid), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		t.Run(f.Name, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.WriteSVG(&b); err != nil {
				t.Fatal(err)
			}
			texts := svgTexts(t, b.Bytes())
			all := strings.Join(texts, "\n")
			for _, s := range f.Data.Series {
				if f.Name == figTimeBreakdown || strings.HasPrefix(f.Name, figPoolGrid) {
					continue // panels titled by series / grid axes instead
				}
				if !strings.Contains(all, s.Name) {
					t.Errorf("series label %q not in SVG text", s.Name)
				}
			}
			for _, m := range f.Data.Marks {
				if m.Kind == "best" {
					continue // in the title
				}
				if !strings.Contains(all, m.Label) {
					t.Errorf("mark %q not in SVG text", m.Label)
				}
			}
			if !strings.Contains(all, strings.Split(f.Title, "\n")[0]) {
				t.Errorf("title %q not in SVG", f.Title)
			}
		})
	}
}

// svgTexts decodes the SVG as XML (failing on malformed output) and
// returns the content of its <text> elements.
func svgTexts(t *testing.T, b []byte) []string {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(b))
	var texts []string
	in := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not XML: %v", err)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			in = e.Name.Local == "text"
		case xml.CharData:
			if in {
				texts = append(texts, string(e))
			}
		case xml.EndElement:
			in = false
		}
	}
	if len(texts) == 0 {
		t.Fatal("SVG has no text")
	}
	return texts
}

func TestPNGDecodes(t *testing.T) {
	pair, _ := loadInputs(t)
	figs, _, err := Figures([]*results.Results{pair}, withReports(pairReports(pair), pair), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		var b bytes.Buffer
		if err := f.writePNG(&b); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		w, h := f.size()
		if got := img.Bounds().Dx(); got != int(math.Round((w.Points()/72)*pngDPI)) {
			t.Errorf("%s: width %d px, want %g in × %d dpi", f.Name, got, (w.Points() / 72), pngDPI)
		}
		if got := img.Bounds().Dy(); got != int(math.Round((h.Points()/72)*pngDPI)) {
			t.Errorf("%s: height %d px, want %g in × %d dpi", f.Name, got, (h.Points() / 72), pngDPI)
		}
	}
}

func TestFiguresSelection(t *testing.T) {
	pair, _ := loadInputs(t)
	rs := []*results.Results{pair}
	for _, tc := range []struct {
		which   []string
		want    []string
		wantErr bool
	}{
		{nil, []string{figThroughput, figLatency, figLatencyThroughput, figComparison, figTimeBreakdown}, false}, // empty means all that apply
		{[]string{"latency", "throughput"}, []string{figThroughput, figLatency}, false},                          // drawn in canonical order
		{[]string{"pool-grid"}, nil, false}, // asked but not applicable: a note, no error
		{[]string{"heatmap"}, nil, true},    // unknown name is an error
	} {
		figs, _, err := Figures(rs, unmarked(rs...), Options{Figures: tc.which})
		if (err != nil) != tc.wantErr {
			t.Errorf("%v: err %v", tc.which, err)
			continue
		}
		var got []string
		for _, f := range figs {
			got = append(got, f.Name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: figures %v, want %v", tc.which, got, tc.want)
		}
	}
	empty := []*results.Results{{Path: "empty"}}
	if _, _, err := Figures(empty, analyzed(empty...), Options{}); !errors.Is(err, ErrNoSteps) {
		t.Errorf("no steps: err %v, want ErrNoSteps", err)
	}
}

// TestWithKneeAnalysis runs the real analysis on the inputs and checks the
// figures carry a knee mark for every series where it found one.
func TestWithKneeAnalysis(t *testing.T) {
	pair, grid := loadInputs(t)
	rs := []*results.Results{pair, grid}
	reports := analyzed(rs...).Series
	if len(reports) != 5 { // standalone, sharded, embedded × 3 pools
		t.Fatalf("%d reports, want 5", len(reports))
	}
	figs, _, err := Figures(rs, analyzed(rs...), Options{Figures: []string{figThroughput}})
	if err != nil {
		t.Fatal(err)
	}
	kneeMarks := 0
	for _, m := range figs[0].Data.Marks {
		if m.Kind == "knee" {
			kneeMarks++
		}
	}
	found := 0
	for _, r := range reports {
		if r.Knee.Found {
			found++
		}
	}
	if kneeMarks != found {
		t.Errorf("%d knee marks, but the analysis found %d knees", kneeMarks, found)
	}
}
