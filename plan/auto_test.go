package plan

import (
	"strings"
	"testing"
	"time"
)

// TestValidateAuto: each bad combination of auto settings is refused
// naming its flag; a good one passes.
func TestValidateAuto(t *testing.T) {
	base := func() Plan {
		return Plan{Concurrency: []int{1, 2}, Pool: PoolPlan{Match: true}, Clients: 1, Trials: 1, Warmup: time.Second, Duration: 2 * time.Second, OpTimeout: time.Second,
			Auto: NewAutoPlan(true, true, time.Second, time.Minute, 2*time.Second, time.Minute, 2, 1000)}
	}
	tests := []struct {
		name string
		edit func(p *Plan)
		want string // "" for valid
	}{
		{"defaults", func(*Plan) {}, ""},
		{"open loop", func(p *Plan) {
			p.Rate, p.Concurrency, p.Pool = []int{100}, []int{100}, PoolPlan{Sizes: []int{4}, Given: "4"}
			p.Arrivals, p.MaxInFlight = "uniform", 100
		}, ""}, // the open loop ends its windows from the data too

		{"max warm-up below min", func(p *Plan) { p.Auto.MaxWarmupS = 0.5 }, "--max-warmup"},
		{"max window below min", func(p *Plan) { p.Auto.MaxDurationS = 1 }, "--max-duration"},
		{"precision 0", func(p *Plan) { p.Auto.PrecisionPct = 0 }, "--precision"},
		{"another batch length", func(p *Plan) { p.Auto.BatchS = 0.05 }, "batches of 0.05s"},
		{"only the window auto", func(p *Plan) { p.Auto = NewAutoPlan(false, true, 0, 0, time.Second, 5*time.Second, 5, 0) }, ""},
		{"neither is nil", func(p *Plan) { p.Auto = NewAutoPlan(false, false, 0, 0, 0, 0, 0, 0) }, ""},
	}
	for _, tt := range tests {
		p := base()
		tt.edit(&p)
		err := p.Validate()
		if (tt.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
}

// TestLongestStep: the longest a step may take is the fixed lengths, or
// an auto phase at its maximum, never its minimum (which Warmup and
// Duration hold with auto lengths).
func TestLongestStep(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		name       string
		warm, win  bool
		want       time.Duration
		wantLowest time.Duration
	}{
		{"fixed lengths: warm-up + window", false, false, 10*s + 30*s, 10*s + 30*s},
		{"auto warm-up: its maximum, the fixed window", true, false, 60*s + 30*s, AutoWarmupMin + 30*s},
		{"auto window: the fixed warm-up, its maximum", false, true, 10*s + 120*s, 10*s + 30*s},
		{"both auto: both maximums", true, true, 60*s + 120*s, AutoWarmupMin + 30*s},
	} {
		p := Plan{Warmup: 10 * s, Duration: 30 * s, Auto: NewAutoPlan(tc.warm, tc.win, 2*s, 60*s, 30*s, 120*s, 2, 1000)}
		if tc.warm {
			p.Warmup = 2 * s // the CLI sets the minimum here
		}
		lo, _ := p.StepLengths()
		if got := p.LongestStep(); got != tc.want || lo != tc.wantLowest {
			t.Errorf("%s: longest %s, shortest %s; want %s and %s", tc.name, got, lo, tc.want, tc.wantLowest)
		}
	}
}
