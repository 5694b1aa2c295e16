package plot

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/results"
)

// seriesOf finds a figure's series by name and role.
func seriesOf(d figureData, name, role string) *seriesData {
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
		name string
		rs   []*results.Results
		a    *analysis.Analysis
	}{
		{"pair, hand-set knees", []*results.Results{pair}, withReports(pairReports(pair), pair)},
		{"pair and grid, real analysis", []*results.Results{pair, grid}, analyzed(pair, grid)},
		{"A/B files, real analysis", []*results.Results{base, cand}, analysis.Each([]*results.Results{base, cand}, knee.DefaultOptions())},
	} {
		figs, _, err := Figures(tc.rs, tc.a, Options{})
		if err != nil {
			t.Fatal(err)
		}
		marks := 0
		for _, f := range figs {
			role := map[string]string{figThroughput: "ops/s", figComparison: "ops/s", figLatency: "p99", figLatencyThroughput: "p99"}[f.Name]
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
	rs := []*results.Results{pair, grid}
	reports := analyzed(rs...).Series
	figs, _, err := Figures(rs, analyzed(rs...), Options{Figures: []string{figThroughput}})
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

// TestServerInFlight: the time breakdown draws the server's in-flight ops
// per level (median over the trials that reported it) beside the client's
// K × C, and says "not reported" when the results carry none.
func TestServerInFlight(t *testing.T) {
	r := readTestdata(t, "inflight.jsonl")
	figs, _, err := Figures([]*results.Results{r}, unmarked(r), Options{Figures: []string{figTimeBreakdown}})
	if err != nil || len(figs) != 1 {
		t.Fatalf("figures %v, err %v", figs, err)
	}
	// Ground truth from the file itself, trial by trial.
	want := map[int][]float64{}
	for _, s := range r.Steps {
		if v := s.Server.Total.InFlight; v != nil {
			want[s.Concurrency] = append(want[s.Concurrency], *v)
		}
	}
	srv := seriesOf(figs[0].Data, "s · pool=match", "server in-flight")
	cli := seriesOf(figs[0].Data, "s · pool=match", "client in-flight")
	if srv == nil || cli == nil {
		t.Fatalf("no in-flight series in %+v", figs[0].Data.Series)
	}
	if len(srv.Points) != len(want) {
		t.Errorf("%d server in-flight points, want %d levels", len(srv.Points), len(want))
	}
	for _, p := range srv.Points {
		vs := want[int(p.X)]
		if p.N != len(vs) || p.Y != round6(stats.Median(vs)) {
			t.Errorf("C=%g: server in-flight %g of %d trials, want median %g of %d", p.X, p.Y, p.N, stats.Median(vs), len(vs))
		}
	}
	for _, p := range cli.Points {
		if p.Y != p.X { // one client: K × C = C, and x is connections = C
			t.Errorf("client in-flight at %g is %g", p.X, p.Y)
		}
	}
	if len(want[32]) != 2 {
		t.Errorf("the fixture should lack in-flight in one trial at C=32, has %d", len(want[32]))
	}
	if !strings.Contains(figs[0].Caption, "Little's law") || len(figs[0].Panels) != 2 {
		t.Errorf("caption %q, %d panels; want the in-flight panel beneath the breakdown", figs[0].Caption, len(figs[0].Panels))
	}

	// Results without it: no in-flight panel, and the caption says so.
	pair, _ := loadInputs(t)
	figs, _, err = Figures([]*results.Results{pair}, unmarked(pair), Options{Figures: []string{figTimeBreakdown}})
	if err != nil {
		t.Fatal(err)
	}
	if seriesOf(figs[0].Data, "standalone · pool=match", "server in-flight") != nil || !strings.Contains(figs[0].Caption, "not reported") {
		t.Errorf("without in-flight data: caption %q", figs[0].Caption)
	}
}

// A USL fit the analysis rejected (R² below knee.MinUSLR2) is not drawn,
// and the caption says so; an accepted one is.
func TestRejectedUSLNotDrawn(t *testing.T) {
	pair, _ := loadInputs(t)
	reports := pairReports(pair)
	reports[1].Methods.USL.R2 = 0.42
	reports[1].Methods.USL.Rejected = "R² 0.420 is below 0.8: the law does not describe this curve"
	figs, _, err := Figures([]*results.Results{pair}, withReports(reports, pair), Options{Figures: []string{figThroughput}})
	if err != nil {
		t.Fatal(err)
	}
	d := figs[0].Data
	if seriesOf(d, "standalone · pool=match", "usl") == nil {
		t.Error("the accepted fit is not drawn")
	}
	if seriesOf(d, "sharded · pool=match", "usl") != nil {
		t.Error("the rejected fit is drawn")
	}
	if !strings.Contains(figs[0].Caption, "USL fit not drawn, R² below 0.8: sharded · pool=match (R² 0.42)") {
		t.Errorf("caption %q does not say the fit was rejected", figs[0].Caption)
	}
}
