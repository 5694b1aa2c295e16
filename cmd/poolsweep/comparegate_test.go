package main

import (
	"encoding/json"
	"github.com/poolsweep/poolsweep/internal/errext"
	"strings"
	"testing"
)

// TestCompareOnSimulator is the A/B proof and the compare gate, on one
// sweep: service 10ms → 12ms at saturation is a throughput drop near 17%
// with an interval excluding zero, and fails --fail-on-regression 5% with
// exit 4; the same spec against itself is no significant difference and
// passes (exit 0): only a significant change counts.
func TestCompareOnSimulator(t *testing.T) {
	// 4 slots of 10 ms: at most 400 ops/s against 333, far below what the client
	// issues, so the difference is the server's (a 1- or 2-ms service leaves the
	// client's own delays on a busy machine too large a share of each call).
	// 16 callers keep the slots' queues full; a 400-ms window holds 133 calls
	// or more, so one call more or less moves a trial by 0.75%, against a
	// 17% drop.
	res, path := simSweep(t, "--target", "base=sim:slots=4,service=10ms", "--target", "slower=sim:slots=4,service=12ms",
		"--target", "same=sim:slots=4,service=10ms", "--order", "interleaved", "--trials", "5",
		"--concurrency", "16", "--warmup", "200ms", "--duration", "400ms", "--no-plot")
	logSteps(t, res)
	// A miss is excused only when at least half the trials of the pair
	// ran on a starved load host.
	excused := func(candidate, what string) bool { return pairStarved(t, res, "base", candidate, what) }

	// The statistics: the drop, its interval, its significance.
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
	t.Logf("10ms → 12ms: %.1f%% [%.1f%%, %.1f%%] significant=%v", *slower.DeltaPct, *slower.CILowPct, *slower.CIHighPct, slower.Significant)
	if (!slower.Significant || *slower.DeltaPct > -10 || *slower.DeltaPct < -25 || *slower.CIHighPct >= 0) && !excused("slower", "the drop missed") {
		t.Errorf("want a significant drop near 17%% with an interval below zero")
	}
	same := check("same")
	t.Logf("same spec: %.1f%% significant=%v", *same.DeltaPct, same.Significant)
	if same.Significant && !excused("same", "the same spec differed") {
		t.Errorf("the same spec twice must not be a significant difference")
	}

	// The gate.
	code, out, stderr := runCLI(t, "compare", path, "--baseline", "base", "--candidate", "slower", "--fail-on-regression", "5%")
	t.Logf("base vs slower: exit %d\n%s%s", code, out, stderr)
	if (code != errext.ExitGate || !strings.Contains(out, "base → slower read C=16 pool=match: throughput -")) && !excused("slower", "no regression found") {
		t.Errorf("10ms → 12ms: exit %d, want %d and the throughput regression listed", code, errext.ExitGate)
	}
	if code == errext.ExitGate && !strings.Contains(stderr, "--fail-on-regression: ") {
		t.Errorf("stderr %q does not say why it failed", stderr)
	}
	code, out, stderr = runCLI(t, "compare", path, "--baseline", "base", "--candidate", "same", "--fail-on-regression", "5%")
	t.Logf("base vs same: exit %d\n%s%s", code, out, stderr)
	if (code != 0 || !strings.Contains(out, "no significant regression worse than 5% on throughput or p99")) && !excused("same", "the same spec regressed") {
		t.Errorf("the same spec twice: exit %d, want 0", code)
	}
	// JSON stays JSON on stdout; the regressions go to stderr.
	code, out, stderr = runCLI(t, "compare", path, "--baseline", "base", "--candidate", "slower", "--fail-on-regression", "5%", "--format", "json")
	if !strings.HasPrefix(strings.TrimSpace(out), "{") || strings.Contains(out, "regression(s)") || (code == errext.ExitGate) != strings.Contains(stderr, "regression(s) worse than 5%") {
		t.Errorf("--format json: exit %d, stdout %.80q…, stderr %q", code, out, stderr)
	}
}

func TestFailOnRegressionBadInput(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"five", "-5%", "1001%", "NaN", "5%%", "0x5"} {
		code, _, stderr := runCLI(t, "compare", "a.jsonl", "b.jsonl", "--fail-on-regression", v)
		if code != errext.ExitUsage || !strings.HasPrefix(stderr, "poolsweep: --fail-on-regression: ") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("--fail-on-regression %s: exit %d, %q; want 2 and one line naming the flag", v, code, stderr)
		}
	}
}
