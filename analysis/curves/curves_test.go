package curves

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/steady"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// lv is a level of a synthetic side: concurrency, ops/s, p99 in ms
// (p50 is half of it), and the relative standard error of the
// throughput (0: no interval), with 29 degrees of freedom (30 batch means).
type lv struct {
	c        int
	ops, p99 float64
	relSE    float64
}

// side builds a side with 3 clients whose peak is its highest level and
// whose knee is at kneeC (0: none found).
func side(name string, d Deployment, kneeC int, levels ...lv) Side {
	s := Side{Name: name, Deployment: d, label: "api", RunIDs: []string{"run-1"}} // one run: no floor
	best := 0
	for i, l := range levels {
		L := Level{Concurrency: l.c, Clients: 3, PerClient: l.c, PerHost: 3 * l.c, Trials: 1, OpsPerS: l.ops, CallsPerS: l.ops / 3,
			P50Ms: l.p99 / 2, P50Lo: l.p99 / 2, P50Hi: l.p99 / 2, P99Ms: l.p99, P99Lo: l.p99 * 0.98, P99Hi: l.p99 * 1.02, HasLatency: true}
		if l.relSE > 0 {
			L.LogSE, L.DF, L.HasSE = l.relSE, 29, true
		}
		s.Levels = append(s.Levels, L)
		if l.ops > levels[best].ops {
			best = i
		}
	}
	s.Report = knee.Report{Target: name, Workload: "api", Pool: "match", Clients: 3,
		Peak: knee.Peak{Concurrency: levels[best].c, QPS: levels[best].ops}}
	if kneeC > 0 {
		s.Report.Knee = knee.Knee{Found: true, Concurrency: kneeC, Confidence: "high"}
	}
	return s
}

var (
	standalone = Deployment{Topology: "standalone", Nodes: 1, Hosts: 1}
	sharded3   = Deployment{Topology: "sharded", Nodes: 3, Routers: 1, Hosts: 1}
)

// oneNode is a node of 1,000 ops/s: flat 10-ms p99 until it saturates.
func oneNode(se float64) Side {
	return side("standalone", standalone, 4,
		lv{1, 250, 10, se}, lv{2, 500, 10, se}, lv{4, 950, 11, se}, lv{8, 1000, 22, se}, lv{16, 1000, 44, se})
}

// cluster of three such nodes behind a router that adds 2 ms at low load.
func cluster(se float64) Side {
	return side("sharded", sharded3, 16,
		lv{1, 240, 12, se}, lv{2, 480, 12, se}, lv{4, 960, 12, se}, lv{8, 1900, 12.5, se}, lv{16, 2850, 14, se}, lv{32, 3000, 28, se})
}

func TestRatioInterval(t *testing.T) {
	for _, tc := range []struct {
		name      string
		b, c      Level
		want      float64
		low, high float64 // 0: no interval
	}{
		// Equal standard errors of 1% with many degrees of freedom: the
		// interval of the ratio is e^(±1.96·√2·1%).
		{"normal limit", Level{OpsPerS: 1000, LogSE: 0.01, DF: 1e9, HasSE: true}, Level{OpsPerS: 3000, LogSE: 0.01, DF: 1e9, HasSE: true},
			3, 3 * math.Exp(-1.959964*math.Sqrt2*0.01), 3 * math.Exp(1.959964*math.Sqrt2*0.01)},
		// One side exact: the other's t quantile at its own degrees of
		// freedom (t(0.975, 9) = 2.262).
		{"one side exact", Level{OpsPerS: 1000, LogSE: 0, DF: 9, HasSE: true}, Level{OpsPerS: 500, LogSE: 0.02, DF: 9, HasSE: true},
			0.5, 0.5 * math.Exp(-2.262157*0.02), 0.5 * math.Exp(2.262157*0.02)},
		// A side without an interval gives a ratio without one.
		{"no interval", Level{OpsPerS: 1000}, Level{OpsPerS: 2000, LogSE: 0.01, DF: 9, HasSE: true}, 2, 0, 0},
		// Across runs: a 3% floor a side on top of exact windows, a
		// normal interval of √2·3% (known variance, infinite df).
		{"floor only", Level{OpsPerS: 1000, LogSE: 0, DF: 9, HasSE: true}, Level{OpsPerS: 2000, LogSE: 0, DF: 9, HasSE: true},
			2, 2 * math.Exp(-1.959964*math.Sqrt2*0.03), 2 * math.Exp(1.959964*math.Sqrt2*0.03)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			floor := 0.0
			if tc.name == "floor only" {
				floor = 0.03
			}
			r := ratio(tc.b, tc.c, 0.05, floor)
			if math.Abs(r.Value-tc.want) > 1e-9 {
				t.Errorf("ratio %g, want %g", r.Value, tc.want)
			}
			if tc.low == 0 {
				if r.Has() {
					t.Errorf("interval [%g, %g], want none", *r.Low, *r.High)
				}
				return
			}
			if !r.Has() || math.Abs(*r.Low-tc.low) > 1e-4 || math.Abs(*r.High-tc.high) > 1e-4 {
				t.Errorf("interval %+v, want [%g, %g]", r, tc.low, tc.high)
			}
		})
	}
}

func TestWelchDF(t *testing.T) {
	// Equal variances and degrees of freedom: the sum has twice them.
	if df := welchDF(1, 9, 1, 9); math.Abs(df-18) > 1e-9 {
		t.Errorf("equal: %g, want 18", df)
	}
	// One variance dominates: its own degrees of freedom.
	if df := welchDF(1, 5, 1e-6, 100); math.Abs(df-5) > 0.01 {
		t.Errorf("dominated: %g, want ≈5", df)
	}
}

func TestInterpolation(t *testing.T) {
	ps := []point{{x: 100, p50: 1, p99: 10}, {x: 200, p50: 2, p99: 20}, {x: 400, p50: 4, p99: 60}}
	p99 := func(p point) float64 { return p.p99 }
	for _, tc := range []struct {
		x    float64
		want float64
		ok   bool
	}{
		{100, 10, true}, // a measured level
		{150, 15, true}, // halfway
		{300, 40, true}, // the second segment
		{400, 60, true}, // the peak
		{99, 0, false},  // below the lowest level: no extrapolation
		{401, 0, false}, // past the peak
	} {
		got, ok := at(ps, tc.x, p99)
		if ok != tc.ok || (ok && math.Abs(got-tc.want) > 1e-9) {
			t.Errorf("at(%g) = %g, %v; want %g, %v", tc.x, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRisingDropsNoise(t *testing.T) {
	// A level that carried less than the one below it is noise on the
	// rising part; levels past the peak are not on it.
	s := side("a", standalone, 0, lv{1, 100, 1, 0.01}, lv{2, 90, 2, 0.01}, lv{4, 300, 3, 0.01}, lv{8, 250, 9, 0.01})
	ps := rising(s, 0.05)
	if len(ps) != 2 || ps[0].x != 100 || ps[1].x != 300 {
		t.Errorf("rising points %+v, want 100 and 300", ps)
	}
}

func TestRoundDown2(t *testing.T) {
	for in, want := range map[float64]float64{2849: 2800, 750: 750, 1003: 1000, 99.9: 99, 12345: 12000} {
		if got := roundDown2(in); math.Abs(got-want) > 1e-9 {
			t.Errorf("roundDown2(%g) = %g, want %g", in, got, want)
		}
	}
}

func TestP99Band(t *testing.T) {
	l := results.LatencySummary{P90: 8, P99: 10, P999: 20}
	lo, hi := p99Band(l, 10000, 0.05)
	// n = 10,000: ranks 0.99 ± 1.96·√(0.99·0.01/10⁴) = [0.98805, 0.99195].
	wantLo := 8 + (-math.Log10(1-0.98805)-1)*2
	wantHi := 10 + (-math.Log10(1-0.99195)-2)*10
	if math.Abs(lo-wantLo) > 0.01 || math.Abs(hi-wantHi) > 0.01 {
		t.Errorf("band [%g, %g], want [%g, %g]", lo, hi, wantLo, wantHi)
	}
	// Fewer calls, a wider band.
	lo2, hi2 := p99Band(l, 100, 0.05)
	if !(lo2 < lo && hi2 > hi) {
		t.Errorf("100 calls [%g, %g] not wider than 10,000 [%g, %g]", lo2, hi2, lo, hi)
	}
}

func TestClusterWins(t *testing.T) {
	c := compare(oneNode(0.01), cluster(0.01), 0.05)
	if math.Abs(c.PeakRatio.Value-3) > 1e-9 || !c.PeakRatio.Excludes(1) || !(*c.PeakRatio.Low < 3 && *c.PeakRatio.High > 3) {
		t.Errorf("peak ratio %+v", c.PeakRatio)
	}
	if math.Abs(c.PerNodeRatio.Value-1) > 1e-9 {
		t.Errorf("per node %g, want 1", c.PerNodeRatio.Value)
	}
	if c.KneeConnRatio != 4 {
		t.Errorf("knee connections ratio %g, want 4 (48 against 12)", c.KneeConnRatio)
	}
	x := c.Crossover
	if x == nil || x.Better != "sharded" || x.Everywhere || x.Below == nil || x.Below.Better != "standalone" {
		t.Fatalf("crossover %+v", x)
	}
	// The standalone is faster (10 against 12 ms) until it nears its
	// knee at 950 ops/s; from there on the cluster is.
	if !(x.OpsPerS > 500 && x.OpsPerS <= 1000) {
		t.Errorf("crossover at %g ops/s, want between 500 and 1,000", x.OpsPerS)
	}
	for _, want := range []string{"sharded (3 shards, 1 router) carries 3.0× [", "] standalone's peak, 1.0 per shard",
		"it needs 16 workers per client (48 connections per router) to get there, against 4",
		"ops/s standalone answers faster (p99 "} {
		if !strings.Contains(c.Verdict, want) {
			t.Errorf("verdict lacks %q:\n%s", want, c.Verdict)
		}
	}
	if len(c.Matched) < 3 || c.Matched[len(c.Matched)-1].OpsPerS != 1000 {
		t.Errorf("matched levels %+v, want several up to the lower peak 1,000", c.Matched)
	}
}

func TestClusterLoses(t *testing.T) {
	// A router of 500 ops/s in front of the three nodes: slower at every
	// load, and a third of the node's peak.
	slow := side("sharded", sharded3, 2, lv{1, 200, 15, 0.01}, lv{2, 400, 16, 0.01}, lv{4, 480, 30, 0.01}, lv{8, 500, 60, 0.01})
	c := compare(oneNode(0.01), slow, 0.05)
	if !(c.PeakRatio.Has() && *c.PeakRatio.High < 1) {
		t.Fatalf("peak ratio %+v, want significantly below 1", c.PeakRatio)
	}
	x := c.Crossover
	if x == nil || x.Better != "standalone" || !x.Everywhere {
		t.Errorf("crossover %+v, want the standalone better everywhere", x)
	}
	for _, want := range []string{"carries 0.50× [", "it loses, standalone carries more (1,000 ops/s against 500)",
		"its knee is at 2 workers per client", "standalone answers faster at every matched throughput"} {
		if !strings.Contains(c.Verdict, want) {
			t.Errorf("verdict lacks %q:\n%s", want, c.Verdict)
		}
	}
}

func TestNoIntervalNoClaim(t *testing.T) {
	// Without intervals of the throughput nothing is called better or
	// faster, however far apart the numbers.
	c := compare(oneNode(0), cluster(0), 0.05)
	if c.PeakRatio.Has() || c.Crossover != nil {
		t.Errorf("ratio %+v crossover %+v, want no interval and no crossover", c.PeakRatio, c.Crossover)
	}
	for _, m := range c.Matched {
		if m.Better != "" {
			t.Errorf("at %g ops/s %s called faster without an interval", m.OpsPerS, m.Better)
		}
	}
	if !strings.Contains(c.Verdict, "(no interval: not tested)") || len(c.Notes) != 2 {
		t.Errorf("verdict %q notes %q", c.Verdict, c.Notes)
	}
}

func TestEqualPeaks(t *testing.T) {
	// Two nodes alike within their noise: no winner.
	c := compare(oneNode(0.02), side("other", standalone, 4,
		lv{1, 250, 10, 0.02}, lv{2, 500, 10, 0.02}, lv{4, 950, 11, 0.02}, lv{8, 1005, 22, 0.02}), 0.05)
	if c.PeakRatio.Excludes(1) || c.Crossover != nil {
		t.Errorf("ratio %+v crossover %+v", c.PeakRatio, c.Crossover)
	}
	if !strings.Contains(c.Verdict, "the peaks do not differ significantly") || !strings.Contains(c.Verdict, "neither answers significantly faster") {
		t.Errorf("verdict %q", c.Verdict)
	}
}

func TestTableRows(t *testing.T) {
	rows := table(oneNode(0.01), cluster(0.01))
	if len(rows) != 6 || rows[5].PerClient != 32 || rows[5].Base != nil || rows[5].Cand == nil || rows[0].Base.OpsPerS != 250 {
		t.Errorf("rows %+v", rows)
	}
}

// goldenComparisons are both directions of the synthetic comparisons the
// golden files show: the cluster winning, and a slow cluster losing.
func goldenComparisons() []*Comparison {
	slow := side("sharded", sharded3, 2, lv{1, 200, 15, 0.01}, lv{2, 400, 16, 0.01}, lv{4, 480, 30, 0.01}, lv{8, 500, 60, 0.01})
	return []*Comparison{compare(oneNode(0.01), cluster(0.01), 0.05), compare(oneNode(0.01), slow, 0.05)}
}

// TestGolden encodes the synthetic comparisons as JSON; their text and
// Markdown (analysis/render) are TestGoldenRender's. Refresh with go test
// ./analysis/curves -run Golden -update.
func TestGolden(t *testing.T) {
	cs := goldenComparisons()
	var js bytes.Buffer
	docs := []Doc{cs[0].JSON(), cs[1].JSON()}
	enc := json.NewEncoder(&js)
	enc.SetIndent("", "  ")
	if err := enc.Encode(docs); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "curves.json"), js.Bytes())
}

// step is a measured step of one trial with a batch-means interval of
// ±hw% from 30 batch means.
func step(target, rp string, c int, ops, hw float64) results.StepResult {
	calls := ops / 3
	half := calls * hw / 100
	wl := results.SeriesLabel("api", rp, "")
	return results.StepResult{Kind: results.KindStep, Target: target, Workload: wl, ReadPreference: rp, PoolSetting: "match",
		Concurrency: c, MaxPoolSize: c, Clients: 3, Connections: 3 * c, Trial: 1, DurationS: 2,
		Calls: int64(calls * 2), Ops: int64(ops * 2), CallsPerS: calls, OpsPerS: ops,
		Latency: results.LatencySummary{P50: 5, P90: 8, P99: 10, P999: 20},
		Steady:  &results.StepSteady{Batches: 30, Independent: true, Confidence: 0.95, MeanPerS: &calls, HalfWidthPerS: &half, HalfWidthPct: &hw}}
}

func TestAllPairsAndSides(t *testing.T) {
	rs := []*results.Results{{Path: "r.jsonl", Header: results.RunHeader{Targets: []results.TargetHeader{
		{Name: "one", Topology: "standalone", Hosts: []string{"a:1"}},
		{Name: "cluster", Topology: "sharded", Hosts: []string{"m1:1", "m2:1"}, Shards: []string{"s0", "s1", "s2"}},
	}}}}
	for _, c := range []int{1, 4, 16} {
		rs[0].Steps = append(rs[0].Steps, step("one", "", c, 100*float64(min(c, 4)), 2), step("cluster", "", c, 300*float64(min(c, 4)), 2))
	}
	reports := knee.AnalyzeAll(knee.FromResults(rs), knee.DefaultOptions())
	cs := All(rs, reports, 0.05)
	if len(cs) != 1 || cs[0].Base.Name != "one" || cs[0].Cand.Name != "cluster" {
		t.Fatalf("%d comparisons: %+v", len(cs), cs)
	}
	c := cs[0]
	if d := c.Cand.Deployment; d.Nodes != 3 || d.Routers != 2 || Describe(d) != "3 shards, 2 routers" {
		t.Errorf("cluster deployment %+v", d)
	}
	// ±2% by 30 batch means: se = 2%/t(0.975, 29), and the ratio's
	// interval from both.
	lv := c.Base.Levels[2]
	wantSE := 0.02 / tQuantile(29, 0.05)
	if !lv.HasSE || math.Abs(lv.LogSE-wantSE) > 1e-9 || lv.DF != 29 {
		t.Errorf("level 16: se %g df %g, want %g, 29", lv.LogSE, lv.DF, wantSE)
	}
	if !c.PeakRatio.Has() || math.Abs(c.PeakRatio.Value-3) > 1e-9 || !c.PeakRatio.Excludes(1) {
		t.Errorf("peak ratio %+v", c.PeakRatio)
	}
	if lv.P99Lo >= 10 || lv.P99Hi <= 10 {
		t.Errorf("p99 band [%g, %g] does not hold the p99 10", lv.P99Lo, lv.P99Hi)
	}
}

func TestAllReadPreferences(t *testing.T) {
	// One replica set swept over two read preferences: the series are
	// compared by their value, and the serving members are the hosts
	// that took the operations.
	rs := []*results.Results{{Path: "rs.jsonl", Header: results.RunHeader{Targets: []results.TargetHeader{
		{Name: "rs", Topology: "replset", Hosts: []string{"a:1", "b:1", "c:1"}},
	}}}}
	for _, c := range []int{1, 4, 16} {
		p := step("rs", "primary", c, 100*float64(min(c, 4)), 2)
		p.Pool.Hosts = []results.HostPool{{Host: "a:1", Checkouts: 1000}, {Host: "b:1", Checkouts: 1}}
		s := step("rs", "secondaryPreferred", c, 200*float64(min(c, 4)), 2)
		s.Pool.Hosts = []results.HostPool{{Host: "a:1", Checkouts: 10}, {Host: "b:1", Checkouts: 500}, {Host: "c:1", Checkouts: 500}}
		rs[0].Steps = append(rs[0].Steps, p, s)
	}
	cs := All(rs, knee.AnalyzeAll(knee.FromResults(rs), knee.DefaultOptions()), 0.05)
	if len(cs) != 1 || cs[0].Base.Name != "primary" || cs[0].Cand.Name != "secondaryPreferred" {
		t.Fatalf("%d comparisons: %+v", len(cs), cs)
	}
	c := cs[0]
	if c.Base.Deployment.Nodes != 1 || c.Cand.Deployment.Nodes != 2 || math.Abs(c.PerNodeRatio.Value-1) > 1e-9 {
		t.Errorf("nodes %d and %d, per node %g; want 1, 2 and 1", c.Base.Deployment.Nodes, c.Cand.Deployment.Nodes, c.PerNodeRatio.Value)
	}
	if !strings.Contains(c.Verdict, "secondaryPreferred (replica set, 2 members serving) carries 2.0× [") || !strings.Contains(c.Verdict, "1.0 per serving member") {
		t.Errorf("verdict %q", c.Verdict)
	}
}

// TestAcrossRunsFloor: the same two curves measured in two runs get the
// between-run floor in their peak ratio's interval (wider than within one
// run, still holding the 3× truth), and a note that says so.
func TestAcrossRunsFloor(t *testing.T) {
	within := compare(oneNode(0.01), cluster(0.01), 0.05)
	other := cluster(0.01)
	other.RunIDs = []string{"run-2"}
	across := compare(oneNode(0.01), other, 0.05)
	if within.RunNoisePct != 0 || across.RunNoisePct != steady.DefaultRunNoisePct {
		t.Fatalf("floors %g and %g, want 0 within one run and %g across", within.RunNoisePct, across.RunNoisePct, steady.DefaultRunNoisePct)
	}
	w, a := within.PeakRatio, across.PeakRatio
	if !w.Has() || !a.Has() || !(*a.Low < *w.Low && *a.High > *w.High) || *a.Low > 3 || *a.High < 3 {
		t.Errorf("within [%v, %v], across [%v, %v]: want the across interval wider, holding 3", *w.Low, *w.High, *a.Low, *a.High)
	}
	if !strings.Contains(strings.Join(across.Notes, "\n"), "between-run noise floor of 3%") {
		t.Errorf("notes %q do not name the floor", across.Notes)
	}
}
