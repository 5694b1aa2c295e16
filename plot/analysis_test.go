package plot

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/sweep/knee"
)

// seriesOf finds a figure's series by name and role.
func seriesOf(d FigureData, name, role string) *SeriesData {
	for i := range d.Series {
		if d.Series[i].Name == name && d.Series[i].Role == role {
			return &d.Series[i]
		}
	}
	return nil
}

// TestMarksSitOnTheirPoints: every knee and peak mark is drawn exactly on
// a plotted point of its own series, in every figure that marks them,
// with the real analysis and with hand-set knees alike.
func TestMarksSitOnTheirPoints(t *testing.T) {
	pair, grid := loadInputs(t)
	base, cand := loadAB(t)
	for _, tc := range []struct {
		name    string
		rs      []*sweep.Results
		reports []knee.Report
	}{
		{"pair, hand-set knees", []*sweep.Results{pair}, pairReports(pair)},
		{"pair and grid, real analysis", []*sweep.Results{pair, grid}, Analyze([]*sweep.Results{pair, grid})},
		{"A/B files, real analysis", []*sweep.Results{base, cand}, AnalyzeEach([]*sweep.Results{base, cand}, knee.DefaultOptions())},
	} {
		figs, _, err := Figures(tc.rs, tc.reports, nil)
		if tc.name == "A/B files, real analysis" {
			figs, _, err = FiguresEach(tc.rs, tc.reports, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		marks := 0
		for _, f := range figs {
			role := map[string]string{FigThroughput: "ops/s", FigComparison: "ops/s", FigLatency: "p99", FigLatencyThroughput: "p99"}[f.Name]
			if role == "" {
				continue
			}
			for _, m := range f.Data.Marks {
				marks++
				s := seriesOf(f.Data, m.Series, role)
				if s == nil {
					t.Errorf("%s/%s: mark %q names no %s series", tc.name, f.Name, m.Label, role)
					continue
				}
				on := false
				for _, p := range s.Points {
					on = on || (p.X == m.X && p.Y == m.Y)
				}
				if !on {
					t.Errorf("%s/%s: mark %q at (%g, %g) is not on a point of %s: %+v", tc.name, f.Name, m.Label, m.X, m.Y, s.Name, s.Points)
				}
			}
		}
		if marks == 0 {
			t.Errorf("%s: no marks at all", tc.name)
		}
	}
}

// TestThroughputIsTheAnalysis: the throughput points and bars are the knee
// analysis's levels (median, 95% interval, trials), nothing recomputed.
func TestThroughputIsTheAnalysis(t *testing.T) {
	pair, grid := loadInputs(t)
	rs := []*sweep.Results{pair, grid}
	reports := Analyze(rs)
	figs, _, err := Figures(rs, reports, []string{FigThroughput})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range reports {
		name := r.Target + " · pool=" + r.Pool + " · " + r.Workload // two workloads: each label names its own
		s := seriesOf(figs[0].Data, name, "ops/s")
		if s == nil {
			t.Errorf("no ops/s series %q", name)
			continue
		}
		if len(s.Points) != len(r.Levels) {
			t.Errorf("%s: %d points, analysis has %d levels", name, len(s.Points), len(r.Levels))
			continue
		}
		for i, l := range r.Levels {
			p := s.Points[i]
			if p.Y != round6(l.QPS) || p.Low != round6(l.QPSLow) || p.High != round6(l.QPSHigh) || p.N != l.Trials {
				t.Errorf("%s level %d: point %+v, analysis median %g [%g, %g] of %d", name, l.Concurrency, p, l.QPS, l.QPSLow, l.QPSHigh, l.Trials)
			}
			checked++
		}
	}
	if checked == 0 {
		t.Fatal("nothing checked")
	}
	if !strings.Contains(figs[0].Caption, "median") {
		t.Errorf("caption %q does not say the points are medians", figs[0].Caption)
	}
}
