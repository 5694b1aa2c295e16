package bound

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

func TestLittlesLawOpen(t *testing.T) {
	tests := []struct {
		name string
		o    *results.OpenLoopStats
		ok   bool
		dev  float64
	}{
		// 2,000 calls/s × (2.9 − 0.4) ms = 5 in flight, as counted.
		{"steady", &results.OpenLoopStats{InFlightMean: 5, AchievedPerS: 2000, Corrected: results.LatencySummary{Mean: 2.9}, StartLag: results.Quantiles{Mean: 0.4}}, true, 0},
		// A backlog that grew over the window: 4,000/s × 500 ms = 2,000,
		// while 3,000 were waiting on average.
		{"growing backlog", &results.OpenLoopStats{InFlightMean: 3000, AchievedPerS: 4000, Corrected: results.LatencySummary{Mean: 500}}, false, -33.3},
		// Nothing counted in flight: nothing to check.
		{"empty", &results.OpenLoopStats{}, false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := littlesLawOpen(tt.o)
			if l.OK != tt.ok || l.DeviationPct < tt.dev-0.1 || l.DeviationPct > tt.dev+0.1 {
				t.Errorf("%+v, want ok=%v deviation %.1f%%", l, tt.ok, tt.dev)
			}
		})
	}
}

// annotate judges an open-loop step as a closed loop with max-in-flight
// calls in flight; annotateOpen takes that back and checks it as an open
// loop, and a load host that fell behind labels the step client-bound.
func TestAnnotateOpen(t *testing.T) {
	step := &results.StepResult{Concurrency: 5000, Clients: 1, CallsPerS: 2000, Latency: results.LatencySummary{Mean: 2.5}, Warnings: []string{"earlier"},
		Mode: results.ModeOpen, Rate: 2000, Open: &results.OpenLoopStats{InFlightMean: 5, AchievedPerS: 2000, Corrected: results.LatencySummary{Mean: 2.5}, ClientBehind: true}}
	n := len(step.Warnings)
	annotate(step, nil, DefaultClassifier())
	if !strings.Contains(strings.Join(step.Warnings, "\n"), "5000 calls in flight") {
		t.Fatalf("Annotate did not warn as for a closed loop: %q", step.Warnings)
	}
	annotateOpen(step, n)
	if len(step.Warnings) != 1 || step.Warnings[0] != "earlier" || step.LittlesLaw == nil || !step.LittlesLaw.OK || step.LittlesLaw.ExpectedInFlight != 5 {
		t.Errorf("warnings %q, Little's law %+v", step.Warnings, step.LittlesLaw)
	}
	if step.Bound != BoundClient || !strings.Contains(step.BoundReason, "arrival schedule") {
		t.Errorf("bound %q: %s", step.Bound, step.BoundReason)
	}
	// A closed-loop step is left alone.
	closed := &results.StepResult{Bound: BoundServer, Warnings: []string{"w"}}
	annotateOpen(closed, 0)
	if closed.Bound != BoundServer || len(closed.Warnings) != 1 {
		t.Errorf("closed-loop step changed: %+v", closed)
	}
}
