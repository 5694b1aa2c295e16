package report

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// Two files: each run analysed on its own, the A/B section with compare's
// verdicts and the A/B figures.
func TestHTMLReportWithComparison(t *testing.T) {
	rs := []*results.Results{fixture(t, "ab-base.jsonl"), fixture(t, "ab-cand.jsonl")}
	rep, _ := build(t, rs, analysis.Each(rs, knee.DefaultOptions()), &AB{})
	c, figs, abFigs := rep.Comparison, rep.Figures, rep.ABFigures
	if c == nil || len(abFigs) != 2 {
		t.Fatalf("comparison %v, %d A/B figures", c != nil, len(abFigs))
	}
	h := selfContainedHTML(t, rep)
	if n := strings.Count(h, "<svg "); n != len(figs)+len(abFigs) {
		t.Errorf("%d inline SVGs, want %d run figures + %d A/B figures", n, len(figs), len(abFigs))
	}
	for _, v := range c.Verdicts {
		// The verdict is compare's text, HTML-escaped and nothing else.
		if !strings.Contains(h, "<li>"+escapeHTML(v.Text)+"</li>") {
			t.Errorf("verdict %q not in the report", v.Text)
		}
	}
	for _, want := range []string{
		`<section id="ab">`, `<figure id="ab-throughput">`, `<figure id="ab-deltas">`, // the A/B figures, in their own section
		"<h2>A/B comparison</h2>", "<h3>Verdict</h3>", "<h3>Not compared</h3>", // compare's Markdown converted
		"<th>ops/s</th>", "<strong>−17% [−19%, −14%]</strong>", "<td>~</td>", // its table, bold for changes and ~ for noise
		"<code>~</code>",                   // the method footnote
		"<h2>Steps</h2>",                   // the runs' step tables are still there
		"candidate has no concurrency=512", // why a step had no partner
	} {
		if !strings.Contains(h, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if strings.Contains(h, "**") || strings.Contains(h, "|---") {
		t.Error("Markdown syntax left in the HTML")
	}
	// Both runs hold target "default": each verdict names its run.
	for _, run := range []string{"<h3>audit-off: ", "<h3>audit-on: "} {
		if !strings.Contains(h, run) {
			t.Errorf("report lacks a verdict heading starting %q", run)
		}
	}
	// Without a comparison there is no A/B section.
	var plain bytes.Buffer
	rep.Comparison, rep.ABFigures = nil, nil
	if err := rep.WriteHTML(&plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), `id="ab"`) {
		t.Error("plain report has an A/B section")
	}
	if *lookDir != "" {
		_ = os.MkdirAll(*lookDir, 0o755)
		_ = os.WriteFile(filepath.Join(*lookDir, "ab-report.html"), []byte(h), 0o644)
	}
	// Two files analysed together are no A/B pair.
	if _, _, err := New(rs, analyzed(rs...), &AB{}); err == nil {
		t.Error("an A/B of two files analysed together was accepted")
	}
}

// One file, two targets: the A/B section in Markdown, its figures linked
// beside the report's own.
func TestMarkdownReportWithComparison(t *testing.T) {
	rs := []*results.Results{fixture(t, "pair.jsonl")}
	rep, _ := build(t, rs, analyzed(rs...), &AB{Baseline: "standalone", Candidate: "sharded"})
	c, figs, abFigs := rep.Comparison, rep.Figures, rep.ABFigures
	dir := t.TempDir()
	if err := rep.Write(filepath.Join(dir, "ab.md"), Markdown); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ab.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	// Alt text may hold escaped brackets (the headline's interval).
	links := regexp.MustCompile(`!\[(?:[^\]\\]|\\.)*\]\(([^)]+)\)`).FindAllStringSubmatch(md, -1)
	if len(links) != len(figs)+len(abFigs) {
		t.Fatalf("%d image links, want %d", len(links), len(figs)+len(abFigs))
	}
	for _, l := range links {
		if _, err := os.Stat(filepath.Join(dir, l[1])); err != nil {
			t.Errorf("markdown links %s, which was not written: %v", l[1], err)
		}
	}
	// An unknown target is the input's fault.
	var in *InputError
	if _, _, err := New(rs, analyzed(rs...), &AB{Baseline: "standalone", Candidate: "nowhere"}); !errors.As(err, &in) {
		t.Errorf("A/B of an unknown target: %v, want an InputError", err)
	}
	for _, want := range []string{"## A/B comparison", "### Verdict", "| target | workload | C |", "standalone → sharded"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	for _, v := range c.Verdicts {
		if !strings.Contains(md, v.Text) {
			t.Errorf("verdict %q not in the markdown", v.Text)
		}
	}
}

func TestMarkdownToHTML(t *testing.T) {
	for _, tc := range []struct {
		md, want string
	}{
		// Headings and lists; text is escaped before tags are added.
		{"## A <b>\n- x & y\n- z", "<h2>A &lt;b&gt;</h2>\n<ul>\n<li>x &amp; y</li>\n<li>z</li>\n</ul>\n"},
		// A table: header row, separator dropped, escaped pipes kept in
		// their cell, bold turned into <strong>.
		{"| a | b |\n|---|--:|\n| x \\| y | **+3%** |", "<div class=\"scroll\"><table class=\"ab\">\n<tr><th>a</th><th>b</th></tr>\n<tr><td>x | y</td><td><strong>+3%</strong></td></tr>\n</table></div>\n"},
		// Code spans in a paragraph; a script tag stays text.
		{"`~` means <script>", "<p><code>~</code> means &lt;script&gt;</p>\n"},
	} {
		if got := string(markdownToHTML(tc.md)); got != tc.want {
			t.Errorf("markdownToHTML(%q)\n got %q\nwant %q", tc.md, got, tc.want)
		}
	}
}
