package search

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// curve is a synthetic deployment: throughput at concurrency c with pool
// p (p = c for match), before noise.
type curve func(c, p int) float64

// model is a curve with its noise, per-step wall time and p99.
type model struct {
	curve curve
	noise float64       // relative, Gaussian
	cost  time.Duration // wall time of a step
}

// measure is one step of the model. Its noise depends only on the step's
// key (target, concurrency, pool, trial), so the search's steps are a
// subset of the full grid's, with the same values: the two analyses
// differ only in what was measured.
func (m model) measure(sp plan.StepSpec) results.StepResult {
	h := fnv.New64a()
	h.Write([]byte(sp.Key()))
	rng := rand.New(rand.NewPCG(h.Sum64(), 1))
	q := m.curve(sp.Concurrency, sp.MaxPoolSize) * (1 + m.noise*rng.NormFloat64())
	// Little's law gives the latency; p99 twice the mean.
	mean := 1000 * float64(sp.Concurrency) / q
	cost := m.cost
	if cost == 0 {
		cost = 5 * time.Second
	}
	return results.StepResult{Kind: results.KindStep, Target: sp.Target, Workload: sp.Workload, PoolSetting: sp.PoolSetting,
		Concurrency: sp.Concurrency, MaxPoolSize: sp.MaxPoolSize, Clients: sp.Clients, Trial: sp.Trial, DurationS: 3,
		Calls: int64(q * 3), Ops: int64(q * 3), CallsPerS: q, OpsPerS: q, Latency: results.LatencySummary{Mean: mean, P50: mean, P99: 2 * mean},
		Phases: &results.StepPhases{Window: cost.Seconds()}, Search: sp.Search}
}

// saturating is a knee at slots with a soft corner: peak·x/(1+x^4)^¼.
func saturating(peak float64, slots int) curve {
	return func(c, p int) float64 {
		x := float64(min(c, p)) / float64(slots)
		return peak * x / math.Pow(1+math.Pow(x, 4), 0.25)
	}
}

// connCost is the simulator's formula: min(C, slots)/(service + cost·C).
func connCost(slots int, service, perConn float64) curve {
	return func(c, p int) float64 {
		n := float64(min(c, p))
		return math.Min(n, float64(slots)) / (service + perConn*n)
	}
}

func usl(lambda, sigma, kappa float64) curve {
	return func(c, p int) float64 {
		n := float64(min(c, p))
		return lambda * n / (1 + sigma*(n-1) + kappa*n*(n-1))
	}
}

func newPlanner(t *testing.T, mode string, lo, hi, trials int, budget time.Duration, targets ...string) *Planner {
	t.Helper()
	levels, err := Levels(lo, hi, math.Sqrt2)
	if err != nil {
		t.Fatal(err)
	}
	if len(targets) == 0 {
		targets = []string{"t"}
	}
	var hs []results.TargetHeader
	for _, n := range targets {
		hs = append(hs, results.TargetHeader{Name: n, Topology: "standalone", Hosts: []string{"h:1"}})
	}
	plan := plan.Plan{Concurrency: levels, Pool: plan.PoolPlan{Match: true, Given: "match"}, Clients: 1, Trials: trials,
		Warmup: time.Second, Duration: 3 * time.Second, OpTimeout: time.Second,
		Search: &results.SearchPlan{Mode: mode, Resolution: math.Sqrt2, Levels: levels, BudgetS: budget.Seconds()}}
	p, err := New(plan, hs, []string{"read"}, knee.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run drives a search to its end the way a session does (drive).
func run(t *testing.T, p *Planner, m model) []results.StepResult {
	t.Helper()
	return drive(t, p, m.measure, nil)
}

// gridKnee is what the full grid at the planner's resolution and trials
// says, measured on the same model.
func gridKnee(p *Planner, m model) (knee.Report, int) {
	var steps []results.StepResult
	for _, sp := range p.plan.Steps([]string{p.series[0].target.Name}, []string{"read"}) {
		steps = append(steps, m.measure(sp))
	}
	r, _ := p.series[0].analyze(steps, p.opts)
	return r, len(steps)
}

func kneeOf(steps []results.StepResult, p *Planner) knee.Report {
	r, _ := p.series[0].analyze(steps, p.opts)
	return r
}

// TestKneeSearchMatchesTheGrid: on curves of every shape the simulator
// makes, each with five noise draws, the search finds the full grid's
// knee within one grid step in at most 40% of its steps (more with heavy
// noise, or a grid of under ten levels), and says why it took each step. When the grid's own knee
// is uncertain (below medium confidence), the search's knee must be
// within one step of the noise-free curve's knee instead.
func TestKneeSearchMatchesTheGrid(t *testing.T) {
	tests := []struct {
		name     string
		m        model
		lo, hi   int
		maxShare float64
	}{
		// The standalone simulator slots=8: a knee at 8 with a soft corner.
		{"standalone", model{curve: saturating(4000, 8), noise: 0.02}, 1, 128, 0.4},
		// conn_cost: the peak at 8, then a fall (retrograde).
		{"conn_cost", model{curve: connCost(8, 0.002, 0.00005), noise: 0.02}, 1, 128, 0.4},
		// jitter: heavy step-to-step noise (6%) on the same knee; the grid
		// itself is uncertain here, and the search repeats more where
		// neighbouring levels overlap.
		{"jitter", model{curve: saturating(4000, 8), noise: 0.06}, 1, 128, 0.45},
		// A sharded cluster whose routers saturate at 48 in flight.
		{"router-bound", model{curve: saturating(9000, 48), noise: 0.03}, 1, 256, 0.4},
		// Shard-bound with a coherency fall (USL, N* ≈ 31).
		{"usl retrograde", model{curve: usl(1000, 0.02, 0.001), noise: 0.02}, 1, 256, 0.4},
		// The seeds' levels, 64..1000: nine grid levels, where the coarse
		// probes and the deciding levels' trials alone are half the grid.
		{"seeds range", model{curve: saturating(20000, 200), noise: 0.03}, 64, 1000, 0.65},
	}
	for _, tt := range tests {
		for seed := 1; seed <= 5; seed++ {
			t.Run(fmt.Sprintf("%s/%d", tt.name, seed), func(t *testing.T) {
				name := "t" + strconv.Itoa(seed)
				p := newPlanner(t, results.SearchKnee, tt.lo, tt.hi, 3, 0, name)
				steps := run(t, p, tt.m)
				got := kneeOf(steps, p)
				want, gridN := gridKnee(p, tt.m)
				truth, _ := gridKnee(p, model{curve: tt.m.curve})
				grid := p.search.Levels
				t.Logf("grid knee %d [%d, %d] (%s) in %d steps; search knee %d [%d, %d] (%s) in %d steps; noise-free %d",
					want.Knee.Concurrency, want.Knee.Low, want.Knee.High, want.Knee.Confidence, gridN,
					got.Knee.Concurrency, got.Knee.Low, got.Knee.High, got.Knee.Confidence, len(steps), truth.Knee.Concurrency)
				if !got.Knee.Found || !want.Knee.Found {
					t.Fatalf("knee not found: search %+v grid %+v; notes %q", got.Knee, want.Knee, p.Notes())
				}
				steps1 := func(a, b int) bool { d := indexOf(grid, a) - indexOf(grid, b); return d >= -1 && d <= 1 }
				uncertain := want.Knee.Confidence != "high" && want.Knee.Confidence != "medium"
				if !steps1(got.Knee.Concurrency, want.Knee.Concurrency) && !(uncertain && steps1(got.Knee.Concurrency, truth.Knee.Concurrency)) {
					t.Errorf("search knee %d, grid knee %d [%d, %d] (%s), noise-free %d", got.Knee.Concurrency,
						want.Knee.Concurrency, want.Knee.Low, want.Knee.High, want.Knee.Confidence, truth.Knee.Concurrency)
				}
				if !uncertain && got.Knee.Confidence != "high" && got.Knee.Confidence != "medium" {
					t.Errorf("the grid's knee is %s confidence, the search's only %s", want.Knee.Confidence, got.Knee.Confidence)
				}
				if float64(len(steps)) > tt.maxShare*float64(gridN) {
					t.Errorf("%d steps, more than %.0f%% of the grid's %d", len(steps), 100*tt.maxShare, gridN)
				}
				if n := p.Notes(); len(n) != 1 || !strings.Contains(n[0], "knee at concurrency "+strconv.Itoa(got.Knee.Concurrency)) {
					t.Errorf("notes %q", n)
				}
				checkInfo(t, steps)
			})
		}
	}
}

// checkInfo: every probe says why it was chosen, in order, and no step
// is measured twice.
func checkInfo(t *testing.T, steps []results.StepResult) {
	t.Helper()
	seen := map[string]bool{}
	reasons := []string{results.ReasonCoarse, results.ReasonBisect, results.ReasonRefine, results.ReasonRepeat, results.ReasonPeak, results.ReasonPool}
	for i, st := range steps {
		if seen[st.Key()] {
			t.Errorf("step %s measured twice", st.Key())
		}
		seen[st.Key()] = true
		s := st.Search
		if s == nil || s.Probe != i+1 || !slices.Contains(reasons, s.Reason) || s.Why == "" {
			t.Fatalf("step %d: search info %+v", i+1, s)
		}
		if s.Reason != results.ReasonCoarse && s.Reason != results.ReasonRepeat && len(s.Bracket) != 2 {
			t.Errorf("step %d (%s): no bracket: %+v", i+1, s.Reason, s)
		}
	}
}

// fmtSscan finds format's number in s, wherever it is.
func fmtSscan(s, format string, v *int) (int, error) {
	prefix := format[:strings.Index(format, "%d")]
	i := strings.Index(s, prefix)
	if i < 0 {
		return 0, fmt.Errorf("%q not in %q", prefix, s)
	}
	return fmt.Sscanf(s[i:], format, v)
}
