package sweep

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/plan"
)

// TestNewCmdSweep table-tests what argv turns into — targets, plan,
// defaults per target kind, workloads — through the command's runF seam,
// without connecting anywhere.
func TestNewCmdSweep(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		wantErr string // a usage error naming this, or "" for success
		check   func(t *testing.T, cfg *sweepConfig)
	}{
		{
			// The README's main command: the embedded server's short plan.
			name: "no flags", args: nil,
			check: func(t *testing.T, cfg *sweepConfig) {
				if len(cfg.targets) != 1 || !cfg.targets[0].Embedded || cfg.targets[0].Name != "embedded" {
					t.Errorf("targets %+v", cfg.targets)
				}
				p := cfg.plan
				// Auto warm-ups and windows by default: Warmup and Duration are
				// their minimums; the embedded server's bounds keep the sweep
				// short, and one trial has its own interval.
				if !slices.Equal(p.Concurrency, []int{1, 2, 4, 8, 16, 32}) || p.Trials != 1 || p.Auto == nil || !p.Auto.Warmup || !p.Auto.Window ||
					p.Warmup != time.Second || p.Duration != 2*time.Second || !p.Pool.Match || p.Auto.MaxWarmupS != 10 || p.Auto.MaxDurationS != 15 {
					t.Errorf("plan %+v", p)
				}
				if cfg.workloads[0].Records != 1000 || cfg.workloads[0].Name != "read" {
					t.Errorf("workload %+v", cfg.workloads[0])
				}
			},
		},
		{
			// A deployment gets the fast path: a search for the knee over
			// 1..1024 with auto windows, at most 3 trials where they pay;
			// the target is named after its hosts, never its credentials.
			name: "uri", args: []string{"--uri", "mongodb://alice:s3cret@a:27017,b:27017/?replicaSet=rs0"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if cfg.targets[0].Name != "a:27017,b:27017" {
					t.Errorf("target name %q", cfg.targets[0].Name)
				}
				p := cfg.plan
				if s := p.Search; s == nil || s.Mode != "knee" || s.Levels[0] != 1 || s.Levels[len(s.Levels)-1] != 1024 || p.Trials != 3 || p.Auto == nil || p.Auto.MaxDurationS != 60 || p.Auto.PrecisionPct != 2 {
					t.Errorf("plan %+v search %+v", p, p.Search)
				}
				if !strings.Contains(cfg.choice.why, "the default for a deployment is a search over 1..1024") {
					t.Errorf("why %q", cfg.choice.why)
				}
				if cfg.workloads[0].Records != 10000 {
					t.Errorf("records %d", cfg.workloads[0].Records)
				}
			},
		},
		{
			// Simulators keep a short fixed warm-up; their window runs from
			// 3 s until ten independent batches of three call times give
			// ops/s to ±10% (2 min at most).
			name: "simulators", args: []string{"--target", "a=sim:slots=8,service=2ms", "--target", "b=sim:shards=3,slots=8"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if len(cfg.targets) != 2 || cfg.targets[1].SimSpec != "shards=3,slots=8" || cfg.plan.Concurrency[len(cfg.plan.Concurrency)-1] != 128 {
					t.Errorf("targets %+v plan %v", cfg.targets, cfg.plan.Concurrency)
				}
				if p, a := cfg.plan, cfg.plan.Auto; a == nil || a.Warmup || !a.Window || p.Warmup != time.Second || a.MinDurationS != 3 || a.MaxDurationS != 120 || a.PrecisionPct != 10 {
					t.Errorf("simulator plan: auto %+v, warm-up %s; want a fixed 1s warm-up and an auto window of 3s to 2m at 10%%", a, p.Warmup)
				}
			},
		},
		{
			name: "simulator asks for auto", args: []string{"--target", "a=sim:slots=8", "--duration", "auto", "--max-duration", "5s"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if p := cfg.plan; p.Auto == nil || !p.Auto.Window || p.Auto.Warmup || p.Auto.MaxDurationS != 5 || p.Warmup != time.Second {
					t.Errorf("plan %+v auto %+v; want an auto window of at most 5s after a fixed 1s warm-up", p, p.Auto)
				}
			},
		},
		{
			// Given flags win over every kind's defaults.
			name: "explicit plan", args: []string{"--uri", "mongodb://h/", "--concurrency", "8..64x2,100", "--pool", "16,64", "--clients", "3", "--trials", "5",
				"--warmup", "0s", "--duration", "2s", "--order", "interleaved", "--records", "500"},
			check: func(t *testing.T, cfg *sweepConfig) {
				p := cfg.plan
				if !slices.Equal(p.Concurrency, []int{8, 16, 32, 64, 100}) || p.Pool.Match || !slices.Equal(p.Pool.Sizes, []int{16, 64}) ||
					p.Clients != 3 || p.Trials != 5 || p.Warmup != 0 || p.Duration != 2*time.Second || p.Order != "interleaved" {
					t.Errorf("plan %+v", p)
				}
				if n := len(p.Steps([]string{"x"}, []string{"read"})); n != 5*2*5 {
					t.Errorf("%d steps, want 50", n)
				}
				if cfg.workloads[0].Records != 500 {
					t.Errorf("records %d", cfg.workloads[0].Records)
				}
			},
		},
		{
			name: "api workload", args: []string{"--uri", "mongodb://h/", "--workload", "api"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if w := cfg.workloads[0]; w.Name != "api" || w.OpsPerCall() != 3 {
					t.Errorf("workload %+v", w)
				}
			},
		},
		{
			name: "mixes", args: []string{"--uri", "mongodb://h/", "--mixes", "100:0:0,0:50:50"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if len(cfg.workloads) != 2 || cfg.workloads[0].Label == cfg.workloads[1].Label {
					t.Errorf("workloads %+v", cfg.workloads)
				}
			},
		},
		{
			// A YCSB file's shape and distribution, with its notes.
			name: "workload file", args: []string{"--uri", "mongodb://h/", "--workload-file", "../../testdata/workloada"},
			check: func(t *testing.T, cfg *sweepConfig) {
				w := cfg.workloads[0]
				if w.Distribution != "zipfian" || len(w.Mix) != 2 || w.Records != 1000 {
					t.Errorf("workload %+v", w)
				}
				if !strings.Contains(strings.Join(cfg.notes, "\n"), "operationcount") {
					t.Errorf("notes %q", cfg.notes)
				}
			},
		},
		{
			// Open loop: --rate gives the rate × pool grid; the pool
			// defaults to the driver's 100 (match needs a concurrency) and
			// max-in-flight is the plan's concurrency.
			name: "open loop defaults", args: []string{"--target", "a=sim:slots=8,service=2ms", "--rate", "1000,2000"},
			check: func(t *testing.T, cfg *sweepConfig) {
				p := cfg.plan
				if !slices.Equal(p.Rate, []int{1000, 2000}) || p.Arrivals != "uniform" || p.MaxInFlight != 5000 || !slices.Equal(p.Concurrency, []int{5000}) ||
					p.Pool.Match || !slices.Equal(p.Pool.Sizes, []int{100}) || p.Pool.Given != "100" {
					t.Errorf("plan %+v", p)
				}
				steps := p.Steps([]string{"a"}, []string{"read"})
				if len(steps) != 2 || steps[1].Rate != 2000 || steps[1].MaxPoolSize != 100 || steps[1].Concurrency != 5000 {
					t.Errorf("steps %+v", steps)
				}
			},
		},
		{
			name: "open loop explicit", args: []string{"--uri", "mongodb://h/", "--rate", "1000..4000x2", "--pool", "4,16", "--arrivals", "poisson",
				"--max-in-flight", "200", "--clients", "2", "--trials", "3"},
			check: func(t *testing.T, cfg *sweepConfig) {
				p := cfg.plan
				if !slices.Equal(p.Rate, []int{1000, 2000, 4000}) || p.Arrivals != "poisson" || p.MaxInFlight != 200 || p.Clients != 2 ||
					!slices.Equal(p.Pool.Sizes, []int{4, 16}) {
					t.Errorf("plan %+v", p)
				}
				if n := len(p.Steps([]string{"x"}, []string{"read"})); n != 3*2*3 {
					t.Errorf("%d steps, want 18", n)
				}
			},
		},
		{
			// A connection sweep: one total rate, many light clients, each
			// below one call a second; Clients is the largest level.
			name: "clients a list", args: []string{"--target", "a=sim:slots=8", "--rate", "500", "--clients", "10,100..1000x10", "--pool", "1", "--max-in-flight", "1"},
			check: func(t *testing.T, cfg *sweepConfig) {
				p := cfg.plan
				if !slices.Equal(p.ClientLevels, []int{10, 100, 1000}) || p.Clients != 1000 {
					t.Errorf("clients %v, largest %d", p.ClientLevels, p.Clients)
				}
				var got []int
				for _, s := range p.Steps([]string{"a"}, []string{"read"}) {
					got = append(got, s.Clients)
				}
				if want := slices.Repeat([]int{10, 100, 1000}, p.Trials); !slices.Equal(got, want) {
					t.Errorf("clients by step %v, want %v", got, want)
				}
			},
		},
		{name: "clients above the bound", args: []string{"--rate", "500", "--clients", "10,10001"}, wantErr: "--clients: 10001 is larger than 10000"},
		{name: "clients not a list", args: []string{"--clients", "10,,20"}, wantErr: "--clients: empty element"},
		{
			// The default calls in flight per client fit the process's bound
			// for the most clients; one given past it is refused.
			name: "clients a list, max in flight by default", args: []string{"--target", "a=sim:slots=8", "--rate", "500", "--clients", "10,2000", "--pool", "1"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if p := cfg.plan; p.MaxInFlight != plan.MaxWorkers/2000 || !slices.Equal(p.Concurrency, []int{p.MaxInFlight}) {
					t.Errorf("max in flight %d, concurrency %v", p.MaxInFlight, p.Concurrency)
				}
			},
		},
		{name: "clients a list, max in flight given", args: []string{"--rate", "500", "--clients", "10,100", "--max-in-flight", "5000"}, wantErr: "--max-in-flight: 5000 is not between 1 and 2000"},
		{name: "clients a list over agents", args: []string{"--target", "a=sim:slots=8", "--concurrency", "1", "--clients", "10,100", "--spawn", "2"},
			wantErr: "--clients: a list of client counts runs in one process"},
		{name: "rate and concurrency", args: []string{"--rate", "1000", "--concurrency", "8"}, wantErr: "--rate and --concurrency"},
		{name: "rate not a list", args: []string{"--rate", "fast"}, wantErr: "--rate"},
		{name: "rate zero", args: []string{"--rate", "0"}, wantErr: "--rate"},
		{name: "rate range without a step", args: []string{"--rate", "1000..2000"}, wantErr: "--rate"},
		{name: "arrivals unknown", args: []string{"--rate", "1000", "--arrivals", "bursty"}, wantErr: "--arrivals"},
		{name: "arrivals without rate", args: []string{"--arrivals", "poisson"}, wantErr: "--arrivals: only with --rate"},
		{name: "max in flight without rate", args: []string{"--max-in-flight", "10"}, wantErr: "--max-in-flight: only with --rate"},
		{name: "max in flight zero", args: []string{"--rate", "1000", "--max-in-flight", "0"}, wantErr: "--max-in-flight"},
		{name: "max in flight too many", args: []string{"--rate", "1000", "--max-in-flight", "300000"}, wantErr: "--max-in-flight"},
		{name: "open loop with pool match", args: []string{"--rate", "1000", "--pool", "match"}, wantErr: "--pool: match"},
		{
			// --search knee: the grid at ×√2 between the list's ends
			// replaces the list, and the levels that decide get 3 trials.
			name: "search knee", args: []string{"--target", "a=sim:slots=8,service=2ms", "--search", "knee"},
			check: func(t *testing.T, cfg *sweepConfig) {
				p := cfg.plan
				want := []int{1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128}
				if s := p.Search; s == nil || s.Mode != "knee" || s.Resolution != math.Sqrt2 || !slices.Equal(s.Levels, want) || s.BudgetS != 0 || s.SLOP99Ms != 0 {
					t.Errorf("search %+v", p.Search)
				}
				if !slices.Equal(p.Concurrency, want) || p.Trials != 3 || !p.Pool.Match {
					t.Errorf("plan %+v", p)
				}
			},
		},
		{
			// --search pool with a budget, an SLO, its own resolution and trials.
			name: "search pool", args: []string{"--uri", "mongodb://h/", "--search", "pool", "--concurrency", "64..1000x2", "--resolution", "2",
				"--budget", "20m", "--slo-p99", "50ms", "--trials", "5"},
			check: func(t *testing.T, cfg *sweepConfig) {
				p := cfg.plan
				if s := p.Search; s == nil || s.Mode != "pool" || s.Resolution != 2 || !slices.Equal(s.Levels, []int{64, 128, 256, 512}) || s.BudgetS != 1200 || s.SLOP99Ms != 50 {
					t.Errorf("search %+v", p.Search)
				}
				if p.Trials != 5 {
					t.Errorf("trials %d", p.Trials)
				}
			},
		},
		{
			// A search sets its own grid: a range without a step is its
			// span (--concurrency), and with --search pool the sizes its
			// pool search tries (--pool); the knee is measured at match.
			name: "search: MIN..MAX", args: []string{"--uri", "mongodb://h/", "--search", "pool", "--concurrency", "1..256", "--pool", "4..64"},
			check: func(t *testing.T, cfg *sweepConfig) {
				s := cfg.plan.Search
				if s == nil || s.Levels[0] != 1 || s.Levels[len(s.Levels)-1] != 256 || s.PoolMin != 4 || s.PoolMax != 64 || !cfg.plan.Pool.Match {
					t.Errorf("search %+v, pool %+v", s, cfg.plan.Pool)
				}
			},
		},
		{
			name: "search knee: MIN..MAX", args: []string{"--uri", "mongodb://h/", "--search", "knee", "--concurrency", "8..512"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if s := cfg.plan.Search; s == nil || s.Levels[0] != 8 || s.Levels[len(s.Levels)-1] != 512 || s.PoolMin != 0 {
					t.Errorf("search %+v", s)
				}
			},
		},
		{name: "search: MIN..MAX backwards", args: []string{"--search", "knee", "--concurrency", "256..1"}, wantErr: "--concurrency: 256..1: the range ends (1) below"},
		{name: "search knee: pool range", args: []string{"--search", "knee", "--pool", "1..256"}, wantErr: "--pool: --search knee measures pool match"},
		{name: "search pool: bad pool range", args: []string{"--search", "pool", "--pool", "1..0"}, wantErr: "--pool: 1..0"},
		{name: "search pool: pool list", args: []string{"--search", "pool", "--pool", "8,16"}, wantErr: "--pool: 8,16: --search pool tries sizes of its own"},
		{name: "search pool: stepped pool range", args: []string{"--search", "pool", "--pool", "8..64x2"}, wantErr: "give the range it may try them in, MIN..MAX"},
		{name: "grid: a mix needs its steps", args: []string{"--concurrency", "1..8x2,abc"}, wantErr: `--concurrency: "abc" is not a whole number`},
		{name: "search: unknown mode", args: []string{"--search", "fast"}, wantErr: `--search: "fast" is not knee or pool`},
		{name: "search: one level", args: []string{"--search", "knee", "--concurrency", "64"}, wantErr: "--concurrency: --search needs a range"},
		{name: "search: pool list", args: []string{"--search", "knee", "--pool", "16,64"}, wantErr: "--pool: --search knee measures pool match"},
		{name: "search: interleaved", args: []string{"--search", "knee", "--order", "interleaved"}, wantErr: "--order interleaved"},
		{name: "search: resolution 1", args: []string{"--search", "knee", "--resolution", "1"}, wantErr: "--resolution: 1 is not between 1.05 and 4"},
		{name: "search: resolution 8", args: []string{"--search", "knee", "--resolution", "8"}, wantErr: "--resolution: 8 is not between"},
		{name: "search: resolution text", args: []string{"--search", "knee", "--resolution", "fine"}, wantErr: "--resolution: \"fine\" is not a number"},
		{
			// A range narrower than one step of the grid still has its two ends.
			name: "search: narrow range", args: []string{"--search", "knee", "--concurrency", "8,9", "--resolution", "x4"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if s := cfg.plan.Search; s == nil || !slices.Equal(s.Levels, []int{8, 9}) || s.Resolution != 4 {
					t.Errorf("search %+v", s)
				}
			},
		},
		{name: "search: budget zero", args: []string{"--search", "knee", "--budget", "0s"}, wantErr: "--budget: 0s is not between"},
		{name: "search: budget too long", args: []string{"--search", "knee", "--budget", "200h"}, wantErr: "--budget: 200h is not between 1s and 168h"},
		{name: "search: budget under two steps", args: []string{"--search", "knee", "--budget", "5s"}, wantErr: "--budget: 5s does not fit two steps"},
		{name: "search with rate", args: []string{"--search", "knee", "--rate", "1000", "--pool", "16"}, wantErr: "--search: it searches concurrency in the closed loop"},
		{name: "budget without search", args: []string{"--budget", "20m"}, wantErr: "--budget: only with --search"},
		{name: "resolution without search", args: []string{"--resolution", "2"}, wantErr: "--resolution: only with --search"},
		{name: "slo-p99 with knee", args: []string{"--search", "knee", "--slo-p99", "20ms"}, wantErr: "--slo-p99: only with --search pool"},
		{name: "slo-p99 negative", args: []string{"--search", "pool", "--slo-p99", "-1ms"}, wantErr: "--slo-p99: -1ms is not between"},
		{name: "uri and target", args: []string{"--uri", "mongodb://h/", "--target", "a=mongodb://g/"}, wantErr: "--uri and --target"},
		{name: "window too short", args: []string{"--duration", "1ns"}, wantErr: "--duration"},
		{name: "mixed without mix", args: []string{"--workload", "mixed"}, wantErr: "needs --mix"},
		{name: "bad range", args: []string{"--concurrency", "1..8x1"}, wantErr: "--concurrency"},
		{name: "two ways to say the workload", args: []string{"--workload", "api", "--mixes", "100:0:0"}, wantErr: "choose one way"},
		{
			// Seed 003's plan in one run: each deployment at the levels
			// the seed measured it at; the header's concurrency is their
			// union, and each target's steps are its own.
			name: "levels per target", args: []string{"--target", "standalone=sim:slots=8", "--target", "sharded=sim:shards=3,slots=8",
				"--concurrency", "standalone=64,500,1000", "--concurrency", "sharded=32..128x2,300", "--clients", "3", "--workload", "api"},
			check: func(t *testing.T, cfg *sweepConfig) {
				p := cfg.plan
				if !slices.Equal(p.Levels("standalone"), []int{64, 500, 1000}) || !slices.Equal(p.Levels("sharded"), []int{32, 64, 128, 300}) ||
					!slices.Equal(p.Concurrency, []int{32, 64, 128, 300, 500, 1000}) {
					t.Errorf("levels: standalone %v, sharded %v, all %v", p.Levels("standalone"), p.Levels("sharded"), p.Concurrency)
				}
				var got []string
				for _, sp := range p.Steps([]string{"standalone", "sharded"}, []string{"api"}) {
					got = append(got, sp.Target+"@"+strconv.Itoa(sp.Concurrency))
				}
				want := []string{"standalone@64", "standalone@500", "standalone@1000", "sharded@32", "sharded@64", "sharded@128", "sharded@300"}
				if !slices.Equal(got, want) {
					t.Errorf("steps %v, want %v", got, want)
				}
				if !strings.Contains(cfg.choice.why, "each target at its own levels") || cfg.choice.search != "" {
					t.Errorf("choice %+v", cfg.choice)
				}
			},
		},
		{
			// A bare list is the levels of the targets not named.
			name: "levels per target and for the rest", args: []string{"--target", "a=sim:slots=8", "--target", "b=sim:slots=8", "--target", "c=sim:slots=8",
				"--concurrency", "b=3,5", "--concurrency", "1..8x2"},
			check: func(t *testing.T, cfg *sweepConfig) {
				p := cfg.plan
				if !slices.Equal(p.Levels("a"), []int{1, 2, 4, 8}) || !slices.Equal(p.Levels("b"), []int{3, 5}) || !slices.Equal(p.Levels("c"), []int{1, 2, 4, 8}) {
					t.Errorf("levels: a %v, b %v, c %v", p.Levels("a"), p.Levels("b"), p.Levels("c"))
				}
				if !strings.Contains(cfg.choice.why, "a, c at 1,2,4,8") {
					t.Errorf("why %q", cfg.choice.why)
				}
			},
		},
		{
			// Without a bare list the others keep the kind's default grid
			// (a deployment's, since levels of one's own make a grid).
			name: "levels per target, the rest at the default", args: []string{"--target", "a=mongodb://h/", "--target", "b=mongodb://g/", "--concurrency", "a=8,16"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if p := cfg.plan; p.Search != nil || !slices.Equal(p.Levels("b"), []int{64, 128, 256, 500, 1000}) || !slices.Equal(p.Levels("a"), []int{8, 16}) {
					t.Errorf("plan %+v", p)
				}
			},
		},
		{name: "levels per target: no such target", args: []string{"--target", "a=sim:slots=8", "--concurrency", "b=1,2"}, wantErr: "--concurrency b=…: no target is named b (the targets: a)"},
		{name: "levels per target: a name twice", args: []string{"--target", "a=sim:slots=8", "--concurrency", "a=1,2", "--concurrency", "a=4"}, wantErr: "--concurrency: target a: its levels are given twice"},
		{
			// The bare list is a one-value flag's: the last one given wins,
			// beside the targets' own.
			name: "levels per target: the last bare list", args: []string{"--target", "a=sim:slots=8", "--target", "b=sim:slots=8",
				"--concurrency", "1,2", "--concurrency", "b=3", "--concurrency", "4"},
			check: func(t *testing.T, cfg *sweepConfig) {
				if p := cfg.plan; !slices.Equal(p.Levels("a"), []int{4}) || !slices.Equal(p.Levels("b"), []int{3}) {
					t.Errorf("levels: a %v, b %v", p.Levels("a"), p.Levels("b"))
				}
			},
		},
		{name: "levels per target: not a name", args: []string{"--concurrency", "a b=1,2"}, wantErr: "--concurrency: target name"},
		{name: "levels per target: empty list", args: []string{"--concurrency", "a="}, wantErr: "--concurrency: target a: an empty value"},
		{name: "levels per target: out of range", args: []string{"--concurrency", "a=0,2"}, wantErr: "--concurrency: target a: 0: must be at least 1"},
		{name: "levels per target: no step", args: []string{"--target", "a=sim:slots=8", "--concurrency", "a=1..64"}, wantErr: `--concurrency: target a: "1..64": a range needs a step`},
		{name: "levels per target: search", args: []string{"--target", "a=mongodb://h/", "--concurrency", "a=1,2", "--search", "knee"}, wantErr: "--concurrency NAME=LIST and --search"},
		{name: "levels per target: bare range", args: []string{"--target", "a=mongodb://h/", "--target", "b=mongodb://g/", "--concurrency", "a=1,2", "--concurrency", "1..64"},
			wantErr: "--concurrency NAME=LIST: --concurrency 1..64 has no step, which asks for a search"},
		{name: "levels per target: open loop", args: []string{"--target", "a=sim:slots=8", "--concurrency", "a=1,2", "--rate", "100"}, wantErr: "--rate and --concurrency"},
		{name: "levels per target: a list for none", args: []string{"--target", "a=sim:slots=8", "--concurrency", "a=1,2", "--concurrency", "4"}, wantErr: "--concurrency 4: every target has levels of its own"},
		{name: "levels per target: workers past the bound", args: []string{"--target", "a=sim:slots=8", "--target", "b=sim:slots=8", "--concurrency", "a=1,2", "--concurrency", "b=100000", "--clients", "3"},
			wantErr: "--concurrency b=… and --clients: 300000 workers"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseSweep(tt.args)
			if tt.wantErr != "" {
				var u errext.UsageError
				if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want a usage error naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, cfg)
		})
	}
}

// parseSweep is what sweep args turn into, parsed and validated through the
// command's runF seam: flags refused as they are parsed (their declared
// ranges) and refused by validate both come back as the usage error.
func parseSweep(args []string) (*sweepConfig, error) {
	_, cfg, err := parseSweepOptions(args)
	return cfg, err
}
