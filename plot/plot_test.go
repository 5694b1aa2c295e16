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
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

var (
	plotDir = flag.String("plotdir", "", "also write every figure and the reports here, to look at")
)

type scenario struct {
	name    string
	rs      []*results.Results
	reports []knee.Report
	figs    []string // figure names expected
	notes   int      // skipped-figure notes expected
}

func scenarios(t *testing.T) []scenario {
	pair, grid := loadInputs(t)
	inflight := readTestdata(t, "inflight.jsonl")
	return []scenario{
		// Two targets in one file with telemetry: every figure but the grid.
		{"pair", []*results.Results{pair}, pairReports(pair),
			[]string{FigThroughput, FigLatency, FigLatencyThroughput, FigComparison, FigTimeBreakdown}, 1},
		// A C × P grid on one target without telemetry and without reports:
		// the grid appears, comparison and time breakdown are skipped.
		{"grid", []*results.Results{grid}, nil,
			[]string{FigThroughput, FigLatency, FigLatencyThroughput, FigPoolGrid}, 2},
		// Two files: the comparison spans files.
		{"two-files", []*results.Results{pair, grid}, pairReports(pair),
			[]string{FigThroughput, FigLatency, FigLatencyThroughput, FigPoolGrid, FigComparison, FigTimeBreakdown}, 0},
		// A recorded simulator run (slots=8, service=2ms, 3 trials) with
		// the server's in-flight ops hand-added (Little's law from its
		// opcounters and latency), missing in one trial: the time
		// breakdown gains the server's view of the knee.
		{"inflight", []*results.Results{inflight}, Analyze([]*results.Results{inflight}),
			[]string{FigThroughput, FigLatency, FigLatencyThroughput, FigTimeBreakdown}, 2},
	}
}

func TestFigureDataGolden(t *testing.T) {
	for _, sc := range scenarios(t) {
		t.Run(sc.name, func(t *testing.T) {
			figs, notes, err := Figures(sc.rs, sc.reports, nil)
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

// writeLook writes the figures and both reports for a person to inspect.
func writeLook(t *testing.T, dir string, sc scenario, figs []Figure) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFiles(dir, figs); err != nil {
		t.Fatal(err)
	}
	var h, m bytes.Buffer
	rep := &Report{Results: sc.rs, Analyses: sc.reports, Figures: figs, PNGNames: PNGNames(figs)}
	if err := rep.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteMarkdown(&m); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(filepath.Join(dir, "report.html"), h.Bytes(), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "report.md"), m.Bytes(), 0o644)
}

// TestFigureMarks checks the knee/peak labels and the data behind them
// against the inputs' construction, independently of the golden files.
func TestFigureMarks(t *testing.T) {
	pair, _ := loadInputs(t)
	reports := pairReports(pair)
	figs, _, err := Figures([]*results.Results{pair}, reports, []string{FigThroughput})
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
	figs, _, err := Figures([]*results.Results{pair, grid}, pairReports(pair), nil)
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
				if f.Name == FigTimeBreakdown || strings.HasPrefix(f.Name, FigPoolGrid) {
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
	figs, _, err := Figures([]*results.Results{pair}, pairReports(pair), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		var b bytes.Buffer
		if err := f.WritePNG(&b); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatalf("%s: %v", f.Name, err)
		}
		w, h := f.size()
		if got := img.Bounds().Dx(); got != int(math.Round((w.Points()/72)*PNGDPI)) {
			t.Errorf("%s: width %d px, want %g in × %d dpi", f.Name, got, (w.Points() / 72), PNGDPI)
		}
		if got := img.Bounds().Dy(); got != int(math.Round((h.Points()/72)*PNGDPI)) {
			t.Errorf("%s: height %d px, want %g in × %d dpi", f.Name, got, (h.Points() / 72), PNGDPI)
		}
	}
}

var externalRef = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:|//)`)

func TestHTMLReportSelfContained(t *testing.T) {
	pair, grid := loadInputs(t)
	rs := []*results.Results{pair, grid}
	reports := pairReports(pair)
	figs, _, err := Figures(rs, reports, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := (&Report{Results: rs, Analyses: reports, Figures: figs}).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	if m := externalRef.FindString(h); m != "" {
		t.Errorf("external reference %q in the report", m)
	}
	for _, bad := range []string{"<script", "<link", "@import", "url(", "hunter2"} {
		if strings.Contains(h, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	if n := strings.Count(h, "<svg "); n != len(figs) {
		t.Errorf("%d inline SVGs, want %d", n, len(figs))
	}
	// Step table in the seeds' format, one row per step of both files.
	for _, col := range []string{"<th>concurrency</th>", "<th>pool</th>", "<th>connections</th>", "<th>throughput (ops/s)</th>",
		"<th>RAL (µs)</th>", "<th>WAL (µs)</th>", "<th>p99 (ms)</th>", "<th>errors</th>"} {
		if !strings.Contains(h, col) {
			t.Errorf("step table lacks column %s", col)
		}
	}
	if rows := strings.Count(h, "<tr><td>"); rows < len(pair.Steps)+len(grid.Steps) {
		t.Errorf("%d table rows, want at least %d steps", rows, len(pair.Steps)+len(grid.Steps))
	}
	for _, want := range []string{
		"embedded FerretDB (numbers are FerretDB&#39;s, not MongoDB&#39;s)", // the FerretDB target is labelled
		"simulator (calibrated instrument, not a database)",                 // so are simulated ones
		"8 (7 timeout, 1 network)",                                          // error kinds
		"2 (interrupted)",                                                   // interrupted step flagged
		"no end record",                                                     // cut-short run said so
		pairReports(pair)[0].Verdict[:40],                                   // verdicts are there
		"knee: standalone concurrency=64",                                   // and the summary line
	} {
		if !strings.Contains(h, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestMarkdownReportLinksWrittenPNGs(t *testing.T) {
	pair, _ := loadInputs(t)
	rs := []*results.Results{pair}
	figs, _, err := Figures(rs, pairReports(pair), nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths, err := WriteFiles(dir, figs)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2*len(figs) {
		t.Errorf("%d files, want %d", len(paths), 2*len(figs))
	}
	var b bytes.Buffer
	if err := (&Report{Results: rs, Analyses: pairReports(pair), Figures: figs, PNGNames: PNGNames(figs)}).WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`).FindAllStringSubmatch(b.String(), -1)
	if len(links) != len(figs) {
		t.Fatalf("%d image links, want %d", len(links), len(figs))
	}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join(dir, l[1])); err != nil {
			t.Errorf("markdown links %s, which was not written: %v", l[1], err)
		}
	}
	md := b.String()
	if !strings.Contains(md, "| concurrency | pool | connections | trial | throughput (ops/s) | calls/s | RAL (µs) | WAL (µs) |") {
		t.Errorf("markdown step table header missing:\n%s", md)
	}
	if strings.Contains(md, "&#39;") || strings.Contains(md, "hunter2") {
		t.Error("markdown is HTML-escaped or leaks an error sample")
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
		{nil, []string{FigThroughput, FigLatency, FigLatencyThroughput, FigComparison, FigTimeBreakdown}, false}, // empty means all that apply
		{[]string{"latency", "throughput"}, []string{FigThroughput, FigLatency}, false},                          // drawn in canonical order
		{[]string{"pool-grid"}, nil, false}, // asked but not applicable: a note, no error
		{[]string{"heatmap"}, nil, true},    // unknown name is an error
	} {
		figs, _, err := Figures(rs, nil, tc.which)
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
	if _, _, err := Figures([]*results.Results{{Path: "empty"}}, nil, nil); !errors.Is(err, ErrNoSteps) {
		t.Errorf("no steps: err %v, want ErrNoSteps", err)
	}
}

// TestWithKneeAnalysis runs the real analysis on the inputs and checks the
// figures carry a knee mark for every series where it found one.
func TestWithKneeAnalysis(t *testing.T) {
	pair, grid := loadInputs(t)
	rs := []*results.Results{pair, grid}
	reports := Analyze(rs)
	if len(reports) != 5 { // standalone, sharded, embedded × 3 pools
		t.Fatalf("%d reports, want 5", len(reports))
	}
	figs, _, err := Figures(rs, reports, []string{FigThroughput})
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
