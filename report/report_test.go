package report

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/results"
)

func TestMixText(t *testing.T) {
	for _, tc := range []struct {
		mix  map[string]float64
		want string
	}{
		{map[string]float64{"find": 2, "update": 1}, "find 67% : update 33%"},          // weights, not 0.6666666666666666
		{map[string]float64{"update": 0.3, "read": 0.7}, "read 70% : update 30%"},      // fractions, largest first
		{map[string]float64{"read": 1}, "read 100%"},                                   // one op
		{map[string]float64{"read": 0.955, "update": 0.045}, "read 96% : update 4.5%"}, // a small share keeps a decimal
		{map[string]float64{"b": 1, "a": 1, "c": 1}, "a 33% : b 33% : c 33%"},          // ties by name
		{map[string]float64{"read": 0}, ""},                                            // nothing to say
	} {
		if got := mixText(tc.mix); got != tc.want {
			t.Errorf("mixText(%v) = %q, want %q", tc.mix, got, tc.want)
		}
	}
	w := results.WorkloadInfo{Name: "mixes", Mixes: []string{"mix 0:100:0", "mix 0:50:50"}}
	if got := workloadText(w); got != "mixes (insert:read:update) 0:100:0, 0:50:50" {
		t.Errorf("workloadText(mixes) = %q", got)
	}
}

// TestReportPolish: what a reader saw wrong in a browser stays fixed —
// each caption printed once (under the figure, not also inside its SVG),
// the targets table narrow enough for the page (notes below it, said once
// per distinct note), and the figures scaled to the text column.
func TestReportPolish(t *testing.T) {
	pair := fixture(t, "pair.jsonl")
	rs := []*results.Results{pair}
	rep, skipped := build(t, rs, analyzed(pair), nil)
	figs := rep.Figures
	if len(skipped) == 0 {
		t.Fatalf("no figure skipped")
	}
	// Both targets share one note: the report says it once.
	pair.Header.Targets[0].Note = "calibrated simulator: not a database"
	pair.Header.Targets[1].Note = "calibrated simulator: not a database"
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	for _, f := range figs {
		if f.Caption == "" {
			continue
		}
		// The figure's own block: its SVG and its figcaption.
		i := strings.Index(h, `<figure id="`+f.Name+`">`)
		j := strings.Index(h[i:], "</figure>")
		if i < 0 || j < 0 {
			t.Fatalf("%s: no figure block", f.Name)
		}
		block := h[i : i+j]
		if n := strings.Count(block, escapeHTML(f.Caption)); n != 1 {
			t.Errorf("%s: caption printed %d times in its figure", f.Name, n)
		}
		// Nor are the caption's first words in the SVG text (vgsvg
		// writes each wrapped line as its own text element).
		first := escapeHTML(strings.Join(strings.Fields(f.Caption)[:4], " "))
		if n := strings.Count(block, first); n != 1 {
			t.Errorf("%s: %q appears %d times in its figure", f.Name, first, n)
		}
	}
	if !strings.Contains(h, "<tr><th>target</th><th>topology</th><th>server</th><th>hosts</th><th>URI (redacted)</th></tr>") {
		t.Error("targets table is not the five-column one")
	}
	if n := strings.Count(h, "standalone, sharded: calibrated simulator: not a database"); n != 1 {
		t.Errorf("shared note said %d times, want once naming both targets", n)
	}
	// A figure left out is said so, with why.
	name, why, _ := strings.Cut(skipped[0], ": skipped: ")
	if !strings.Contains(h, "Not drawn: "+escapeHTML(name)+" — "+escapeHTML(why)) {
		t.Errorf("report does not say %q", skipped[0])
	}
	if !strings.Contains(h, `style="width:100%;height:auto"`) || !strings.Contains(h, `aria-label="Throughput vs connections`) {
		t.Error("inline SVGs do not scale to the column or lack their label")
	}
}

func TestHTMLReportSelfContained(t *testing.T) {
	pair, grid := fixture(t, "pair.jsonl"), fixture(t, "grid.jsonl")
	rs := []*results.Results{pair, grid}
	a := analyzed(rs...)
	rep, _ := build(t, rs, a, nil)
	h := selfContainedHTML(t, rep)
	if n := strings.Count(h, "<svg "); n != len(rep.Figures) {
		t.Errorf("%d inline SVGs, want %d", n, len(rep.Figures))
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
		escapeHTML(a.Series[0].Verdict[:40]),                                // the analysis's verdicts are there
		escapeHTML(render.KneeLine(a.Series[0])),                            // and its summary line
		"poolsweep analyze --plateau 0.95 --min-gain 0.1",                   // with the command that gives them
	} {
		if !strings.Contains(h, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// Write puts a Markdown report's figures in the directory named after it
// and links them from it; every link names a file written.
func TestMarkdownReportLinksWrittenPNGs(t *testing.T) {
	pair := fixture(t, "pair.jsonl")
	rs := []*results.Results{pair}
	rep, _ := build(t, rs, analyzed(pair), nil)
	dir := t.TempDir()
	path := filepath.Join(dir, "run report.md")
	if err := rep.Write(path, Markdown); err != nil {
		t.Fatal(err)
	}
	figs, _ := filepath.Glob(filepath.Join(dir, "run report_files", "*"))
	if len(figs) != 2*len(rep.Figures) {
		t.Errorf("%d figure files, want %d", len(figs), 2*len(rep.Figures))
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	links := regexp.MustCompile(`!\[[^\]]*\]\(([^)]+)\)`).FindAllStringSubmatch(md, -1)
	if len(links) != len(rep.Figures) {
		t.Fatalf("%d image links, want %d", len(links), len(rep.Figures))
	}
	for _, l := range links {
		name, err := url.PathUnescape(l[1])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("markdown links %s, which was not written: %v", l[1], err)
		}
	}
	if !strings.Contains(md, "| concurrency | pool | connections | trial | throughput (ops/s) | calls/s | RAL (µs) | WAL (µs) |") {
		t.Errorf("markdown step table header missing:\n%s", md)
	}
	if strings.Contains(md, "&#39;") || strings.Contains(md, "hunter2") {
		t.Error("markdown is HTML-escaped or leaks an error sample")
	}
	// A figure's place taken by a directory: refused before anything is
	// written, as a PathError.
	bad := filepath.Join(dir, "bad.md")
	if err := os.MkdirAll(filepath.Join(dir, "bad_files", "throughput.png"), 0o755); err != nil {
		t.Fatal(err)
	}
	var pe *PathError
	if err := rep.Write(bad, Markdown); !errors.As(err, &pe) {
		t.Errorf("figure path is a directory: %v, want a PathError", err)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("the report was written although its figures could not be")
	}
}

// A run with closed- and open-loop steps: the report lists both tables
// and the open-loop verdict.
func TestOpenReport(t *testing.T) {
	pair, open := fixture(t, "pair.jsonl"), fixture(t, "open.jsonl")
	mixed := *pair
	mixed.Steps = append(slices.Clone(pair.Steps), open.Steps...)
	rs := []*results.Results{&mixed}
	rep, _ := build(t, rs, analyzed(rs...), nil)
	var h, m bytes.Buffer
	if err := rep.WriteHTML(&h); err != nil {
		t.Fatal(err)
	}
	if err := rep.writeMarkdown(&m, ""); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{h.String(), m.String()} {
		for _, want := range []string{"open loop: sim · read", "before latency grows", "uncorrected p99 (ms)", "RAL (µs)"} {
			if !strings.Contains(out, want) {
				t.Errorf("report lacks %q", want)
			}
		}
	}
}
