package plan

import (
	"reflect"
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
		// Light clients: each below one call a second, the total one a second.
		{"rate below one a second per client", func(p *Plan) { p.Clients = 3; p.Rate = []int{2} }, ""},
		{"rate below one a second in all", func(p *Plan) { p.Rate = []int{0} }, "--rate"},
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

// A connection sweep: one total rate, the clients a list. Each rate and
// pool runs at every client level, the fewest first, within each trial;
// every step's key differs; the plan's Clients is the largest level, and
// the counts a plan's size rests on count every level.
func TestClientLevelsSteps(t *testing.T) {
	p := openPlan()
	p.Rate, p.Pool, p.MaxInFlight, p.Concurrency = []int{500}, PoolPlan{Sizes: []int{2}, Given: "2"}, 2, []int{2}
	p.SetClientLevels([]int{10, 100, 10000})
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	if p.Clients != 10000 {
		t.Errorf("Clients %d, want the largest level 10000", p.Clients)
	}
	steps := p.Steps([]string{"a"}, []string{"read"})
	var got []int
	keys := map[string]bool{}
	for _, s := range steps {
		got = append(got, s.Clients)
		keys[s.Key()] = true
		if s.Rate != 500 {
			t.Errorf("step %d: rate %d, want the fixed 500", s.Index, s.Rate)
		}
	}
	if want := []int{10, 100, 10000, 10, 100, 10000}; !reflect.DeepEqual(got, want) {
		t.Errorf("clients by step %v, want %v (levels rising within each of 2 trials)", got, want)
	}
	if len(keys) != len(steps) {
		t.Errorf("%d distinct keys for %d steps", len(keys), len(steps))
	}
	if n := p.SeriesSteps([]string{"a"}); n != len(steps) {
		t.Errorf("SeriesSteps %d, Steps %d", n, len(steps))
	}
	// One level is the plain plan: no list kept.
	q := openPlan()
	q.SetClientLevels([]int{7})
	if q.ClientLevels != nil || q.Clients != 7 {
		t.Errorf("one level: ClientLevels %v, Clients %d", q.ClientLevels, q.Clients)
	}
	// Bounds: the levels within 1..MaxClients, the largest the plan's own.
	bad := openPlan()
	bad.SetClientLevels([]int{10, MaxClients + 1})
	if err := bad.Validate(); err == nil || !strings.HasPrefix(err.Error(), "--clients") {
		t.Errorf("a level above %d: %v", MaxClients, err)
	}
	bad = openPlan()
	bad.ClientLevels, bad.Clients = []int{10, 20}, 30
	if err := bad.Validate(); err == nil || !strings.HasPrefix(err.Error(), "--clients") {
		t.Errorf("Clients not the largest level: %v", err)
	}
}
