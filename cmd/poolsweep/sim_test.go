package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/sweep"
)

// simSweep runs a sweep of simulator targets and returns its results.
func simSweep(t *testing.T, args ...string) (*sweep.Results, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runBinary(t, dir, 4*time.Minute, append(append([]string{"sweep"}, args...), "--out", out, "--records", "2000")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res, err := sweep.ReadResultsFile(filepath.Join(out, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return res, filepath.Join(out, "results.jsonl")
}

func stepAt(t *testing.T, res *sweep.Results, target string, c int) sweep.StepResult {
	t.Helper()
	for _, s := range res.Steps {
		if s.Target == target && s.Concurrency == c {
			if s.Errors.Total() > 0 {
				t.Errorf("%s C=%d: %d errors (%s)", target, c, s.Errors.Total(), s.ErrorSample)
			}
			return s
		}
	}
	t.Fatalf("no step %s C=%d in the results", target, c)
	return sweep.StepResult{}
}

// TestSimulatorKnee is the calibration proof end to end: against
// slots=8,service=2ms the knee is at 8 (one grid step either side at
// most) and the peak within 15% of 4000 ops/s; with conn_cost the
// throughput at 64 connections is measurably below the peak.
func TestSimulatorKnee(t *testing.T) {
	res, path := simSweep(t, "--target", "plain=sim:slots=8,service=2ms", "--target", "costly=sim:slots=8,service=2ms,conn_cost=50us",
		"--concurrency", "1..64x2", "--warmup", "300ms", "--duration", "1500ms")
	if res.Header.Targets[0].ServerKind != "simulator" || res.Header.Targets[0].SimSpec == "" {
		t.Errorf("header should name the simulator and its spec: %+v", res.Header.Targets[0])
	}
	code, out, stderr := runCLI(t, "analyze", path, "--format", "json")
	if code != 0 {
		t.Fatalf("analyze: %d %s", code, stderr)
	}
	var rep struct {
		Series []struct {
			Target string
			Peak   struct {
				Concurrency int
				QPS         float64
			}
			Knee struct{ Concurrency, Low, High int }
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || len(rep.Series) != 2 {
		t.Fatalf("analyze json: %v\n%s", err, out)
	}
	for _, s := range rep.Series {
		t.Logf("%s: knee %d [%d, %d], peak %.0f ops/s at %d", s.Target, s.Knee.Concurrency, s.Knee.Low, s.Knee.High, s.Peak.QPS, s.Peak.Concurrency)
		if s.Target != "plain" {
			continue
		}
		if s.Knee.Concurrency < 4 || s.Knee.Concurrency > 16 {
			t.Errorf("knee at %d, want 8 ± one grid step", s.Knee.Concurrency)
		}
		if s.Peak.QPS < 4000*0.85 || s.Peak.QPS > 4000*1.15 {
			t.Errorf("peak %.0f ops/s, want within 15%% of 4000", s.Peak.QPS)
		}
	}
	peak := 0.0
	for _, s := range res.Steps {
		if s.Target == "costly" && s.OpsPerS > peak {
			peak = s.OpsPerS
		}
	}
	at64 := stepAt(t, res, "costly", 64).OpsPerS
	t.Logf("conn_cost=50us: peak %.0f, at 64 %.0f (model %.0f)", peak, at64, 8/(0.002+65*50e-6))
	if at64 > 0.9*peak {
		t.Errorf("with conn_cost throughput at 64 (%.0f) should be ≥10%% below the peak (%.0f)", at64, peak)
	}
	// The saturated steps are server-bound by construction (slots exhausted).
	if s := stepAt(t, res, "plain", 64); s.Bound != "server" || s.Server == nil || s.Server.Total.Tickets == nil {
		t.Errorf("C=64 on 8 slots should be server-bound with tickets reported: %q %s", s.Bound, s.BoundReason)
	}
}

// TestSimulatorSharded: three shards behind two routers give at least
// 2.5× one shard's peak; a slow router caps the cluster at its own
// capacity; inspect reports the topology and lists the shards.
func TestSimulatorSharded(t *testing.T) {
	res, _ := simSweep(t, "--target", "one=sim:slots=8,service=2ms", "--target", "sharded=sim:shards=3,slots=8,service=2ms,routers=2",
		"--target", "slowrouter=sim:shards=3,slots=8,service=2ms,router_slots=4,router_cost=1ms",
		"--concurrency", "48", "--warmup", "300ms", "--duration", "1500ms")
	one, sharded, slow := stepAt(t, res, "one", 48).OpsPerS, stepAt(t, res, "sharded", 48).OpsPerS, stepAt(t, res, "slowrouter", 48).OpsPerS
	t.Logf("one shard %.0f, 3 shards %.0f (%.2f×), slow router %.0f", one, sharded, sharded/one, slow)
	if sharded < 2.5*one {
		t.Errorf("3 shards gave %.2f× one shard, want ≥ 2.5×", sharded/one)
	}
	if slow > 4000*1.15 || slow < 4000*0.85 {
		t.Errorf("a router of 4 slots × 1ms should cap at ~4000 ops/s, got %.0f", slow)
	}
	var hdr sweep.TargetHeader
	for _, h := range res.Header.Targets {
		if h.Name == "sharded" {
			hdr = h
		}
	}
	if hdr.Topology != "sharded" || len(hdr.Hosts) != 2 || len(hdr.Shards) != 3 {
		t.Errorf("sharded header: %+v", hdr)
	}
	// With two routers every step has a server sample per router.
	if s := stepAt(t, res, "sharded", 48); s.Server == nil || len(s.Server.Hosts) != 2 {
		t.Errorf("want telemetry from both routers: %+v", s.Server)
	}

	uri, _ := startServe(t, "--sim", "shards=3,slots=8,service=2ms,routers=2")
	code, out, stderr := runCLI(t, "inspect", "--uri", uri)
	if code != 0 || !strings.Contains(out, "topology:       sharded") || !strings.Contains(out, "shards:         shard0, shard1, shard2") || !strings.Contains(out, "simulator") ||
		!strings.Contains(out, "shards=3,") {
		t.Errorf("inspect: %d\n%s\n%s", code, out, stderr)
	}
}

// TestCompareOnSimulator is issue 7's proof: service 1ms vs 1.2ms at
// saturation is a ~17% throughput drop with an interval excluding zero;
// the same spec twice is no significant difference.
func TestCompareOnSimulator(t *testing.T) {
	_, path := simSweep(t, "--target", "base=sim:slots=8,service=1ms", "--target", "slower=sim:slots=8,service=1200us",
		"--target", "same=sim:slots=8,service=1ms", "--order", "interleaved", "--trials", "5",
		"--concurrency", "32", "--warmup", "300ms", "--duration", "1s", "--no-plot")
	type metric struct {
		DeltaPct    *float64 `json:"delta_pct"`
		CILowPct    *float64 `json:"ci_low_pct"`
		CIHighPct   *float64 `json:"ci_high_pct"`
		Significant bool     `json:"significant"`
	}
	check := func(candidate string) metric {
		code, out, stderr := runCLI(t, "compare", path, "--baseline", "base", "--candidate", candidate, "--format", "json")
		if code != 0 {
			t.Fatalf("compare: %d %s", code, stderr)
		}
		var c struct {
			Steps []struct {
				Metrics map[string]*metric `json:"metrics"`
			} `json:"steps"`
		}
		if err := json.Unmarshal([]byte(out), &c); err != nil || len(c.Steps) != 1 || c.Steps[0].Metrics["ops_per_s"] == nil {
			t.Fatalf("compare json: %v\n%s", err, out)
		}
		return *c.Steps[0].Metrics["ops_per_s"]
	}
	slower := check("slower")
	t.Logf("1ms → 1.2ms: %.1f%% [%.1f%%, %.1f%%] significant=%v", *slower.DeltaPct, *slower.CILowPct, *slower.CIHighPct, slower.Significant)
	if !slower.Significant || *slower.DeltaPct > -10 || *slower.DeltaPct < -25 || *slower.CIHighPct >= 0 {
		t.Errorf("want a significant drop near 17%% with an interval below zero")
	}
	same := check("same")
	t.Logf("same spec: %.1f%% significant=%v", *same.DeltaPct, same.Significant)
	if same.Significant {
		t.Errorf("the same spec twice must not be a significant difference")
	}
}
