package plot

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// abCase is one A/B input: the two sides, how compare matched them, and
// what the figures must show.
type abCase struct {
	name       string
	base, cand []*results.Results
	opts       compare.Options
}

// loadAB reads the audit-log study in miniature (copied from compare's
// testdata so that this package's golden files do not move when compare's
// fixtures are regenerated).
func loadAB(t *testing.T) (base, cand *results.Results) {
	return readTestdata(t, "ab-base.jsonl"), readTestdata(t, "ab-cand.jsonl")
}

// firstTrials keeps trials 1..n of every step: an A/B with too few trials
// to test anything.
func firstTrials(r *results.Results, n int) *results.Results {
	c := *r
	c.Steps = nil
	for _, s := range r.Steps {
		if s.Trial <= n {
			c.Steps = append(c.Steps, s)
		}
	}
	return &c
}

func abCases(t *testing.T) []abCase {
	base, cand := loadAB(t)
	pair, _ := loadInputs(t)
	return []abCase{
		// Two files, two mixes, 5 trials a side: the study's findings.
		{"ab-files", []*results.Results{base}, []*results.Results{cand}, compare.Options{}},
		// One file, two targets (--baseline standalone --candidate sharded).
		{"ab-one-file", []*results.Results{pair}, []*results.Results{pair}, compare.Options{Baseline: "standalone", Candidate: "sharded"}},
		// Two trials a side: nothing is tested, every delta unconfirmed.
		{"ab-unconfirmed", []*results.Results{firstTrials(base, 2)}, []*results.Results{firstTrials(cand, 2)}, compare.Options{}},
	}
}

func (tc abCase) figures(t *testing.T) (*compare.Comparison, []Figure, []string) {
	t.Helper()
	c, err := compare.Match(tc.base, tc.cand, tc.opts)
	if err != nil {
		t.Fatal(err)
	}
	figs, notes, err := ABFigures(c, Side{tc.base, analyzed(tc.base...)}, Side{tc.cand, analyzed(tc.cand...)})
	if err != nil {
		t.Fatal(err)
	}
	return c, figs, notes
}

func TestABFigureDataGolden(t *testing.T) {
	for _, tc := range abCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			_, figs, notes := tc.figures(t)
			checkFigureData(t, tc.name, figs, notes, []string{figABThroughput, figABDeltas})
			if *plotDir != "" {
				dir := filepath.Join(*plotDir, tc.name)
				if err := os.MkdirAll(dir, 0o755); err != nil {
					t.Fatal(err)
				}
				if _, err := WriteFiles(dir, figs); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

func TestABPNGDecodes(t *testing.T) {
	for _, tc := range abCases(t)[:2] {
		_, figs, _ := tc.figures(t)
		for _, f := range figs {
			var b bytes.Buffer
			if err := f.writePNG(&b); err != nil {
				t.Fatal(err)
			}
			if _, err := png.Decode(&b); err != nil {
				t.Errorf("%s/%s: %v", tc.name, f.Name, err)
			}
		}
	}
}

// TestABSVGLabels checks the drawn text, not the data: the SVG parses, the
// Δ% chart names its metrics and marks non-significant bars "~", and the
// overlay names both sides and the headline change.
func TestABSVGLabels(t *testing.T) {
	for _, tc := range []struct {
		name string
		want map[string][]string // figure → texts that must be drawn
		not  map[string][]string // figure → texts that must not
	}{
		// The study: write-only has no throughput change (~), mixed loses
		// 17%; server CPU is told in points.
		{"ab-files", map[string][]string{
			figABThroughput: {"Throughput −17% [−19%, −14%] at C=64, mix 0:50:50", "baseline: audit-off", "candidate: audit-on", "mix 100:0:0", "mix 0:50:50"},
			figABDeltas:     {"~", "−17%", "+3.1 pt", "throughput", "read latency, mean", "write latency, p99", "server CPU", "client CPU", "~ not significant", "C=64", "C=256"},
		}, map[string][]string{figABDeltas: {"?"}}},
		// One file, two targets: sides are named by target; all changes
		// are real, so no "~" legend entry.
		{"ab-one-file", map[string][]string{
			figABThroughput: {"candidate sharded vs baseline standalone", "baseline: target standalone", "candidate: target sharded"},
			figABDeltas:     {"api (1 of 2)", "api (2 of 2)", "C=512", "throughput"},
		}, map[string][]string{figABDeltas: {"~ not significant", "server CPU"}}},
		// Too few trials: deltas shown but flagged, never "significant".
		{"ab-unconfirmed", map[string][]string{
			figABThroughput: {"(unconfirmed: too few trials)"},
			figABDeltas:     {"? untested (too few trials)", "−16%?"},
		}, map[string][]string{figABDeltas: {"significant change", "~ not significant"}}},
	} {
		var cse abCase
		for _, c := range abCases(t) {
			if c.name == tc.name {
				cse = c
			}
		}
		_, figs, _ := cse.figures(t)
		for _, f := range figs {
			var b bytes.Buffer
			if err := f.WriteSVG(&b); err != nil {
				t.Fatal(err)
			}
			texts := svgTexts(t, b.Bytes())
			all := strings.Join(texts, "\n")
			for _, w := range tc.want[f.Name] {
				if !strings.Contains(all, w) {
					t.Errorf("%s/%s: no text %q in the SVG", tc.name, f.Name, w)
				}
			}
			for _, w := range tc.not[f.Name] {
				if slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, w) }) {
					t.Errorf("%s/%s: text %q should not be drawn", tc.name, f.Name, w)
				}
			}
		}
	}
}

// TestABDeltaData checks the Δ% chart's data against compare's own
// numbers: one bar per metric and matched step, significance carried over.
func TestABDeltaData(t *testing.T) {
	cs := abCases(t)
	c, figs, _ := cs[0].figures(t)
	d := figs[1].Data
	want := map[string]compare.DeltaBar{}
	for _, b := range c.DeltaBars() {
		if slices.Contains(abMetrics, b.Metric) {
			want[b.Metric+"|"+b.Step] = b
		}
	}
	got := 0
	for _, s := range d.Series {
		for _, p := range s.Points {
			step, status, _ := strings.Cut(p.Label, " · ")
			b, ok := want[s.Name+"|"+step]
			if !ok {
				t.Errorf("bar %s %q not among compare's bars", s.Name, p.Label)
				continue
			}
			got++
			if p.Y != round6(b.DeltaPct) {
				t.Errorf("%s %s: Δ%% %g, compare says %g", s.Name, step, p.Y, b.DeltaPct)
			}
			if (status == "changed") != b.Significant {
				t.Errorf("%s %s: status %q but significant=%v", s.Name, step, status, b.Significant)
			}
			if b.Significant && !(p.Low <= p.Y && p.Y <= p.High && (p.High < 0 || p.Low > 0)) {
				t.Errorf("%s %s: significant but interval [%g, %g] does not exclude 0 around %g", s.Name, step, p.Low, p.High, p.Y)
			}
		}
	}
	if got != len(want) {
		t.Errorf("%d bars drawn, compare has %d for the charted metrics", got, len(want))
	}
	// The study's two findings are there: throughput −17% on the mixed mix
	// and server CPU up on write-only.
	found := map[string]bool{}
	for _, s := range d.Series {
		for _, p := range s.Points {
			if strings.HasSuffix(p.Label, "changed") {
				found[s.Name+"|"+strings.Fields(p.Label)[2]] = true
			}
		}
	}
	for _, k := range []string{compare.OpsPerS + "|0:50:50", compare.ServerCPUPct + "|100:0:0"} {
		if !found[k] {
			t.Errorf("no significant bar %s (found %v)", k, found)
		}
	}
	if found[compare.OpsPerS+"|100:0:0"] {
		t.Error("write-only throughput drawn as a change; compare says ~")
	}
}

// TestABThroughputSides checks the overlay has each side's curve for each
// series, at the measured x, and that the one-file mode splits by target.
func TestABThroughputSides(t *testing.T) {
	for _, tc := range []struct {
		name   string
		series []string // names of the ops/s series
		levels map[string]int
	}{
		// Baseline ran C=512 for the mixed mix, the candidate did not.
		{"ab-files", []string{"baseline · mix 0:50:50", "baseline · mix 100:0:0", "candidate · mix 0:50:50", "candidate · mix 100:0:0"},
			map[string]int{"baseline · mix 0:50:50": 3, "candidate · mix 0:50:50": 2}},
		// Standalone and sharded from one file: 7 levels each.
		{"ab-one-file", []string{"baseline · api", "candidate · api"}, map[string]int{"baseline · api": 7, "candidate · api": 7}},
	} {
		var cse abCase
		for _, c := range abCases(t) {
			if c.name == tc.name {
				cse = c
			}
		}
		_, figs, _ := cse.figures(t)
		d := figs[0].Data
		var names []string
		for _, s := range d.Series {
			names = append(names, s.Name)
			if n, ok := tc.levels[s.Name]; ok && len(s.Points) != n {
				t.Errorf("%s: %s has %d points, want %d", tc.name, s.Name, len(s.Points), n)
			}
			for _, p := range s.Points {
				if p.N < 3 || !(p.Low <= p.Y && p.Y <= p.High) {
					t.Errorf("%s: %s at %g: want ≥ 3 trials and an interval around the mean, got %+v", tc.name, s.Name, p.X, p)
				}
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, tc.series) {
			t.Errorf("%s: series %v, want %v", tc.name, names, tc.series)
		}
	}
}

func TestABFiguresErrors(t *testing.T) {
	if _, _, err := ABFigures(nil, Side{}, Side{}); err == nil {
		t.Error("nil comparison: no error")
	}
	if _, _, err := ABFigures(&compare.Comparison{}, Side{}, Side{}); err == nil {
		t.Error("comparison without steps: no error")
	}
}

func TestSignedPct(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{-17.04, "−17%"}, // whole percents from 10%, with a true minus sign
		{3.14, "+3.1%"},  // one decimal below 10%
		{-0.04, "0.0%"},  // rounds to zero: no sign
		{0, "0.0%"},      // zero has no sign
	} {
		if got := textfmt.SignedPct(tc.v); got != tc.want {
			t.Errorf("SignedPct(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
