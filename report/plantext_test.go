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
	if got := planText(p); !strings.HasPrefix(got, "concurrency sharded 32,64,128,300, standalone 64,500,1000; pool match; 3 client(s)") {
		t.Errorf("plan text %q", got)
	}
	p.TargetConcurrency = nil
	if got := planText(p); !strings.HasPrefix(got, "concurrency 32,64,128,300,500,1000; pool match") {
		t.Errorf("plan text %q", got)
	}
}
