package sweep

import (
	"slices"
	"strings"
	"testing"
)

// TestPlanChoice: a range without a step searches, a list or a range with
// a step keeps a grid, and the choice says why; the defaults (a search for
// a deployment, a grid where a search cannot run, for the embedded server
// and for simulators); a grid with auto windows takes its trials as a
// maximum, with fixed windows every trial.
func TestPlanChoice(t *testing.T) {
	t.Parallel()
	uri := []string{"--uri", "mongodb://h:27017/"}
	tests := []struct {
		name         string
		args         []string
		search       string // "" for a grid
		levels       []int  // a grid's levels, or a search's span's ends
		why          string
		trialsAtMost bool
	}{
		{"bare range", append(uri, "--concurrency", "1..256"), "knee", []int{1, 256}, "a range without a step was given (--concurrency 1..256): searching for the knee; give a list or MIN..MAXxSTEP for a grid", false},
		{"list", append(uri, "--concurrency", "1,4,16"), "", []int{1, 4, 16}, "a list was given (--concurrency 1,4,16)", false},
		{"stepped range", append(uri, "--concurrency", "1..64x2"), "", []int{1, 2, 4, 8, 16, 32, 64}, "a range with a step was given (--concurrency 1..64x2)", false},
		{"linear range", append(uri, "--concurrency", "100..300+100"), "", []int{100, 200, 300}, "a range with a step", false},
		{"pool range", append(uri, "--pool", "4..64"), "pool", []int{1, 1024}, "a range without a step was given (--pool 4..64): searching for the knee, then the pool size", false},
		{"deployment default", uri, "knee", []int{1, 1024}, "the default for a deployment is a search over 1..1024", false},
		{"deployment, interleaved", []string{"--target", "a=mongodb://a/", "--target", "b=mongodb://b/", "--order", "interleaved"}, "", []int{64, 128, 256, 500, 1000}, "interleaved targets take a grid", false},
		{"deployment, pool list", append(uri, "--pool", "16,64"), "", []int{64, 128, 256, 500, 1000}, "a list of pool sizes makes a grid", false},
		{"deployment, spawn", append(uri, "--spawn", "2"), "", []int{64, 128, 256, 500, 1000}, "several agents measure a grid", false},
		{"deployment, open loop", append(uri, "--rate", "1000,2000"), "", []int{100000}, "the open loop (--rate)", false},
		{"explicit search", append(uri, "--search", "knee", "--concurrency", "8..64x2"), "knee", []int{8, 64}, "--search knee was given", false},
		{"embedded default", nil, "", []int{1, 2, 4, 8, 16, 32}, "the embedded server's default is a grid", false},
		{"simulator default", []string{"--target", "s=sim:slots=8"}, "", []int{1, 2, 4, 8, 16, 32, 64, 128}, "simulator targets default to a grid", false},
		{"auto grid, 3 trials", append(uri, "--concurrency", "1..64x2", "--trials", "3"), "", []int{1, 2, 4, 8, 16, 32, 64}, "a range with a step", true},
		{"fixed grid, 3 trials", append(uri, "--concurrency", "1..64x2", "--trials", "3", "--duration", "5s"), "", []int{1, 2, 4, 8, 16, 32, 64}, "a range with a step", false},
		{"auto grid, interleaved", []string{"--target", "a=mongodb://a/", "--target", "b=mongodb://b/", "--order", "interleaved", "--concurrency", "1,2", "--trials", "3"}, "", []int{1, 2}, "a list was given", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseSweep(tt.args)
			if err != nil {
				t.Fatal(err)
			}
			p := cfg.plan
			switch {
			case tt.search == "" && (p.Search != nil || cfg.choice.search != ""):
				t.Errorf("a search %+v, want a grid", p.Search)
			case tt.search != "" && (p.Search == nil || p.Search.Mode != tt.search):
				t.Errorf("search %+v, want %s", p.Search, tt.search)
			case tt.search == "" && tt.name != "deployment, open loop" && !slices.Equal(p.Concurrency, tt.levels):
				t.Errorf("grid %v, want %v", p.Concurrency, tt.levels)
			case tt.search != "" && (p.Search.Levels[0] != tt.levels[0] || p.Search.Levels[len(p.Search.Levels)-1] != tt.levels[1]):
				t.Errorf("search levels %v, want %d..%d", p.Search.Levels, tt.levels[0], tt.levels[1])
			}
			if !strings.Contains(cfg.choice.why, tt.why) {
				t.Errorf("why %q, want it to say %q", cfg.choice.why, tt.why)
			}
			if p.TrialsAtMost() != tt.trialsAtMost {
				t.Errorf("trials at most %v, want %v (auto %+v, trials %d)", p.TrialsAtMost(), tt.trialsAtMost, p.Auto, p.Trials)
			}
		})
	}
}
