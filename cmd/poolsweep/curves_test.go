package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/results"
)

// curvesDoc is the part of compare --format json this test reads.
type curvesDoc struct {
	Curves []struct {
		Baseline, Candidate string
		PeakRatio           ratioDoc  `json:"peak_ratio"`
		PerNodeRatio        *ratioDoc `json:"per_node_ratio"`
		Verdict             string
	}
}

type ratioDoc struct {
	Value     float64
	Low, High *float64
}

// holds says the interval holds the truth v, or misses it by a value
// within 5% of it: a 95% interval misses the truth once in twenty by
// design (here, ±1% intervals around a router measured at 496 ops/s of
// its 500), and a cluster of four simulated servers beside other tests
// on two busy cores delivers a few percent under its capacity (2.894 of
// 3 seen once), neither of which is a regression; a ratio 5% or more off
// is, and the errors this guards against (nodes miscounted, the wrong
// side's peak) are off by far more.
func (r ratioDoc) holds(v float64) bool {
	in := r.Low != nil && r.High != nil && *r.Low <= v && v <= *r.High
	return in || math.Abs(r.Value/v-1) <= 0.05
}

// TestCurvesOnSimulator: a standalone against a cluster of three shards
// of the same capacity, and against a cluster whose router is its
// bottleneck, with auto windows (one trial a level, short windows). The
// simulators' capacities are known by construction (8 read slots of 8 ms:
// 1,000 finds/s per node; the slow router's 2 slots of 4 ms carry 500;
// every side saturates by 4 workers a client, and 16 is past every
// peak): a window's batches span three call times, so the levels stay
// where ten of them fit in the 4-s maximum (48 callers at the router's
// 500/s: calls of 96 ms, batches of 0.3 s) and every peak has its
// interval:
// the cluster's peak ratio is 3 with an interval that holds 3 and 1 per
// shard, and the router-bound cluster loses (half the standalone's peak)
// and the verdict says so. The workload is reads, one op a call: with the
// API call of 2 finds and an update, 192 callers complete their calls in
// waves (calls/s in 100-ms batches swing from 1,000 to 0 and back every
// 400 ms, jitter or not), and the calls' batch-means interval, which the
// comparison applies to ops/s, is ±35%. The sweep's summary,
// analyze and the report say it too. A miss is excused only when at least
// half the steps of the pair ran on a starved load host.
func TestCurvesOnSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runBinary(t, dir, 4*time.Minute, "sweep",
		"--target", "standalone=sim:slots=8,service=8ms,jitter=0.5",
		"--target", "sharded=sim:shards=3,slots=8,service=8ms,jitter=0.5,routers=1",
		"--target", "slow=sim:shards=3,slots=8,service=8ms,jitter=0.5,router_slots=2,router_cost=4ms",
		"--clients", "3", "--workload", "read", "--concurrency", "1,4,16",
		"--warmup", "300ms", "--duration", "auto", "--min-duration", "1s", "--max-duration", "4s",
		"--out", out, "--records", "2000")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	path := filepath.Join(out, "results.jsonl")
	res := readRes(t, path)
	logSteps(t, res)
	for _, want := range []string{"deployments: sharded against standalone (read, 3 clients)", "deployments: slow against standalone (read, 3 clients)", "connections  standalone ops/s  calls/s  sharded ops/s  calls/s"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the sweep's summary lacks %q:\n%s", want, stdout)
		}
	}

	for _, tc := range []struct {
		cand           string
		truth, perNode float64
		loses          bool
	}{
		{"sharded", 3, 1, false},
		{"slow", 0.5, 0.5 / 3, true},
	} {
		code, js, stderr := runCLI(t, "compare", path, "--baseline", "standalone", "--candidate", tc.cand, "--format", "json")
		if code != 0 {
			t.Fatalf("compare %s: exit %d: %s", tc.cand, code, stderr)
		}
		var doc curvesDoc
		if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Curves) != 1 {
			t.Fatalf("compare %s: %v, %d curve comparisons:\n%s", tc.cand, err, len(doc.Curves), js)
		}
		c := doc.Curves[0]
		t.Logf("%s: peak ratio %+v, per node %+v; %s", tc.cand, c.PeakRatio, c.PerNodeRatio, c.Verdict)
		excused := func(what string) bool { return pairStarved(t, res, "standalone", tc.cand, what) }
		if c.PeakRatio.Low == nil {
			// A peak measured on a starved load host gets no interval,
			// and the verdict says so: the tool's own evidence.
			peakStarved := strings.Contains(c.Verdict, "ran on a starved load host") && peakClientLimited(res, "standalone", tc.cand)
			if !peakStarved && !excused("the peak ratio has no interval") {
				t.Errorf("%s: the peak ratio has no interval: %s", tc.cand, c.Verdict)
			}
			continue
		}
		if !c.PeakRatio.holds(tc.truth) && !excused("the peak ratio's interval misses the truth") {
			t.Errorf("%s: peak ratio %.3f [%.3f, %.3f] does not hold the truth %.3f", tc.cand, c.PeakRatio.Value, *c.PeakRatio.Low, *c.PeakRatio.High, tc.truth)
		}
		if c.PerNodeRatio == nil || (!c.PerNodeRatio.holds(tc.perNode) && !excused("the per-node ratio's interval misses the truth")) {
			t.Errorf("%s: per-node ratio %+v does not hold the truth %.3f", tc.cand, c.PerNodeRatio, tc.perNode)
		}
		lost := *c.PeakRatio.High < 1
		if lost != tc.loses && !excused("the wrong side won") {
			t.Errorf("%s: peak ratio [%.3f, %.3f]: lost %v, want %v", tc.cand, *c.PeakRatio.Low, *c.PeakRatio.High, lost, tc.loses)
		}
		if strings.Contains(c.Verdict, "it loses") != lost || !strings.HasPrefix(c.Verdict, tc.cand+" (3 shards, 1 router) carries ") {
			t.Errorf("%s: the verdict does not say what the ratio says (lost %v): %s", tc.cand, lost, c.Verdict)
		}
	}

	code, text, stderr := runCLI(t, "analyze", path)
	if code != 0 || !strings.Contains(text, "deployments: sharded against standalone") || !strings.Contains(text, "latency at matched throughput") {
		t.Errorf("analyze: exit %d, %s\n%s", code, stderr, text)
	}
	html := filepath.Join(dir, "report.html")
	if code, _, stderr := runCLI(t, "report", path, "-o", html); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(html)
	if err != nil || !strings.Contains(string(b), `<section id="deployments">`) || !strings.Contains(string(b), "slow against standalone") {
		t.Errorf("the report lacks the deployments compared (%v)", err)
	}
}

// peakClientLimited says a step of base or candidate at that side's
// highest throughput ran on a starved load host (bound.ClientLimited).
func peakClientLimited(res *results.Results, base, candidate string) bool {
	for _, target := range []string{base, candidate} {
		var peak *results.StepResult
		for i := range res.Steps {
			if s := &res.Steps[i]; s.Target == target && (peak == nil || s.OpsPerS > peak.OpsPerS) {
				peak = s
			}
		}
		if peak != nil {
			if ok, _ := bound.ClientLimited(peak); ok {
				return true
			}
		}
	}
	return false
}
