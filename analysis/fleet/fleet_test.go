package fleet

import (
	"bytes"
	"fmt"
	"github.com/poolsweep/poolsweep/analysis/openloop"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// modelRun is a results file whose steps are the simulator's model curve
// for spec (pure reads, one client, pool match), at concurrency 1, 2, 4 …
// 64: what a perfect measurement of that simulator would record. limit,
// when > 0, is the connection limit each host's telemetry reports.
func modelRun(t *testing.T, specText string, limit int) *results.Results {
	t.Helper()
	spec, err := sim.ParseSpec(specText)
	if err != nil {
		t.Fatal(err)
	}
	hosts := []string{"127.0.0.1:1"}
	topo := "standalone"
	if spec.Sharded() {
		topo = "sharded"
		hosts = nil
		for i := range spec.Routers {
			hosts = append(hosts, fmt.Sprintf("127.0.0.1:%d", i+1))
		}
	}
	r := &results.Results{Header: results.RunHeader{
		Workload: results.WorkloadInfo{Name: "read", Mix: map[string]float64{"read": 1}},
		Plan:     results.PlanInfo{Pool: "match", Clients: 1, Trials: 1},
		Targets:  []results.TargetHeader{{Name: "sim", Topology: topo, Hosts: hosts, SimSpec: specText}},
	}}
	for c := 1; c <= 64; c *= 2 {
		x := spec.Throughput(c, 1)
		lat := float64(c) / x * 1000
		st := results.StepResult{Kind: "step", Target: "sim", Workload: "read", PoolSetting: "match",
			Concurrency: c, MaxPoolSize: c, Clients: 1, Connections: c, Trial: 1, DurationS: 1,
			Calls: int64(x), Ops: int64(x), CallsPerS: x, OpsPerS: x,
			Latency: results.LatencySummary{Mean: lat, P50: lat, P90: lat, P99: lat, P999: lat, Max: lat}}
		if limit > 0 {
			cur, avail := float64(c+1), float64(limit-c-1)
			st.Server = &results.ServerTelemetry{Hosts: map[string]*results.ServerSample{}}
			for _, h := range hosts {
				st.Server.Hosts[h] = &results.ServerSample{Connections: &results.ConnCounts{Current: &cur, Available: &avail}}
			}
		}
		r.Steps = append(r.Steps, st)
	}
	return r
}

// TestRecommendationMatchesTheSimulatorsConstruction plans fleets on the
// simulator's model curve: the knee is the construction's, the pool is
// the largest that keeps N·P per host at or under it, and the expected
// throughput and pool wait are the model's at the fleet's in-flight count.
func TestRecommendationMatchesTheSimulatorsConstruction(t *testing.T) {
	cases := []struct {
		spec      string
		instances int
		wantPool  int
		passKnee  bool // even maxPoolSize 1 passes the knee
	}{
		// slots=16: knee at 16 in flight on the one host.
		{"slots=16,service=2ms", 1, 16, false},
		{"slots=16,service=2ms", 4, 4, false},
		{"slots=16,service=2ms", 10, 1, false},
		{"slots=16,service=2ms", 40, 1, true},
		{"slots=16,service=2ms", 200, 1, true},
		// Two shards of 16 behind two routers: knee at 32 in flight, 16
		// per mongos.
		{"shards=2,slots=16,service=2ms,routers=2,router_slots=64,router_cost=0s", 4, 4, false},
		{"shards=2,slots=16,service=2ms,routers=2,router_slots=64,router_cost=0s", 10, 1, false},
		{"shards=2,slots=16,service=2ms,routers=2,router_slots=64,router_cost=0s", 40, 1, true},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%s/N=%d", tc.spec, tc.instances), func(t *testing.T) {
			spec, _ := sim.ParseSpec(tc.spec)
			_, kneeN := spec.Peak(1)
			rs := []*results.Results{modelRun(t, tc.spec, 0)}
			a := analysis.Of(rs, knee.DefaultOptions())
			p, err := Make(rs, a, Options{Instances: tc.instances})
			if err != nil {
				t.Fatal(err)
			}
			sp := p.Series[0]
			if !sp.KneeFound || int(sp.KneeInFlight) != kneeN {
				t.Fatalf("knee %v in flight %g, the construction's is %d", sp.KneeFound, sp.KneeInFlight, kneeN)
			}
			k := max(spec.Routers, 1)
			if sp.Serving != k {
				t.Errorf("serving hosts %d, want %d", sp.Serving, k)
			}
			if got := sp.Recommended.MaxPoolSize; got != tc.wantPool {
				t.Errorf("maxPoolSize %d, want %d (%v)", got, tc.wantPool, sp.Recommended.Reasons)
			}
			if passed := strings.Contains(strings.Join(sp.Recommended.Reasons, "\n"), "even at maxPoolSize 1"); passed != tc.passKnee {
				t.Errorf("passes the knee at 1: %v, want %v", passed, tc.passKnee)
			}
			for _, row := range sp.Rows {
				held := math.Min(float64(tc.instances*sp.Demand), float64(tc.instances*row.MaxPoolSize*k))
				want := spec.Throughput(int(held), 1)
				if math.Abs(row.OpsPerS-want) > 1e-6*want {
					t.Errorf("P=%d: %g ops/s, the model's at %g in flight is %g", row.MaxPoolSize, row.OpsPerS, held, want)
				}
				// Little's law on the queue: callers without a connection
				// over the throughput.
				queue := float64(tc.instances*sp.Demand) - held
				if math.Abs(row.PoolQueue-queue) > 1e-9 || math.Abs(row.PoolWaitMs-queue/want*1000) > 1e-6 {
					t.Errorf("P=%d: queue %g wait %g ms, want %g and %g", row.MaxPoolSize, row.PoolQueue, row.PoolWaitMs, queue, queue/want*1000)
				}
				if row.ConnectionsPerHost != tc.instances*(row.MaxPoolSize+monitoringPerInstance) {
					t.Errorf("P=%d: %d connections per host", row.MaxPoolSize, row.ConnectionsPerHost)
				}
				if past := held/float64(k) > float64(kneeN)/float64(k); row.PastKnee != past {
					t.Errorf("P=%d: past the knee %v, want %v", row.MaxPoolSize, row.PastKnee, past)
				}
			}
		})
	}
}

// TestLimitBindsThePool: the connection limit the telemetry reports caps
// the pool below the knee's share, and --max-connections overrides it.
func TestLimitBindsThePool(t *testing.T) {
	cases := []struct {
		name      string
		limit     int // reported by the telemetry
		override  int
		instances int
		wantPool  int
		wantLimit int
		reason    string
	}{
		// Knee share 8; 2 × (P+2) ≤ 12 allows 4.
		{"telemetry", 12, 0, 2, 4, 12, "allows at most 4 per instance"},
		// The override wins over the telemetry's 1000.
		{"override", 1000, 12, 2, 4, 12, "--max-connections"},
		// Room to spare: the knee decides.
		{"knee", 1000, 0, 2, 8, 1000, "2 instances × 8 = 16 ≤ 16"},
		// 40 × (1+2) = 120 > 100: cannot connect in full.
		{"cannot", 100, 0, 40, 1, 100, "cannot connect in full"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rs := []*results.Results{modelRun(t, "slots=16,service=2ms", tc.limit)}
			p, err := Make(rs, analysis.Of(rs, knee.DefaultOptions()), Options{Instances: tc.instances, MaxConnections: tc.override})
			if err != nil {
				t.Fatal(err)
			}
			sp := p.Series[0]
			if sp.Limit.PerHost == nil || *sp.Limit.PerHost != tc.wantLimit {
				t.Fatalf("limit %v (%s), want %d", sp.Limit.PerHost, sp.Limit.Source, tc.wantLimit)
			}
			if sp.Recommended.MaxPoolSize != tc.wantPool {
				t.Errorf("maxPoolSize %d, want %d", sp.Recommended.MaxPoolSize, tc.wantPool)
			}
			if all := strings.Join(sp.Recommended.Reasons, "\n"); !strings.Contains(all, tc.reason) {
				t.Errorf("reasons lack %q:\n%s", tc.reason, all)
			}
		})
	}
}

func TestCurveAt(t *testing.T) {
	c := newCurve([]knee.Level{{Concurrency: 2, QPS: 200}, {Concurrency: 4, QPS: 300}, {Concurrency: 8, QPS: 320}}, 1, 1)
	cases := []struct {
		n     float64
		want  float64
		extra bool
	}{
		{0, 0, false},       // nothing in flight, nothing done
		{1, 100, false},     // below the first level: linear from the origin
		{2, 200, false},     // on a level
		{3, 250, false},     // between levels: linear
		{8, 320, false},     // the last level
		{100, 320, true},    // past it: flat, marked
		{-1, 0, false},      // nonsense in, zero out
		{6, 310, false},     // between 4 and 8
		{7.5, 317.5, false}, // ditto
	}
	for _, tc := range cases {
		got, extra := c.at(tc.n)
		if math.Abs(got-tc.want) > 1e-9 || extra != tc.extra {
			t.Errorf("at(%g) = %g, %v; want %g, %v", tc.n, got, extra, tc.want, tc.extra)
		}
	}
	// A numbered pool caps the levels' in-flight: C=8 with pool 4 on one
	// host held 4, and the higher throughput of the two at 4 is kept.
	c = newCurve([]knee.Level{{Concurrency: 4, QPS: 300, MaxPoolSize: 4}, {Concurrency: 8, QPS: 310, MaxPoolSize: 4}}, 2, 1)
	if len(c.n) != 1 || c.n[0] != 8 || c.x[0] != 310 {
		t.Errorf("capped curve %v %v, want one point (8, 310)", c.n, c.x)
	}
}

func TestPoissonAtLeast(t *testing.T) {
	for _, tc := range []struct {
		mean float64
		want int
	}{
		{0, 0}, {0.01, 1}, {0.2, 3}, {0.5, 4}, {1, 5}, {2, 8}, {10, 21}, {100, 132},
		{2000, 2139}, // exp(-2000) underflows: mean + 3.1·√mean
	} {
		if got := poissonAtLeast(tc.mean, 0.999); got != tc.want {
			t.Errorf("poissonAtLeast(%g) = %d, want %d", tc.mean, got, tc.want)
		}
	}
}

func TestRoutingByReadPreference(t *testing.T) {
	for _, tc := range []struct {
		uri  string
		want int
	}{
		{"mongodb://a:1,b:1,c:1/?replicaSet=rs0", 1},
		{"mongodb://u:***@a:1,b:1,c:1/?replicaSet=rs0&readPreference=primaryPreferred", 1},
		{"mongodb://a:1,b:1,c:1/?replicaSet=rs0&readPreference=secondaryPreferred", 2},
		{"mongodb://a:1,b:1,c:1/?readpreference=secondary&replicaSet=rs0", 2},
		{"mongodb://a:1,b:1,c:1/?replicaSet=rs0&readPreference=nearest", 3},
	} {
		rs := []*results.Results{{Header: results.RunHeader{Targets: []results.TargetHeader{{Name: "t", Topology: "replset", URI: tc.uri, Hosts: []string{"a:1", "b:1", "c:1"}}}}}}
		if got := routing(rs, "t").Serving; got != tc.want {
			t.Errorf("%s: %d serving, want %d", tc.uri, got, tc.want)
		}
	}
}

// TestOpenLoopRateForm: 1000 calls/s carried with 2 ms of service per
// call, over 10 instances: 100 calls/s each, 0.2 in flight, a pool of 3
// (Poisson(0.2) ≤ 3 99.99 % of the time; ≤ 2 only 99.89 %).
func TestOpenLoopRateForm(t *testing.T) {
	rate, pool := 1000, 16
	rs := []*results.Results{{Header: results.RunHeader{Targets: []results.TargetHeader{{Name: "sim", Topology: "standalone", Hosts: []string{"h:1"}}}},
		Steps: []results.StepResult{{Target: "sim", Mode: results.ModeOpen, Rate: rate, MaxPoolSize: pool,
			Open: &results.OpenLoopStats{Service: results.Quantiles{Mean: 2}}}}}}
	rep := openloop.Report{Target: "sim", Clients: 1, Rule: "p99 ≤ 20ms", CarriedRate: &rate, MaxPoolSize: &pool,
		Pools: []openloop.Pool{{MaxPoolSize: pool, Levels: []openloop.Level{{Rate: rate, P99Ms: 20}}}}}
	p, err := Make(rs, &analysis.Analysis{Open: []openloop.Report{rep}}, Options{Instances: 10})
	if err != nil {
		t.Fatal(err)
	}
	op := p.Open[0]
	if op.PerInstanceRate != 100 || math.Abs(op.InFlightPerHost-0.2) > 1e-12 || op.Recommended.MaxPoolSize != 3 {
		t.Errorf("rate %g in flight %g pool %d", op.PerInstanceRate, op.InFlightPerHost, op.Recommended.MaxPoolSize)
	}
	if want := "10 instances at 100 calls/s per instance and p99 ≤ 20 ms: maxPoolSize 3 per host"; !strings.HasPrefix(op.Recommended.Statement, want) {
		t.Errorf("statement %q, want it to begin %q", op.Recommended.Statement, want)
	}
}

// TestOpenLoopConnectionSweepPlansOnce: a connection sweep's series (one
// rate over 10, 200 and 50 clients) give one plan, from the most clients,
// and another target's series keeps its own.
func TestOpenLoopConnectionSweepPlansOnce(t *testing.T) {
	rate, pool := 100, 2
	rs := []*results.Results{{Header: results.RunHeader{Targets: []results.TargetHeader{
		{Name: "sim", Topology: "standalone", Hosts: []string{"h:1"}}, {Name: "other", Topology: "standalone", Hosts: []string{"h:2"}}}}}}
	var reps []openloop.Report
	for _, c := range []struct {
		target  string
		clients int
	}{{"sim", 10}, {"sim", 200}, {"sim", 50}, {"other", 3}} {
		rs[0].Steps = append(rs[0].Steps, results.StepResult{Target: c.target, Mode: results.ModeOpen, Rate: rate, MaxPoolSize: pool, Clients: c.clients,
			Open: &results.OpenLoopStats{Service: results.Quantiles{Mean: 2}}})
		reps = append(reps, openloop.Report{Target: c.target, Clients: c.clients, Rule: "p99 ≤ 20ms", CarriedRate: &rate, MaxPoolSize: &pool,
			Pools: []openloop.Pool{{MaxPoolSize: pool, Levels: []openloop.Level{{Rate: rate, P99Ms: 20}}}}})
	}
	p, err := Make(rs, &analysis.Analysis{Open: reps}, Options{Instances: 400})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Open) != 2 {
		t.Fatalf("%d open-loop plans, want one for each target", len(p.Open))
	}
	if p.Open[0].MeasuredClients != 200 || p.Open[1].MeasuredClients != 3 {
		t.Errorf("plans from %d and %d clients, want sim's 200 and other's 3", p.Open[0].MeasuredClients, p.Open[1].MeasuredClients)
	}
}

// TestGoldenRenderings fixes the text, Markdown and JSON of one plan.
func TestGoldenRenderings(t *testing.T) {
	rs := []*results.Results{modelRun(t, "slots=16,service=2ms", 1000)}
	p, err := Make(rs, analysis.Of(rs, knee.DefaultOptions()), Options{Instances: 4})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FormatText, FormatMarkdown, FormatJSON} {
		var b bytes.Buffer
		if err := p.Write(&b, f); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "plan-4."+f+".golden"), b.Bytes())
	}
}

func TestNothingToPlan(t *testing.T) {
	if _, err := Make(nil, &analysis.Analysis{}, Options{Instances: 3}); err != ErrNothing {
		t.Errorf("err %v, want ErrNothing", err)
	}
	if _, err := Make(nil, &analysis.Analysis{}, Options{}); err == nil {
		t.Error("no instances accepted")
	}
}
