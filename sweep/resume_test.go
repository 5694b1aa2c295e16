package sweep

import (
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
)

// The header records the open-loop plan, and resuming with another rate
// list is refused by name.
func TestOpenPlanHeaderAndResume(t *testing.T) {
	p := plan.Plan{Concurrency: []int{100}, Pool: plan.PoolPlan{Sizes: []int{4, 16}, Given: "4,16"}, Clients: 1, Trials: 2,
		Duration: time.Second, OpTimeout: time.Second, Rate: []int{1000, 2000, 4000}, Arrivals: results.ArrivalsPoisson, MaxInFlight: 100}
	info := NewPlanInfo(p, 12)
	if len(info.Rate) != 3 || info.Arrivals != results.ArrivalsPoisson || info.MaxInFlight != 100 {
		t.Fatalf("plan info %+v", info)
	}
	w := workload.DefaultWorkload()
	h := newRunHeader("r", p, []workload.Workload{w}, []results.TargetHeader{{Name: "a"}}, 12)
	if err := checkResume(h, p, []workload.Workload{w}, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	q := p
	q.Rate = []int{1000}
	if err := checkResume(h, q, []workload.Workload{w}, []string{"a"}); err == nil || !strings.Contains(err.Error(), "--rate") {
		t.Errorf("resume with another rate list: %v", err)
	}
}
