package report

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// TestPlanTextOwnLevels: the report's plan line names each target's own
// levels where the targets had them, and the one list otherwise.
func TestPlanTextOwnLevels(t *testing.T) {
	p := results.PlanInfo{Concurrency: []int{32, 64, 128, 300, 500, 1000}, Pool: "match", Clients: 3, Trials: 1, Steps: 7,
		TargetConcurrency: []results.TargetLevels{{Target: "sharded", Concurrency: []int{32, 64, 128, 300}}, {Target: "standalone", Concurrency: []int{64, 500, 1000}}}}
	if got := planText(p, nil); !strings.HasPrefix(got, "concurrency sharded 32,64,128,300, standalone 64,500,1000; pool match; 3 client(s)") {
		t.Errorf("plan text %q", got)
	}
	p.TargetConcurrency = nil
	if got := planText(p, nil); !strings.HasPrefix(got, "concurrency 32,64,128,300,500,1000; pool match") {
		t.Errorf("plan text %q", got)
	}
}

// TestPlanTextLengths: the plan line says how the run chose its warm-ups
// and windows: fixed lengths as they were, auto ones by their rule and
// bounds with what the steps took, never an auto plan's minimums as if
// they were the lengths; closed and open loop alike.
func TestPlanTextLengths(t *testing.T) {
	yes, no := true, false
	auto := &results.AutoPlan{Warmup: true, MinWarmupS: 3, MaxWarmupS: 30, Window: true, MinDurationS: 2, MaxDurationS: 60, PrecisionPct: 2, MinCalls: 200, BatchS: 0.1, Confidence: 0.95}
	step := func(warm, window float64, settled *bool, end string) results.StepResult {
		return results.StepResult{DurationS: window, Phases: &results.StepPhases{Warmup: warm, Window: window},
			Steady: &results.StepSteady{WarmupMode: results.WindowAuto, Settled: settled, WindowMode: results.WindowAuto, WindowEnd: end}}
	}
	steps := []results.StepResult{step(3.04, 2.5, &yes, "precision"), step(8.42, 14.26, &no, "max-duration"), step(4, 60, &yes, results.WindowEndOutOfReach)}
	tests := []struct {
		name  string
		plan  results.PlanInfo
		steps []results.StepResult
		want  string
	}{
		// Fixed lengths: the lengths themselves.
		{"fixed", results.PlanInfo{WarmupS: 1, DurationS: 2}, nil, "warm-up 1s, window 2s"},
		// Auto, with the steps' own lengths and the ones that ended short.
		{"auto", results.PlanInfo{WarmupS: 3, DurationS: 2, Auto: auto}, steps,
			"warm-up until MSER-5 finds the end of the transient (3s to 30s; took 3–8.4s; 1 never settled), " +
				"window until the throughput is known to ±2% (2s to 60s, 200 calls or more; took 2.5–60s; 1 ended at the maximum; 1 ended with the precision out of reach)"},
		// Auto before any step was measured: the rule alone.
		{"auto, no steps", results.PlanInfo{WarmupS: 3, DurationS: 2, Auto: auto}, nil,
			"warm-up until MSER-5 finds the end of the transient (3s to 30s), window until the throughput is known to ±2% (2s to 60s, 200 calls or more)"},
		// A --min-warmup below what MSER-5 needs: the warm-ups were at
		// least what it needs (plan.AutoWarmupMin, 3s), and the line says so.
		{"auto, min-warmup below MSER-5's", results.PlanInfo{WarmupS: 1, DurationS: 3, Auto: &results.AutoPlan{Warmup: true, MinWarmupS: 1, MaxWarmupS: 5}}, nil,
			"warm-up until MSER-5 finds the end of the transient (3s to 5s), window 3s"},
		// An auto window after a fixed warm-up.
		{"fixed warm-up, auto window", results.PlanInfo{WarmupS: 5, DurationS: 2, Auto: &results.AutoPlan{Window: true, MinDurationS: 2, MaxDurationS: 20, PrecisionPct: 1, MinCalls: 100}}, steps[:1],
			"warm-up 5s, window until the throughput is known to ±1% (2s to 20s, 100 calls or more; took 2.5s)"},
	}
	for _, tt := range tests {
		for _, open := range []bool{false, true} {
			p := tt.plan
			if open {
				p.Rate, p.Arrivals = []int{100}, "poisson"
			}
			if got := planText(p, tt.steps); !strings.Contains(got, "; "+tt.want+", op timeout") {
				t.Errorf("%s (open loop %v): plan text %q, want it to hold %q", tt.name, open, got, tt.want)
			}
		}
	}
}
