package main

import (
	"encoding/json"
	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/internal/errext"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/results"
)

// TestCompareOneTrialOnSimulator is the A/B with one trial a level
// (the simulator's default fixed windows): each level measured once, its
// throughput's interval from its own window's batch means. Service 5ms → 6ms at saturation (17% fewer ops/s)
// is a significant drop within one run and across two runs, and fails
// --fail-on-regression 5%; the same spec, in the same run or in another,
// never fails the gate.
func TestCompareOneTrialOnSimulator(t *testing.T) {
	first, p1 := simSweep(t, "--target", "base=sim:slots=8,service=5ms", "--target", "slower=sim:slots=8,service=6ms",
		"--target", "same=sim:slots=8,service=5ms", "--order", "interleaved", "--concurrency", "16", "--no-plot")
	second, p2 := simSweep(t, "--target", "slower2=sim:slots=8,service=6ms", "--target", "same2=sim:slots=8,service=5ms",
		"--order", "interleaved", "--concurrency", "16", "--no-plot")
	logSteps(t, first)
	logSteps(t, second)
	for _, r := range []*results.Results{first, second} {
		for _, s := range r.Steps {
			if s.Trial != 1 {
				t.Fatalf("%s C=%d: trial %d, want one trial a level", s.Target, s.Concurrency, s.Trial)
			}
			// A window's batches are independent enough for an interval
			// unless this host starved the step (its bound says so, with
			// the contention seen): compare then leaves it untested, which
			// the checks below excuse on that evidence alone.
			if starved, _ := bound.ClientLimited(&s); !s.Steady.Precise() && !starved {
				t.Fatalf("%s C=%d: want a batch-means interval of the window's throughput, got %+v", s.Target, s.Concurrency, s.Steady)
			}
		}
	}
	both := &results.Results{Steps: append(append([]results.StepResult{}, first.Steps...), second.Steps...)}
	excused := func(candidate, what string) bool { return pairStarved(t, both, "base", candidate, what) }

	type metric struct {
		DeltaPct    *float64 `json:"delta_pct"`
		CIHighPct   *float64 `json:"ci_high_pct"`
		Significant bool     `json:"significant"`
		Method      string   `json:"method"`
	}
	ops := func(args ...string) (metric, bool) {
		code, out, stderr := runCLI(t, append([]string{"compare"}, append(args, "--format", "json")...)...)
		if code != 0 {
			t.Fatalf("compare %v: %d %s", args, code, stderr)
		}
		var c struct {
			WithinRun bool `json:"within_run"`
			Steps     []struct {
				Metrics map[string]*metric `json:"metrics"`
			} `json:"steps"`
		}
		if err := json.Unmarshal([]byte(out), &c); err != nil || len(c.Steps) != 1 || c.Steps[0].Metrics["ops_per_s"] == nil {
			t.Fatalf("compare json: %v\n%s", err, out)
		}
		return *c.Steps[0].Metrics["ops_per_s"], c.WithinRun
	}
	for _, tc := range []struct {
		name      string
		args      []string
		candidate string
		within    bool
	}{
		{"within one run", []string{p1, "--baseline", "base", "--candidate", "slower"}, "slower", true},
		{"across two runs", []string{p1, p2, "--baseline", "base", "--candidate", "slower2"}, "slower2", false},
	} {
		m, within := ops(tc.args...)
		t.Logf("%s, 5ms → 6ms: %+.1f%% significant=%v method %s", tc.name, *m.DeltaPct, m.Significant, m.Method)
		if within != tc.within {
			t.Errorf("%s: within_run %v, want %v", tc.name, within, tc.within)
		}
		// A starved load host leaves the step untested (compare says so):
		// the only excuse for another method.
		if m.Method != compare.MethodBatchWelch && !excused(tc.candidate, "not tested on batch means") {
			t.Errorf("%s: method %q, want %s", tc.name, m.Method, compare.MethodBatchWelch)
		}
		if (!m.Significant || *m.DeltaPct > -10 || *m.DeltaPct < -25 || *m.CIHighPct >= 0) && !excused(tc.candidate, "the drop missed") {
			t.Errorf("%s: want a significant drop near 17%% with an interval below zero", tc.name)
		}
		code, out, _ := runCLI(t, append([]string{"compare"}, append(tc.args, "--fail-on-regression", "5%")...)...)
		if code != errext.ExitGate && !excused(tc.candidate, "no regression found") {
			t.Errorf("%s: --fail-on-regression 5%%: exit %d, want %d\n%s", tc.name, code, errext.ExitGate, out)
		}
	}
	for _, tc := range []struct {
		name      string
		args      []string
		candidate string
	}{
		{"within one run", []string{p1, "--baseline", "base", "--candidate", "same"}, "same"},
		{"across two runs", []string{p1, p2, "--baseline", "base", "--candidate", "same2"}, "same2"},
	} {
		code, out, _ := runCLI(t, append([]string{"compare"}, append(tc.args, "--fail-on-regression", "5%")...)...)
		t.Logf("%s, the same spec: exit %d", tc.name, code)
		if (code != 0 || !strings.Contains(out, "no significant regression worse than 5%")) && !excused(tc.candidate, "the same spec regressed") {
			t.Errorf("%s: the same spec: exit %d, want 0\n%s", tc.name, code, out)
		}
	}
}
