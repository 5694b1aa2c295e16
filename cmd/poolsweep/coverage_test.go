package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/bound"
)

// TestPeakRatioCoverage: the API call (2 finds and an update), whose
// callers end their calls in waves, against simulators whose peak ratio
// is known by construction: 8 read slots of 8 ms (1,000 finds/s) against
// 2 such shards behind a router (2×) and against 8 slots of 12 ms (⅔),
// 16 workers per client × 3 clients, where all three saturate. Every
// step's ops get an interval of their own from batches of three call
// times or more; the peak ratio's interval exists, is narrower than
// ±25%, and holds the truth (a miss by under 3% is the 1 in 20 a 95%
// interval misses). A pair whose step ran on a starved load host
// (bound.ClientLimited) may lack its interval, and then its verdict must
// say why: no narrow interval around a biased value.
// scripts/interval-coverage.sh measures the coverage itself over runs.
func TestPeakRatioCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runBinary(t, dir, 3*time.Minute, "sweep",
		"--target", "base=sim:slots=8,service=8ms",
		"--target", "shards2=sim:shards=2,slots=8,service=8ms,routers=1",
		"--target", "slower=sim:slots=8,service=12ms",
		"--clients", "3", "--workload", "api", "--concurrency", "16",
		"--warmup", "300ms", "--min-duration", "1s", "--max-duration", "8s",
		"--out", out, "--records", "2000", "--no-plot")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	path := filepath.Join(out, "results.jsonl")
	res := readRes(t, path)
	logSteps(t, res)
	for _, s := range res.Steps {
		sd := s.Steady
		if sd == nil || sd.Ops == nil || sd.CallTimeS == nil {
			t.Fatalf("%s: no ops interval record or call time: %+v", s.Target, sd)
		}
		// Batches of three call times at least: the waves fall inside them.
		if got, want := float64(sd.Ops.BatchSize)*sd.BatchS, 3**sd.CallTimeS; got < want-sd.BatchS {
			t.Errorf("%s: ops batches of %.2fs, under 3 call times of %.3fs", s.Target, got, *sd.CallTimeS)
		}
		if limited, _ := bound.ClientLimited(&s); !sd.OpsPrecise() && !limited {
			t.Errorf("%s: the ops have no interval on a host that was not starved: %s", s.Target, sd.NoInterval)
		}
	}
	for _, tc := range []struct {
		cand  string
		truth float64
	}{{"shards2", 2}, {"slower", 2.0 / 3}} {
		code, js, stderr := runCLI(t, "compare", path, "--baseline", "base", "--candidate", tc.cand, "--format", "json")
		if code != 0 {
			t.Fatalf("compare %s: exit %d: %s", tc.cand, code, stderr)
		}
		var doc curvesDoc
		if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Curves) != 1 {
			t.Fatalf("compare %s: %v:\n%s", tc.cand, err, js)
		}
		c := doc.Curves[0]
		r := c.PeakRatio
		t.Logf("%s: peak ratio %.3f %v %v; %s", tc.cand, r.Value, r.Low, r.High, c.Verdict)
		if r.Low == nil || r.High == nil {
			if !pairStarved(t, res, "base", tc.cand, "no interval") {
				t.Errorf("%s: the peak ratio has no interval on a host that was not starved: %s", tc.cand, c.Verdict)
			} else if !strings.Contains(c.Verdict, "starved load host") {
				t.Errorf("%s: a peak ratio without its interval, and the verdict does not say why: %s", tc.cand, c.Verdict)
			}
			continue
		}
		if width := (*r.High / *r.Low) - 1; width > 0.5 {
			t.Errorf("%s: interval [%.3f, %.3f] wider than ±25%%: it would hold anything", tc.cand, *r.Low, *r.High)
		}
		in := *r.Low <= tc.truth && tc.truth <= *r.High
		if !in && math.Abs(r.Value/tc.truth-1) > 0.03 {
			t.Errorf("%s: peak ratio %.3f [%.3f, %.3f] does not hold the truth %.3f", tc.cand, r.Value, *r.Low, *r.High, tc.truth)
		}
	}
}
