package plan

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

func TestParseLevels(t *testing.T) {
	tests := []struct {
		in      string
		want    []int
		wantErr string
	}{
		{"64,128,256,500,1000", []int{64, 128, 256, 500, 1000}, ""},                     // the seeds' list
		{"1..256x2", []int{1, 2, 4, 8, 16, 32, 64, 128, 256}, ""},                       // geometric range, inclusive end
		{"100..1000+100", []int{100, 200, 300, 400, 500, 600, 700, 800, 900, 1000}, ""}, // linear range
		{"1..1+01e308", []int{1}, ""},                                                   // one level: a step too large for an int never reaches the loop (it hung)
		{"5..5x1e300", []int{5}, ""},                                                    // one level, geometric
		{"1..8x2,10..30+10,1000", []int{1, 2, 4, 8, 10, 20, 30, 1000}, ""},              // a mix of all three
		{"256,64,64,128", []int{64, 128, 256}, ""},                                      // sorted and de-duplicated
		{"10..100x3", []int{10, 30, 90}, ""},                                            // end not on the grid: stop before it
		{"1..10x1.5", []int{1, 2, 3, 5, 8}, ""},                                         // fractional factor, rounded
		{" 8 , 16 ", []int{8, 16}, ""},                                                  // spaces are tolerated
		{"", nil, "empty list"},                                                         // empty
		{"64,,128", nil, "empty element"},                                               // empty element
		{"0", nil, "at least 1"},                                                        // zero
		{"-4", nil, "at least 1"},                                                       // negative
		{"64..abc", nil, "a range needs a step"},                                        // no step, not a number
		{"64..abcx2", nil, `"abc" is not a whole number`},                               // bad end
		{"1..256x1", nil, "never reaches"},                                              // geometric range that never ends
		{"1..256x0.5", nil, "never reaches"},                                            // shrinking range
		{"100..1000+0", nil, "never reaches"},                                           // linear range that never ends
		{"100..1000+2.5", nil, "never reaches"},                                         // fractional linear step
		{"256..1x2", nil, "below where it starts"},                                      // backwards
		{"200000", nil, "larger than"},                                                  // beyond the limit
		{"1..100000+1", nil, "more than 1000 levels"},                                   // absurdly many steps
		{"sixty", nil, "not a whole number"},                                            // words
		// Hostile input: each is refused, none runs as one level.
		{"1..64xInf", nil, "not a finite number"},         // an infinite factor
		{"1..64x+Inf", nil, "not a finite number"},        // spelt with its sign
		{"1..64xNaN", nil, "not a finite number"},         // not a number
		{"1..64x1e309", nil, "not a finite number"},       // overflows to infinity
		{"100..1000+Inf", nil, "not a finite number"},     // an infinite linear step
		{"1..64x100", nil, "goes past 64 at once"},        // a factor that leaves one level
		{"100..1000+5000", nil, "goes past 1000 at once"}, // a step that leaves one level
		{"1..64x1.0000000001", nil, "too close to 1"},     // billions of steps
		{"9223372036854775808", nil, "larger than"},       // 2^63
		{"18446744073709551615", nil, "larger than"},      // 2^64-1
		{"1..9223372036854775807+1", nil, "larger than"},  // an end past every bound
		{"8\x00", nil, "not a whole number"},              // a NUL
		{"1..64x2\x1b[2J", nil, "not a finite number"},    // an escape sequence
		{"8..8x1000", []int{8}, ""},                       // a range of one level takes any factor
		{"1..64x64", []int{1, 64}, ""},                    // a factor of the whole span: both ends
		{"1..100000x1.0001", nil, "too close to 1"},       // close to 1: 115,000 steps
	}
	for _, tt := range tests {
		got, err := ParseLevels(tt.in, MaxConcurrency)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseLevels(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseLevels(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

func TestParseSpan(t *testing.T) {
	tests := []struct {
		in      string
		lo, hi  int
		wantErr string
	}{
		{"1..256", 1, 256, ""},                // a search's span: no step, the search sets its grid
		{"1..256x2", 1, 256, ""},              // a geometric range spans its ends
		{"64,128,256,500,1000", 64, 1000, ""}, // a list spans its lowest and highest
		{"8..64,500", 8, 500, ""},             // a stepless range in a mix
		{"100..1000+300", 100, 1000, ""},      // a linear range's last level is its end here
		{" 4 .. 32 ", 4, 32, ""},              // spaces are tolerated
		{"16..16", 16, 16, ""},                // one level: the search refuses it, with its own words
		{"256..1", 0, 0, "below where it starts"},
		{"1..abc", 0, 0, `"abc" is not a whole number`},
		{"0..64", 0, 0, "at least 1"},
		{"1..2000000", 0, 0, "larger than"},
		{"", 0, 0, "empty list"},
	}
	for _, tt := range tests {
		lo, hi, err := ParseSpan(tt.in, MaxConcurrency)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseSpan(%q) error = %v, want containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || lo != tt.lo || hi != tt.hi {
			t.Errorf("ParseSpan(%q) = %d, %d, %v; want %d, %d", tt.in, lo, hi, err, tt.lo, tt.hi)
		}
	}
}

func TestParsePool(t *testing.T) {
	if p, err := ParsePool("match"); err != nil || !p.Match {
		t.Fatalf("match: %+v %v", p, err)
	}
	if p, err := ParsePool("16,64"); err != nil || p.Match || !reflect.DeepEqual(p.Sizes, []int{16, 64}) {
		t.Fatalf("16,64: %+v %v", p, err)
	}
	// the limit: pool larger than 100000 is refused
	if _, err := ParsePool("100001"); err == nil || !strings.Contains(err.Error(), "larger than 100000") {
		t.Fatalf("100001: %v", err)
	}
}

func TestPlanValidate(t *testing.T) {
	ok := Plan{Concurrency: []int{1}, Pool: PoolPlan{Match: true}, Clients: 1, Trials: 1, Duration: time.Second, OpTimeout: time.Second}
	tests := []struct {
		name    string
		mutate  func(*Plan)
		wantErr string
	}{
		{"valid plan", func(*Plan) {}, ""},
		{"zero clients", func(p *Plan) { p.Clients = 0 }, "--clients"},
		{"zero trials", func(p *Plan) { p.Trials = 0 }, "--trials"},
		{"zero duration", func(p *Plan) { p.Duration = 0 }, "--duration"},
		{"negative warmup", func(p *Plan) { p.Warmup = -time.Second }, "--warmup"},
		{"zero op timeout", func(p *Plan) { p.OpTimeout = 0 }, "--op-timeout"},
		{"bad order", func(p *Plan) { p.Order = "random" }, "--order"},
		{"match with huge concurrency", func(p *Plan) { p.Concurrency = []int{MaxPoolSize + 1} }, "--pool match"},
		{"a billion steps", func(p *Plan) {
			p.Concurrency = make([]int, 1000)
			for i := range p.Concurrency {
				p.Concurrency[i] = i + 1
			}
			p.Pool = PoolPlan{Sizes: p.Concurrency}
			p.Trials = 1000
		}, "steps per target"},
		{"too many workers", func(p *Plan) { p.Concurrency = []int{100000}; p.Clients = 3 }, "workers"},
		// Every target's own list is checked, and the error names it.
		{"own levels: workers of the largest", func(p *Plan) {
			p.SetTargetLevels(map[string][]int{"a": {1, 2}, "b": {8, 100000}})
			p.Clients = 3
		}, "--concurrency b=… and --clients: 300000 workers"},
		{"own levels: match past the pool bound", func(p *Plan) {
			p.SetTargetLevels(map[string][]int{"a": {1}, "b": {MaxPoolSize + 1}})
		}, "--pool match: concurrency 100001"},
		{"own levels: steps per target", func(p *Plan) {
			long := make([]int, 1000)
			for i := range long {
				long[i] = i + 1
			}
			p.SetTargetLevels(map[string][]int{"a": {1}, "b": long})
			p.Pool = PoolPlan{Sizes: long}
		}, "--concurrency b=…, --pool and --trials: 1000000 steps per target"},
		{"own levels: an empty list", func(p *Plan) { p.TargetConcurrency = map[string][]int{"a": {1}, "b": nil} }, "--concurrency b=…: empty list"},
		{"own levels: with a search", func(p *Plan) {
			p.SetTargetLevels(map[string][]int{"a": {1, 2}})
			p.Search = &results.SearchPlan{Mode: results.SearchKnee, Resolution: 2, Levels: []int{1, 2}}
		}, "--concurrency NAME=LIST: levels per target make a grid"},
		{"own levels: valid", func(p *Plan) { p.SetTargetLevels(map[string][]int{"a": {1, 2}, "b": {4}}) }, ""},
	}
	for _, tt := range tests {
		p := ok
		tt.mutate(&p)
		err := p.Validate()
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestPlanSteps(t *testing.T) {
	p := Plan{Concurrency: []int{8, 16}, Pool: PoolPlan{Sizes: []int{4, 32}}, Clients: 3, Trials: 2}
	steps := p.Steps([]string{"a", "b"}, []string{"read"})
	// 2 targets × 2 trials × 2 concurrency × 2 pools
	if len(steps) != 16 {
		t.Fatalf("got %d steps, want 16", len(steps))
	}
	// sequential: all of a before b; trials outermost within a target
	if steps[0].Target != "a" || steps[7].Target != "a" || steps[8].Target != "b" {
		t.Errorf("sequential order wrong: %+v", steps[:9])
	}
	if steps[3].Trial != 1 || steps[4].Trial != 2 {
		t.Errorf("trial should be the outer loop: %+v", steps[:5])
	}
	if steps[1].MaxPoolSize != 32 || steps[1].PoolSetting != "32" || steps[1].Clients != 3 {
		t.Errorf("grid step wrong: %+v", steps[1])
	}
	p.Order = OrderInterleaved
	steps = p.Steps([]string{"a", "b"}, []string{"read"})
	for i := 0; i < len(steps); i += 2 {
		if steps[i].Target != "a" || steps[i+1].Target != "b" || steps[i].Key()[1:] != steps[i+1].Key()[1:] {
			t.Fatalf("interleaved order must alternate a b on the same step: %+v %+v", steps[i], steps[i+1])
		}
	}
	for i, s := range steps {
		if s.Index != i {
			t.Fatalf("step %d has Index %d", i, s.Index)
		}
	}
	// match pools: one pool per level, setting "match"
	m := Plan{Concurrency: []int{8, 16}, Pool: PoolPlan{Match: true}, Clients: 1, Trials: 1}.Steps([]string{"t"}, []string{"w1", "w2"})
	if len(m) != 4 || m[1].MaxPoolSize != 16 || m[1].PoolSetting != "match" || m[2].Workload != "w2" {
		t.Errorf("match steps wrong: %+v", m)
	}
}

// TestPlanStepsOwnLevels: targets of different levels each get their own
// grid, in both orders; interleaved, they take turns by position in
// their grids, and the one with fewer points ends its part of each trial
// earlier.
func TestPlanStepsOwnLevels(t *testing.T) {
	targets := []string{"standalone", "sharded"}
	base := Plan{Pool: PoolPlan{Match: true}, Clients: 3, Trials: 2}
	base.SetTargetLevels(map[string][]int{"standalone": {64, 500, 1000}, "sharded": {32, 64, 128, 300}})
	tests := []struct {
		name  string
		order string
		pools []int
		want  string // target@C/P trial, in order
	}{
		{"sequential: each target its own grid, trials outer", OrderSequential, nil,
			"standalone@64/64#1 standalone@500/500#1 standalone@1000/1000#1 standalone@64/64#2 standalone@500/500#2 standalone@1000/1000#2 " +
				"sharded@32/32#1 sharded@64/64#1 sharded@128/128#1 sharded@300/300#1 sharded@32/32#2 sharded@64/64#2 sharded@128/128#2 sharded@300/300#2"},
		{"interleaved: by position, the shorter grid ends first", OrderInterleaved, nil,
			"standalone@64/64#1 sharded@32/32#1 standalone@500/500#1 sharded@64/64#1 standalone@1000/1000#1 sharded@128/128#1 sharded@300/300#1 " +
				"standalone@64/64#2 sharded@32/32#2 standalone@500/500#2 sharded@64/64#2 standalone@1000/1000#2 sharded@128/128#2 sharded@300/300#2"},
		{"interleaved with pool sizes: positions in the level × pool grid", OrderInterleaved, []int{16},
			"standalone@64/16#1 sharded@32/16#1 standalone@500/16#1 sharded@64/16#1 standalone@1000/16#1 sharded@128/16#1 sharded@300/16#1 " +
				"standalone@64/16#2 sharded@32/16#2 standalone@500/16#2 sharded@64/16#2 standalone@1000/16#2 sharded@128/16#2 sharded@300/16#2"},
	}
	for _, tt := range tests {
		p := base
		p.Order = tt.order
		if tt.pools != nil {
			p.Pool = PoolPlan{Sizes: tt.pools}
		}
		var got []string
		for i, sp := range p.Steps(targets, []string{"api"}) {
			if sp.Index != i || sp.Clients != 3 {
				t.Fatalf("%s: step %d: %+v", tt.name, i, sp)
			}
			got = append(got, fmt.Sprintf("%s@%d/%d#%d", sp.Target, sp.Concurrency, sp.MaxPoolSize, sp.Trial))
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, g, tt.want)
		}
		if n := p.SeriesSteps(targets); n != len(got) {
			t.Errorf("%s: SeriesSteps %d, laid out %d", tt.name, n, len(got))
		}
	}
	// A target without a list of its own takes the plan's.
	if l := base.Levels("other"); !reflect.DeepEqual(l, []int{32, 64, 128, 300, 500, 1000}) || base.MaxLevel() != 1000 {
		t.Errorf("levels of another target %v, largest %d", l, base.MaxLevel())
	}
}
