package plan

import (
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

func openPlan() Plan {
	return Plan{Concurrency: []int{100}, Pool: PoolPlan{Sizes: []int{4, 16}, Given: "4,16"}, Clients: 1, Trials: 2,
		Duration: time.Second, OpTimeout: time.Second, Rate: []int{1000, 2000, 4000}, Arrivals: results.ArrivalsPoisson, MaxInFlight: 100}
}

// An open-loop plan is rate × pool × trials, trials outer and the rate
// rising within a trial; every step carries its rate and arrival process,
// and its key differs from every other step's (resume tells them apart).
func TestOpenPlanSteps(t *testing.T) {
	p := openPlan()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	steps := p.Steps([]string{"a"}, []string{"read"})
	if len(steps) != 3*2*2 {
		t.Fatalf("%d steps, want 12", len(steps))
	}
	first := steps[0]
	if first.Rate != 1000 || first.MaxPoolSize != 4 || first.PoolSetting != "4" || first.Concurrency != 100 || first.Arrivals != results.ArrivalsPoisson || first.Trial != 1 {
		t.Errorf("first step %+v", first)
	}
	if s := steps[5]; s.Rate != 4000 || s.MaxPoolSize != 16 || s.Trial != 1 {
		t.Errorf("sixth step %+v", s)
	}
	keys := map[string]bool{}
	for _, s := range steps {
		keys[s.Key()] = true
	}
	if len(keys) != len(steps) {
		t.Errorf("%d distinct keys for %d steps", len(keys), len(steps))
	}
	// A finished step's key matches its spec's; closed-loop keys are as
	// they were (no rate part).
	r := results.StepResult{Target: "a", Workload: "read", PoolSetting: "4", Concurrency: 100, Clients: 1, Trial: 1, Rate: 1000}
	if r.Key() != first.Key() {
		t.Errorf("result key %q, spec key %q", r.Key(), first.Key())
	}
	if k := (StepSpec{Target: "a", Workload: "read", PoolSetting: "4", Concurrency: 8, Clients: 1, Trial: 1}).Key(); k != "a|read|8|4|1|1" {
		t.Errorf("closed-loop key %q has a rate part", k)
	}
}

func TestOpenPlanValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Plan)
		want   string // "" = valid
	}{
		{"valid", func(*Plan) {}, ""},
		{"match pool", func(p *Plan) { p.Pool = PoolPlan{Match: true, Given: "match"} }, "--pool: match"},
		{"arrivals", func(p *Plan) { p.Arrivals = "bursty" }, "--arrivals"},
		{"no max in flight", func(p *Plan) { p.MaxInFlight, p.Concurrency = 0, []int{0} }, "--max-in-flight"},
		{"max in flight over the process bound", func(p *Plan) { p.Clients = 4; p.MaxInFlight = MaxWorkers; p.Concurrency = []int{MaxWorkers} }, "--max-in-flight"},
		{"concurrency not max in flight", func(p *Plan) { p.Concurrency = []int{8, 16} }, "--max-in-flight"},
		{"rate above the bound", func(p *Plan) { p.Rate = []int{MaxRate + 1} }, "--rate"},
		{"rate below one a second per client", func(p *Plan) { p.Clients = 3; p.Rate = []int{2} }, "--rate"},
		{"closed loop ignores the open fields", func(p *Plan) { p.Rate = nil; p.Arrivals = "" }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := openPlan()
			tt.change(&p)
			err := p.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("err %v, want one starting %q", err, tt.want)
			}
		})
	}
}
