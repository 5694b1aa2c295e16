package fleet

import (
	"bytes"
	"errors"
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

// stormRun is a storm run of target whose storm of K clients (maxConnecting
// m) accepted rate[K] connections/s: what poolsweep storm records.
func stormRun(target results.TargetHeader, m int, rate map[int]float64) *results.Results {
	r := &results.Results{Path: "storm.jsonl", Header: results.RunHeader{RunID: "storm-1", Targets: []results.TargetHeader{target},
		Plan: results.PlanInfo{Storm: &results.StormPlan{Pool: 20, MaxConnecting: []int{m}}}}}
	for k, x := range rate {
		x := x
		r.Storms = append(r.Storms, results.StormResult{Kind: results.KindStorm, Target: target.Name, Clients: k, Pool: 20,
			PoolsPerClient: 1, MaxConnecting: m, Trial: 1, AcceptPerS: &x})
	}
	return r
}

// TestRestartMatchesTheSimulatorsConstruction: a simulator with
// accept_cost=D accepts 1/D connections per second once enough clients
// keep its acceptor busy, so a fleet of N instances with pools of P sets
// up N·(P + monitoring) connections per host in N·(P + 2)·D; the storms
// below the saturation give a rate the fleet's restart cannot beat (a
// lower bound on its time), between K the rate is interpolated, and past
// a storm run that had not saturated the time is an upper bound.
func TestRestartMatchesTheSimulatorsConstruction(t *testing.T) {
	const specText = "slots=16,service=2ms,accept_cost=2ms"
	spec, err := sim.ParseSpec(specText)
	if err != nil {
		t.Fatal(err)
	}
	acceptor := 1 / spec.AcceptCost.Seconds() // 500 connections/s
	run := modelRun(t, specText, 0)
	a := analysis.Of([]*results.Results{run}, knee.DefaultOptions())
	saturated := map[int]float64{2: 0.4 * acceptor, 10: acceptor, 50: acceptor, 200: acceptor}
	rising := map[int]float64{2: 0.2 * acceptor, 10: 0.6 * acceptor}
	cases := []struct {
		name      string
		rates     map[int]float64
		instances int
		pool      int     // the plan's recommendation (knee 16 per host)
		rate      float64 // the rate the restart is set up at
		bound     string
	}{
		{"saturated: the acceptor's rate", saturated, 40, 1, acceptor, ""},
		{"past the largest K, saturated", saturated, 300, 1, acceptor, ""},
		{"on a K measured", saturated, 10, 1, acceptor, ""},
		{"between K: interpolated", saturated, 4, 4, 0.4*acceptor + 2.0/8*0.6*acceptor, ""},
		{"below the fewest clients: at least", saturated, 1, 16, 0.4 * acceptor, "lower"},
		{"past a run that had not saturated: at most", rising, 40, 1, 0.6 * acceptor, "upper"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			storm := stormRun(run.Header.Targets[0], 2, tc.rates)
			p, err := Make([]*results.Results{run}, a, Options{Instances: tc.instances, Storm: storm})
			if err != nil {
				t.Fatal(err)
			}
			sp := p.Series[0]
			if sp.Recommended.MaxPoolSize != tc.pool {
				t.Fatalf("maxPoolSize %d, want %d", sp.Recommended.MaxPoolSize, tc.pool)
			}
			if sp.Setup == nil || len(sp.Setup.Restarts) != 1 {
				t.Fatalf("setup %+v", sp.Setup)
			}
			r := sp.Setup.Restarts[0]
			conns := tc.instances * (tc.pool + monitoringPerInstance)
			want := float64(conns) / tc.rate
			if r.Connections != conns || math.Abs(r.AcceptPerS-tc.rate) > 1e-9 || math.Abs(r.Seconds-want) > 1e-12 || r.Bound != tc.bound {
				t.Errorf("restart %+v, want %d connections at %g/s in %g s (bound %q)", r, conns, tc.rate, want, tc.bound)
			}
			if tc.rate == acceptor {
				// The construction's own answer: N·(P+2)·accept_cost.
				if c := float64(conns) * spec.AcceptCost.Seconds(); math.Abs(r.Seconds-c) > 1e-9 {
					t.Errorf("%g s, the construction's is %g", r.Seconds, c)
				}
			}
		})
	}
}

// TestStormOfAnotherDeployment: a storm run is put beside the results of
// the same deployment only; another one, or a file that holds no storm,
// is refused naming why, and differences that leave it the same
// deployment are said.
func TestStormOfAnotherDeployment(t *testing.T) {
	run := modelRun(t, "slots=16,service=2ms", 0)
	rs := []*results.Results{run}
	target := run.Header.Targets[0]
	rates := map[int]float64{10: 500, 50: 500}
	simTarget := func(spec string, hosts ...string) results.TargetHeader {
		return results.TargetHeader{Name: "sim", Topology: "standalone", ServerKind: "simulator", SimSpec: spec, Hosts: hosts}
	}
	simRun := &results.Results{Header: run.Header, Steps: run.Steps}
	simRun.Header.Targets = []results.TargetHeader{simTarget("slots=16,service=2ms", "127.0.0.1:1")}
	other := target
	other.Hosts = []string{"db9:27017"}
	renamed := target
	renamed.Name, renamed.ServerVersion = "prod", "7.0.4"
	sweepAsStorm := &results.Results{Path: "run.jsonl", Header: run.Header, Steps: run.Steps}
	for _, tc := range []struct {
		name    string
		rs      []*results.Results
		storm   *results.Results
		refused string // "" when accepted
		diff    string
	}{
		{"other hosts", rs, stormRun(other, 2, rates), "hosts 127.0.0.1:1 against db9:27017", ""},
		{"a sweep given as the storm", rs, sweepAsStorm, "run.jsonl holds a sweep's steps, not storms", ""},
		{"a simulator of another spec", []*results.Results{simRun}, stormRun(simTarget("slots=16,service=2ms,accept_cost=2ms", "127.0.0.1:2"), 2, rates), `simulator "slots=16,service=2ms" against simulator "slots=16,service=2ms,accept_cost=2ms"`, ""},
		{"a simulator and a server", []*results.Results{simRun}, stormRun(target, 2, rates), "one is a simulator", ""},
		{"the same simulator on another port", []*results.Results{simRun}, stormRun(simTarget("service=2ms,slots=16", "127.0.0.1:2"), 2, rates), "", ""},
		{"same hosts, renamed and upgraded", rs, stormRun(renamed, 2, rates), "", "server version unknown in the results, 7.0.4 in the storm"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Make(tc.rs, analysis.Of(tc.rs, knee.DefaultOptions()), Options{Instances: 4, Storm: tc.storm})
			var mis *MismatchError
			if tc.refused != "" {
				if !errors.As(err, &mis) || !strings.Contains(err.Error(), tc.refused) {
					t.Errorf("err %v, want a MismatchError saying %q", err, tc.refused)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			s := p.Series[0].Setup
			if s == nil {
				t.Fatal("no setup section")
			}
			if tc.diff != "" && !strings.Contains(strings.Join(s.Differences, "\n"), tc.diff) {
				t.Errorf("differences %q lack %q", s.Differences, tc.diff)
			}
		})
	}
}

// TestGoldenWithStorm fixes the text and Markdown of a plan with a storm
// run beside it.
func TestGoldenWithStorm(t *testing.T) {
	rs := []*results.Results{modelRun(t, "slots=16,service=2ms,accept_cost=2ms", 1000)}
	storm := stormRun(rs[0].Header.Targets[0], 2, map[int]float64{2: 200, 10: 500, 50: 500})
	p, err := Make(rs, analysis.Of(rs, knee.DefaultOptions()), Options{Instances: 40, Storm: storm})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{FormatText, FormatMarkdown} {
		var b bytes.Buffer
		if err := p.Write(&b, f); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "plan-40-storm."+f+".golden"), b.Bytes())
	}
}

// The rate form (open loop) gets the storm beside it too: its restart
// counts the rate form's pool.
func TestOpenLoopRestart(t *testing.T) {
	rate, pool := 1000, 16
	target := results.TargetHeader{Name: "sim", Topology: "standalone", Hosts: []string{"h:1"}}
	rs := []*results.Results{{Header: results.RunHeader{Targets: []results.TargetHeader{target}},
		Steps: []results.StepResult{{Target: "sim", Mode: results.ModeOpen, Rate: rate, MaxPoolSize: pool,
			Open: &results.OpenLoopStats{Service: results.Quantiles{Mean: 2}}}}}}
	rep := openloop.Report{Target: "sim", Clients: 1, Rule: "p99 ≤ 20ms", CarriedRate: &rate, MaxPoolSize: &pool}
	p, err := Make(rs, &analysis.Analysis{Open: []openloop.Report{rep}}, Options{Instances: 10, Storm: stormRun(target, 2, map[int]float64{5: 500, 50: 500})})
	if err != nil {
		t.Fatal(err)
	}
	op := p.Open[0]
	// 10 instances × (3 + 2) = 50 connections at 500/s: 100 ms.
	if op.Setup == nil || len(op.Setup.Restarts) != 1 || op.Setup.Restarts[0].Connections != 50 || math.Abs(op.Setup.Restarts[0].Seconds-0.1) > 1e-12 {
		t.Fatalf("setup %+v", op.Setup)
	}
	var b bytes.Buffer
	if err := p.Write(&b, FormatText); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), "a restart of the whole fleet takes about 100 ms") {
		t.Errorf("the rate form does not say the restart:\n%s", b.String())
	}
}
