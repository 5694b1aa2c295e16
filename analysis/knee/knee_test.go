package knee

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

func readSeeds(t testing.TB) []Series {
	t.Helper()
	f, err := os.Open("../../testdata/seeds-003.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ss, err := ReadCSV(f, "seeds-003.csv")
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func find(t *testing.T, ss []Series, target, workload string) Series {
	t.Helper()
	for _, s := range ss {
		if s.Target == target && s.Workload == workload {
			return s
		}
	}
	t.Fatalf("no series %s/%s", target, workload)
	return Series{}
}

// qpsAt is the input throughput at a concurrency, so expectations are
// computed from the testdata rather than copied from the output.
func qpsAt(s Series, c int) float64 {
	for _, p := range s.Points {
		if p.Concurrency == c {
			return p.QPS
		}
	}
	return math.NaN()
}

// The seeds' own measurements must lead to the seeds' own conclusions.
func TestSeedsConclusions(t *testing.T) {
	ss := readSeeds(t)

	t.Run("standalone peaks near 500 and falls at 1000", func(t *testing.T) {
		s := find(t, ss, "standalone", "2find+1update")
		r := Analyze(s, DefaultOptions())
		if r.Peak.Concurrency != 500 {
			t.Errorf("peak at %d, want 500", r.Peak.Concurrency)
		}
		if r.Retrograde == nil || r.Retrograde.From != 1000 {
			t.Fatalf("retrograde %+v, want from 1000", r.Retrograde)
		}
		wantDrop := 100 * (qpsAt(s, 500) - qpsAt(s, 1000)) / qpsAt(s, 500)
		if math.Abs(r.Retrograde.DropPct-wantDrop) > 1e-9 {
			t.Errorf("drop %.2f%%, want %.2f%%", r.Retrograde.DropPct, wantDrop)
		}
		// 64 reaches only 45/56 = 80% of the peak, so the knee is 500; the
		// marginal method's 64 (7.6% per doubling over 64→500) is the range.
		if !r.Knee.Found || r.Knee.Concurrency != 500 || r.Knee.Low != 64 || r.Knee.High != 500 {
			t.Errorf("knee %+v, want 500 in 64–500", r.Knee)
		}
		if r.Knee.Confidence != "unconfirmed" {
			t.Errorf("one trial: confidence %q, want unconfirmed", r.Knee.Confidence)
		}
		if r.Methods.USL.Fitted || !strings.Contains(r.Methods.USL.Skipped, "3 distinct") {
			t.Errorf("USL on 3 levels: %+v, want skipped with the reason", r.Methods.USL)
		}
		if r.Recommendation.Concurrency > 500 {
			t.Errorf("recommended %d, past the peak", r.Recommendation.Concurrency)
		}
		if !strings.Contains(r.Verdict, "retrograde") {
			t.Errorf("verdict does not mention the fall: %s", r.Verdict)
		}
	})

	t.Run("cluster knee at 64 per client, peak 128, falls at 300", func(t *testing.T) {
		s := find(t, ss, "sharded", "2find+1update")
		r := Analyze(s, DefaultOptions())
		if !r.Knee.Found || r.Knee.Concurrency != 64 {
			t.Errorf("knee %+v, want 64", r.Knee)
		}
		if r.Peak.Concurrency != 128 {
			t.Errorf("peak at %d, want 128", r.Peak.Concurrency)
		}
		if r.Retrograde == nil || r.Retrograde.From != 300 {
			t.Errorf("retrograde %+v, want from 300", r.Retrograde)
		}
		if r.Clients != 3 || !strings.Contains(r.Recommendation.Why, "3 clients") {
			t.Errorf("clients %d, why %q: want the 3 clients mentioned", r.Clients, r.Recommendation.Why)
		}
		if r.Recommendation.Concurrency != 64 || r.Recommendation.MaxPoolSize != 64 {
			t.Errorf("recommendation %+v, want 64/64 (one router, unknown hosts)", r.Recommendation)
		}
		if r.Methods.USL.Fitted || !strings.Contains(r.Methods.USL.Skipped, "4 distinct") {
			t.Errorf("USL on 4 levels: %+v, want skipped", r.Methods.USL)
		}
		want := "knee: sharded concurrency=64 ops/s=42000"
		if got := Summary(r); !strings.HasPrefix(got, want) || !strings.Contains(got, "unconfirmed") {
			t.Errorf("summary %q, want prefix %q and unconfirmed", got, want)
		}
	})

	t.Run("the cluster's best is below the single node's", func(t *testing.T) {
		a := Analyze(find(t, ss, "standalone", "2find+1update"), DefaultOptions())
		b := Analyze(find(t, ss, "sharded", "2find+1update"), DefaultOptions())
		if !(b.Peak.QPS < a.Peak.QPS) {
			t.Errorf("cluster peak %g not below standalone %g", b.Peak.QPS, a.Peak.QPS)
		}
	})
}

// noisyLevels builds a series with explicit trial values per level.
func noisyLevels(vals map[int][]float64) Series {
	s := Series{Target: "t", Clients: 1}
	for c, vs := range vals {
		for i, v := range vs {
			s.Points = append(s.Points, Point{Concurrency: c, QPS: v, Trial: i})
		}
	}
	return s
}

func TestRetrogradeNoise(t *testing.T) {
	tests := []struct {
		name string
		vals map[int][]float64
		from int // 0: none expected
	}{
		// A 6% drop whose trials overlap the peak's: noise, not retrograde.
		{"within noise", map[int][]float64{8: {50, 52, 51}, 16: {92, 100, 108}, 32: {86, 94, 102}}, 0},
		// A clear 19% drop with tight trials is reported.
		{"clear drop", map[int][]float64{8: {50, 52, 51}, 16: {99, 100, 101}, 32: {80, 81, 82}}, 32},
		// A 3% drop is below the 5% floor even with tight trials.
		{"small drop", map[int][]float64{8: {50, 52, 51}, 16: {99, 100, 101}, 32: {96.5, 97, 97.5}}, 0},
		// One trial: only the 5% floor applies.
		{"one trial", map[int][]float64{8: {50}, 16: {100}, 32: {90}}, 32},
	}
	for _, tt := range tests {
		r := Analyze(noisyLevels(tt.vals), DefaultOptions())
		got := 0
		if r.Retrograde != nil {
			got = r.Retrograde.From
		}
		if got != tt.from {
			t.Errorf("%s: retrograde from %d, want %d (%+v)", tt.name, got, tt.from, r.Retrograde)
		}
	}
}

func TestSLOKnee(t *testing.T) {
	s := Series{Target: "slo", Clients: 1}
	// Throughput flattens at 64; p99 doubles with every level.
	for i, c := range []int{8, 16, 32, 64, 128} {
		q := []float64{10000, 19000, 30000, 36000, 37000}[i]
		p99 := float64(int(1) << i) // 1, 2, 4, 8, 16 ms
		s.Points = append(s.Points, Point{Concurrency: c, QPS: q, P99Ms: p99, HasP99: true})
	}
	tests := []struct {
		slo  time.Duration
		want int // 0: no SLO knee
	}{
		{5 * time.Millisecond, 32},  // the highest-throughput level within 5 ms is 32 (4 ms)
		{8 * time.Millisecond, 64},  // an SLO exactly at a level's p99 includes it
		{time.Second, 128},          // a loose SLO picks the highest throughput
		{500 * time.Microsecond, 0}, // no level meets it: no answer, and a note
		{0, 0},                      // no SLO given: method not run
	}
	for _, tt := range tests {
		o := DefaultOptions()
		o.SLOP99 = tt.slo
		r := Analyze(s, o)
		m := r.Methods.SLO
		got := 0
		if m.Concurrency != nil {
			got = *m.Concurrency
		}
		if got != tt.want || m.Note == "" {
			t.Errorf("SLO %s: %d (%q), want %d with a note", tt.slo, got, m.Note, tt.want)
		}
		if tt.want != 0 && tt.want < r.Knee.Concurrency && r.Recommendation.Concurrency != tt.want {
			t.Errorf("SLO %s below the knee %d: recommended %d, want the SLO level", tt.slo, r.Knee.Concurrency, r.Recommendation.Concurrency)
		}
	}
}

func TestPoolBound(t *testing.T) {
	mk := func(wait float64) Series {
		s := Series{Target: "p", Pool: "16", Clients: 1}
		for i, c := range []int{4, 8, 16, 32, 64, 128} {
			q := []float64{4000, 8000, 15000, 15200, 15100, 15000}[i]
			p99 := float64(c) / q * 1000 * 3
			w := 0.0
			if c > 16 {
				w = wait * p99
			}
			s.Points = append(s.Points, Point{Concurrency: c, QPS: q, P99Ms: p99, HasP99: true, MaxPoolSize: 16, PoolWaitP99Ms: w})
		}
		return s
	}
	// Pool wait is 80% of p99 past the pool size: pool-bound, and said so.
	r := Analyze(mk(0.8), DefaultOptions())
	if !r.Recommendation.PoolBound || !strings.Contains(r.Recommendation.Why, "pool-bound") {
		t.Errorf("80%% pool wait: %+v, want pool-bound", r.Recommendation)
	}
	// Pool wait is 10% of p99: the server, not the pool, is the limit.
	r = Analyze(mk(0.1), DefaultOptions())
	if r.Recommendation.PoolBound {
		t.Errorf("10%% pool wait reported pool-bound: %+v", r.Recommendation)
	}
}

func TestRecommendationShardedHeadroom(t *testing.T) {
	s := find(t, readSeeds(t), "sharded", "2find+1update")
	s.Topology, s.Hosts = "sharded", 3
	r := Analyze(s, DefaultOptions())
	// 64 per client over 3 mongos: ceil(64/3) connections per mongos.
	if r.Recommendation.MaxPoolSize != 22 || !strings.Contains(r.Recommendation.Why, "3 mongos") {
		t.Errorf("sharded over 3 mongos: %+v, want maxPoolSize 22 and the reason", r.Recommendation)
	}
	// A replica set reports several hosts but sends everything to the
	// primary: no division.
	s.Topology = "replset"
	if r := Analyze(s, DefaultOptions()); r.Recommendation.MaxPoolSize != 64 {
		t.Errorf("replset: maxPoolSize %d, want 64", r.Recommendation.MaxPoolSize)
	}
	o := DefaultOptions()
	o.Headroom = 0.75
	s.Topology = ""
	if r := Analyze(s, o); r.Recommendation.Concurrency != 48 || r.Recommendation.MaxPoolSize != 48 {
		t.Errorf("headroom 0.75 of 64: %+v, want 48/48", r.Recommendation)
	}
}

func TestBoundPastKnee(t *testing.T) {
	s := find(t, readSeeds(t), "sharded", "2find+1update")
	if r := Analyze(s, DefaultOptions()); r.BoundPastKnee != "" {
		t.Errorf("no bound data, got %q", r.BoundPastKnee)
	}
	for i := range s.Points {
		switch s.Points[i].Concurrency {
		case 128:
			s.Points[i].Bound = "server"
		case 300:
			s.Points[i].Bound = "server"
		case 32:
			s.Points[i].Bound = "client" // before the knee: must not count
		}
	}
	if r := Analyze(s, DefaultOptions()); r.BoundPastKnee != "server" || !strings.Contains(r.Verdict, "server-bound") {
		t.Errorf("bound past knee %q, verdict %q: want server", r.BoundPastKnee, r.Verdict)
	}
}

func TestDegenerateSeries(t *testing.T) {
	tests := []struct {
		name string
		s    Series
		want string // substring of the knee statement
	}{
		// Nothing at all.
		{"empty", Series{Target: "e"}, "no usable"},
		// A single level cannot have a knee.
		{"one level", noisyLevels(map[int][]float64{64: {100, 101, 99}}), "one concurrency level"},
		// Zero throughput everywhere.
		{"zero", noisyLevels(map[int][]float64{1: {0}, 2: {0}, 4: {0}}), "no throughput"},
	}
	for _, tt := range tests {
		r := Analyze(tt.s, DefaultOptions())
		if r.Knee.Found || !strings.Contains(r.Knee.Statement, tt.want) {
			t.Errorf("%s: knee %+v, want not found with %q", tt.name, r.Knee, tt.want)
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, []Report{r}); err != nil {
			t.Errorf("%s: JSON: %v", tt.name, err)
		}
		if err := WriteText(&buf, []Report{r}); err != nil {
			t.Errorf("%s: text: %v", tt.name, err)
		}
	}
}

func TestFromResults(t *testing.T) {
	hdr := results.RunHeader{Targets: []results.TargetHeader{
		{Name: "sh", Topology: "sharded", Hosts: []string{"m1:27017", "m2:27017"}},
		{Name: "one", Topology: "standalone", Hosts: []string{"a:27017"}},
	}}
	step := func(target, pool string, c int, ops float64, interrupted bool) results.StepResult {
		st := results.StepResult{Kind: results.KindStep, Target: target, Workload: "api", PoolSetting: pool,
			Concurrency: c, MaxPoolSize: c, Clients: 2, Connections: 2 * c, Calls: 100, OpsPerS: ops, CallsPerS: ops / 3,
			Interrupted: interrupted, Bound: "server"}
		st.Latency.P99, st.Latency.Mean = 12.5, 4
		st.Pool.CheckoutWait.P99 = 0.5
		return st
	}
	res := []*results.Results{{Path: "a.jsonl", Header: hdr, Steps: []results.StepResult{
		step("sh", "match", 8, 1000, false),
		step("sh", "match", 16, 1800, false),
		step("one", "match", 8, 900, false),
		step("sh", "32", 8, 950, false),
		step("sh", "match", 32, 2000, true),
	}}}
	ss := FromResults(res)
	if len(ss) != 3 {
		t.Fatalf("%d series, want 3 (sh/match, one/match, sh/32)", len(ss))
	}
	s := ss[0]
	if s.Target != "sh" || s.Pool != "match" || s.Topology != "sharded" || s.Hosts != 2 || s.Clients != 2 || s.Workload != "api" {
		t.Errorf("series header %+v", s)
	}
	if len(s.Points) != 2 {
		t.Errorf("%d points, want 2 (the interrupted step left out)", len(s.Points))
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "interrupted") {
		t.Errorf("warnings %q, want the interrupted step mentioned", s.Warnings)
	}
	p := s.Points[0]
	if p.QPS != 1000 || p.P99Ms != 12.5 || !p.HasP99 || p.PoolWaitP99Ms != 0.5 || p.MeanLatencyMs != 4 || p.Connections != 16 || p.MaxPoolSize != 8 || p.Bound != "server" {
		t.Errorf("point mapping %+v", p)
	}
	if ss[1].Target != "one" || ss[1].Hosts != 1 || ss[2].Pool != "32" {
		t.Errorf("order or keys: %+v / %+v", ss[1], ss[2])
	}
	if r := Analyze(s, DefaultOptions()); len(r.Warnings) == 0 || !strings.Contains(strings.Join(r.Warnings, ";"), "interrupted") {
		t.Errorf("report warnings %q lost the interrupted step", r.Warnings)
	}
}

func TestReadCSVGood(t *testing.T) {
	in := "\ufeffConnections, QPS ,p99_ms,note\n64.0,45000,,first\n500,56000,12.5,x\n"
	ss, err := ReadCSV(strings.NewReader(in), "in.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 || ss[0].Target != "in.csv" || len(ss[0].Points) != 2 {
		t.Fatalf("series %+v", ss)
	}
	p0, p1 := ss[0].Points[0], ss[0].Points[1]
	if p0.Concurrency != 64 || p0.HasP99 || p1.P99Ms != 12.5 || !p1.HasP99 {
		t.Errorf("points %+v %+v: want connections as concurrency, blank p99 unknown", p0, p1)
	}
}

// goldenReports are the seeds plus a simulated sweep with trials, p99 and
// a fixed pool, so every part of the output appears.
func goldenReports(t *testing.T) []Report {
	ss := readSeeds(t)
	sim := uslSeries(1200, 0.04, 0.0004, geomGrid(256, false), 3, 0.03, 5)
	sim.Target, sim.Topology, sim.Hosts, sim.Clients = "sim", "sharded", 2, 2
	for i := range sim.Points {
		p := &sim.Points[i]
		p.P99Ms = 3 * float64(p.Concurrency*sim.Clients) / p.QPS * 1000
		p.HasP99 = true
	}
	ss = append(ss, sim)
	o := DefaultOptions()
	o.SLOP99 = 15 * time.Millisecond
	return AnalyzeAll(ss, o)
}

// checkGolden renders with write, compares the output with testdata/name
// and returns it.
func checkGolden(t *testing.T, name string, write func(w io.Writer) error) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := write(&buf); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", name), buf.Bytes())
	return buf.Bytes()
}

func TestGoldenText(t *testing.T) {
	checkGolden(t, "report.txt.golden", func(w io.Writer) error { return WriteText(w, goldenReports(t)) })
}

func TestGoldenJSON(t *testing.T) {
	b := checkGolden(t, "report.json.golden", func(w io.Writer) error { return WriteJSON(w, goldenReports(t)) })

	// The keys the issue promises, checked on the decoded document so a
	// renamed tag fails here and not in someone's script.
	var doc struct {
		Series []map[string]any `json:"series"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	paths := []string{"target", "pool", "peak.concurrency", "peak.qps", "knee.concurrency", "knee.low", "knee.high",
		"knee.confidence", "methods.plateau.concurrency", "methods.kneedle.concurrency", "methods.marginal.concurrency",
		"methods.slo.concurrency", "methods.usl.lambda", "methods.usl.sigma", "methods.usl.kappa", "methods.usl.n_star",
		"methods.usl.r2", "retrograde", "recommendation.concurrency", "recommendation.max_pool_size", "recommendation.why"}
	for i, s := range doc.Series {
		for _, p := range paths {
			if !hasPath(s, p) {
				t.Errorf("series %d: no key %s", i, p)
			}
		}
		if rg, ok := s["retrograde"].(map[string]any); ok {
			for _, k := range []string{"from", "drop_pct"} {
				if _, ok := rg[k]; !ok {
					t.Errorf("series %d: retrograde without %s", i, k)
				}
			}
		}
	}
}

func hasPath(m map[string]any, path string) bool {
	parts := strings.Split(path, ".")
	for i, p := range parts {
		v, ok := m[p]
		if !ok {
			return false
		}
		if i == len(parts)-1 {
			return true
		}
		if m, ok = v.(map[string]any); !ok {
			return false
		}
	}
	return false
}

func TestSummaryNoKnee(t *testing.T) {
	r := Analyze(uslSeries(300, 0, 0, []int{1, 2, 4, 8}, 1, 0, 1), DefaultOptions())
	want := "knee: synthetic none within tested range (peak ops/s=2400 at concurrency=8)"
	if got := Summary(r); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// BenchmarkAnalyze is the 10,000-step case of the issue: 20 levels × 500
// trials with the default 1,000 bootstrap resamples and the USL fit.
func BenchmarkAnalyze(b *testing.B) {
	grid := make([]int, 20)
	for i := range grid {
		grid[i] = 8 * (i + 1)
	}
	s := uslSeries(1000, 0.05, 0.0002, grid, 500, 0.05, 1)
	if len(s.Points) != 10000 {
		b.Fatalf("%d points", len(s.Points))
	}
	o := DefaultOptions()
	b.ResetTimer()
	for b.Loop() {
		Analyze(s, o)
	}
}

// BenchmarkAnalyzeManySeries is 10,000 steps as 100 series of 10 levels ×
// 10 trials: 100 USL fits and bootstraps.
func BenchmarkAnalyzeManySeries(b *testing.B) {
	ss := make([]Series, 100)
	for i := range ss {
		ss[i] = uslSeries(1000, 0.05, 0.0002, geomGrid(512, false), 10, 0.05, uint64(i))
	}
	o := DefaultOptions()
	b.ResetTimer()
	for b.Loop() {
		AnalyzeAll(ss, o)
	}
}
