package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// TestOpenLoopEndToEnd sweeps two simulators (capacity 2,000 and 4,000
// calls/s by construction) with --rate, then reads the run with analyze,
// plot, report and compare: every command understands open-loop steps.
// The only speed it asserts is the simulator's ground truth: no step
// carries more than its target's capacity. (Rates of a few thousand a
// second are enough for that: this test runs beside the parallel group.)
func TestOpenLoopEndToEnd(t *testing.T) {
	t.Parallel()
	res, path := simSweep(t, "--target", "small=sim:slots=4,service=2ms", "--target", "large=sim:slots=8,service=2ms",
		"--rate", "500,3000", "--pool", "16", "--warmup", "300ms", "--duration", "1s")
	if p := res.Header.Plan; len(p.Rate) != 2 || p.Arrivals != "uniform" || p.MaxInFlight != plan.DefaultMaxInFlight {
		t.Errorf("header plan %+v", p)
	}
	if len(res.Steps) != 4 {
		t.Fatalf("%d steps, want 4", len(res.Steps))
	}
	for _, s := range res.Steps {
		if s.Mode != results.ModeOpen || s.Open == nil || s.Rate == 0 || s.MaxPoolSize != 16 {
			t.Fatalf("step %+v is not an open-loop step", s)
		}
		capacity := map[string]float64{"small": 2000, "large": 4000}[s.Target]
		if s.Open.AchievedPerS > 1.03*capacity {
			t.Errorf("%s at %d/s achieved %.0f/s, above its capacity %.0f", s.Target, s.Rate, s.Open.AchievedPerS, capacity)
		}
		if s.LittlesLaw == nil || s.LittlesLaw.ExpectedInFlight != s.Open.InFlightMean {
			t.Errorf("%s at %d/s: Little's law %+v is not the open-loop check", s.Target, s.Rate, s.LittlesLaw)
		}
		t.Logf("%s %d/s: achieved %.0f/s, dropped %d, corrected p99 %.1f ms, bound %s", s.Target, s.Rate, s.Open.AchievedPerS, s.Open.Dropped, s.Open.Corrected.P99, s.Bound)
	}

	code, out, stderr := runCLI(t, "analyze", path, "--format", "json", "--slo-p99", "100ms")
	if code != 0 {
		t.Fatalf("analyze: exit %d: %s", code, stderr)
	}
	var doc struct {
		Series   []json.RawMessage `json:"series"`
		OpenLoop []struct {
			Target         string  `json:"target"`
			SLO            float64 `json:"slo_p99_ms"`
			Recommendation string  `json:"recommendation"`
			Pools          []struct {
				Levels []struct {
					Rate    int  `json:"rate"`
					Carried bool `json:"carried"`
				} `json:"levels"`
			} `json:"pools"`
		} `json:"open_loop"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("analyze json: %v\n%s", err, out)
	}
	if len(doc.Series) != 0 || len(doc.OpenLoop) != 2 || doc.OpenLoop[0].SLO != 100 {
		t.Fatalf("analyze: %d closed-loop series, %d open-loop reports (%s)", len(doc.Series), len(doc.OpenLoop), out)
	}
	for _, r := range doc.OpenLoop {
		// 3,000/s is past the small simulator's capacity: never carried.
		if r.Target == "small" && r.Pools[0].Levels[1].Carried {
			t.Errorf("small carries 3000/s: %+v", r)
		}
		if !strings.Contains(r.Recommendation, "maxPoolSize") && !strings.Contains(r.Recommendation, "No pool size") {
			t.Errorf("recommendation %q", r.Recommendation)
		}
	}
	if code, out, _ := runCLI(t, "analyze", path); code != 0 || !strings.Contains(out, "== open loop: small · read ==") {
		t.Errorf("analyze text: exit %d\n%s", code, out)
	}

	dir := t.TempDir()
	code, out, stderr = runCLI(t, "plot", path, "-o", filepath.Join(dir, "fig"))
	if code != 0 || !strings.Contains(out, "open-latency.png") || !strings.Contains(stderr, "only open-loop steps") {
		t.Errorf("plot: exit %d\n%s\n%s", code, out, stderr)
	}
	report := filepath.Join(dir, "report.html")
	if code, _, stderr := runCLI(t, "report", path, "-o", report); code != 0 {
		t.Errorf("report: exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(report); !strings.Contains(string(b), "open loop: small") || !strings.Contains(string(b), "uncorrected p99") {
		t.Error("the report has no open-loop verdict or table")
	}
	code, out, stderr = runCLI(t, "compare", path, "--baseline", "small", "--candidate", "large")
	if code != 0 || !strings.Contains(out, "rate=3000/s") {
		t.Errorf("compare: exit %d\n%s\n%s", code, out, stderr)
	}
}
