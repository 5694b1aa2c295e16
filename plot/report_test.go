package plot

import (
	"bytes"
	"strings"
	"testing"

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
	pair, _ := loadInputs(t)
	rs := []*results.Results{pair}
	reports := Analyze(rs)
	figs, skipped, err := Figures(rs, reports, nil)
	if err != nil || len(skipped) == 0 {
		t.Fatalf("figures: %v, skipped %v", err, skipped)
	}
	// Both targets share one note: the report says it once.
	pair.Header.Targets[0].Note = "calibrated simulator: not a database"
	pair.Header.Targets[1].Note = "calibrated simulator: not a database"
	var b bytes.Buffer
	if err := (&Report{Results: rs, Analyses: reports, Figures: figs, Skipped: skipped}).WriteHTML(&b); err != nil {
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
