package compare

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// TestMatchCurves: the curves are compared when the sides are different
// targets, never for two runs of one target, and two targets measured at
// different levels are still compared curve against curve.
func TestMatchCurves(t *testing.T) {
	p := profile{ops: 1000, readMS: 1, read: 100, serverCPU: -1, clientCPU: -1, noise: noiseA}
	q := p
	q.ops, q.noise = 800, noiseB

	b, c := fixture("b.jsonl", "b"), fixture("c.jsonl", "c")
	p.add(b, "old", "read", []int{8, 64}, 3)
	q.add(c, "new", "read", []int{8, 64}, 3)
	cmp, err := Match([]*results.Results{b}, []*results.Results{c}, Options{})
	if err != nil || len(cmp.Curves) != 1 || cmp.Curves[0].Base.Name != "old" || cmp.Curves[0].Cand.Name != "new" {
		t.Fatalf("two targets: %v, curves %+v", err, cmp)
	}
	if r := cmp.Curves[0].PeakRatio; !r.Has() || r.Value < 0.79 || r.Value > 0.81 || !r.Excludes(1) {
		t.Errorf("peak ratio %+v, want about 0.8 and significant", r)
	}

	base, cand := studyPair(3) // one target "rs" on both sides: an A/B of a setting
	if cmp, err := Match([]*results.Results{base}, []*results.Results{cand}, Options{}); err != nil || cmp.Curves != nil {
		t.Errorf("one target: %v, curves %+v, want none", err, cmp.Curves)
	}

	d := fixture("d.jsonl", "d")
	q.add(d, "new", "read", []int{16, 128}, 3)
	cmp, err = Match([]*results.Results{b}, []*results.Results{d}, Options{})
	if err != nil || len(cmp.Steps) != 0 || len(cmp.Curves) != 1 {
		t.Fatalf("disjoint levels: %v, %+v", err, cmp)
	}
	if !strings.Contains(strings.Join(cmp.Notes, "\n"), "compared curve against curve only") {
		t.Errorf("notes %q", cmp.Notes)
	}
	for name, f := range map[string]func(*strings.Builder, *Comparison) error{
		"text":     func(w *strings.Builder, c *Comparison) error { return WriteText(w, c) },
		"markdown": func(w *strings.Builder, c *Comparison) error { return WriteMarkdown(w, c) },
		"json":     func(w *strings.Builder, c *Comparison) error { return WriteJSON(w, c) },
	} {
		var w strings.Builder
		if err := f(&w, cmp); err != nil || !strings.Contains(w.String(), "carries 0.80×") {
			t.Errorf("%s: %v\n%s", name, err, w.String())
		}
	}
}
