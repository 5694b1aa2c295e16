package search

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

func TestLevels(t *testing.T) {
	tests := []struct {
		lo, hi  int
		r       float64
		want    []int
		wantErr string
	}{
		// The default: ×√2 from 1 to 128, rounded and de-duplicated.
		{1, 128, math.Sqrt2, []int{1, 2, 3, 4, 6, 8, 11, 16, 23, 32, 45, 64, 91, 128}, ""},
		// The seeds' levels; 1000 replaces 1024, which would overshoot.
		{64, 1000, math.Sqrt2, []int{64, 91, 128, 181, 256, 362, 512, 724, 1000}, ""},
		// A level within √r of the top is replaced by the top.
		{8, 9, math.Sqrt2, []int{8, 9}, ""},
		{1, 100, 2, []int{1, 2, 4, 8, 16, 32, 64, 100}, ""},
		{5, 5, math.Sqrt2, nil, "at least two levels"},
		{1, 64, 1.01, nil, "between"},
		{1, 64, 5, nil, "between"},
		{1, 64, math.NaN(), nil, "between"},
	}
	for _, tt := range tests {
		got, err := Levels(tt.lo, tt.hi, tt.r)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Levels(%d, %d, %g): %v, want an error naming %q", tt.lo, tt.hi, tt.r, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("Levels(%d, %d, %g) = %v, %v; want %v", tt.lo, tt.hi, tt.r, got, err, tt.want)
		}
	}
}

func TestCoarseAndPoolGrids(t *testing.T) {
	l14, _ := Levels(1, 128, math.Sqrt2)
	l21, _ := Levels(1, 1024, math.Sqrt2)
	tests := []struct {
		levels []int
		want   []int
	}{
		{l14, []int{0, 6, 13}},     // 1, 11, 128: both ends and the middle, rounded down
		{l21, []int{0, 6, 12, 19}}, // ten doublings: one probe every three or so
		{[]int{1, 2, 3}, []int{0, 1, 2}},
	}
	for _, tt := range tests {
		if got := coarse(tt.levels); !slices.Equal(got, tt.want) {
			t.Errorf("coarse(%v) = %v, want %v", tt.levels, got, tt.want)
		}
	}
	if got := poolLevels(16, math.Sqrt2); !slices.Equal(got, []int{11, 8, 6, 4, 3, 2, 1}) {
		t.Errorf("poolLevels(16) = %v", got)
	}
	if got := poolLevels(1, math.Sqrt2); len(got) != 0 {
		t.Errorf("poolLevels(1) = %v, want none", got)
	}
}

// TestKneeSearchEdges: a curve with no knee in the range and one flat
// from the start end with the answer the grid gives, cheaply.
func TestKneeSearchEdges(t *testing.T) {
	t.Run("still rising", func(t *testing.T) {
		p := newPlanner(t, results.SearchKnee, 1, 128, 3, 0)
		steps := run(t, p, model{curve: func(c, _ int) float64 { return 100 * float64(c) }, noise: 0.02})
		if n := p.Notes(); len(n) != 1 || !strings.Contains(n[0], "no knee located") {
			t.Errorf("notes %q", n)
		}
		if r := kneeOf(steps, p); r.Knee.Found || !strings.Contains(r.Knee.Statement, "no knee within the tested range") {
			t.Errorf("the analysis of the search's steps: %+v", r.Knee)
		}
		if len(steps) > 12 {
			t.Errorf("%d steps to say there is no knee", len(steps))
		}
		checkInfo(t, steps)
	})
	t.Run("flat", func(t *testing.T) {
		p := newPlanner(t, results.SearchKnee, 1, 128, 3, 0)
		steps := run(t, p, model{curve: func(int, int) float64 { return 5000 }, noise: 0.02})
		if r := kneeOf(steps, p); !r.Knee.Found || r.Knee.Concurrency > 2 {
			t.Errorf("flat curve: knee %+v", r.Knee)
		}
		if len(steps) > 16 {
			t.Errorf("%d steps", len(steps))
		}
	})
}

// TestBudget: with a budget of eight steps' time the search stops after
// eight, says the budget ended and what it knew; Remaining never promises
// more than the budget affords.
func TestBudget(t *testing.T) {
	m := model{curve: saturating(4000, 8), noise: 0.02, cost: 5 * time.Second}
	p := newPlanner(t, results.SearchKnee, 1, 128, 3, 40*time.Second)
	var done []results.StepResult
	for {
		sp, ok := p.Next(done, nil)
		if !ok {
			break
		}
		done = append(done, m.measure(sp))
		left := 40 - 5*len(done)
		if r := p.Remaining(done); r > max(left/5, 1) {
			t.Errorf("after %d steps Remaining says %d, the budget affords %d", len(done), r, left/5)
		}
	}
	if len(done) != 8 {
		t.Errorf("%d steps in a budget of 8", len(done))
	}
	n := p.Notes()
	if len(n) != 1 || !strings.Contains(n[0], "the --budget 40s ended before the search finished, after 8 steps") || !strings.Contains(n[0], "knee lies in") {
		t.Errorf("notes %q", n)
	}
}

// TestResumeContinuesTheSameSearch: the planner is a function of the
// steps it is given, so a new planner handed the first steps of a search
// continues it exactly.
func TestResumeContinuesTheSameSearch(t *testing.T) {
	m := model{curve: connCost(8, 0.002, 0.00005), noise: 0.03}
	whole := run(t, newPlanner(t, results.SearchPool, 1, 128, 3, 0), m)
	for _, cut := range []int{1, 4, 9, len(whole) - 1} {
		p := newPlanner(t, results.SearchPool, 1, 128, 3, 0)
		done := slices.Clone(whole[:cut])
		for {
			sp, ok := p.Next(done, nil)
			if !ok {
				break
			}
			done = append(done, m.measure(sp))
		}
		if len(done) != len(whole) {
			t.Fatalf("resumed at %d: %d steps, the whole search had %d", cut, len(done), len(whole))
		}
		for i := range done {
			if done[i].Key() != whole[i].Key() {
				t.Errorf("resumed at %d: step %d is %s, was %s", cut, i+1, done[i].Key(), whole[i].Key())
			}
		}
	}
}

// TestPoolSearch: after the knee, the smallest pool whose throughput is
// within 5% of the best at the knee's concurrency, within one pool grid
// step of the noise-free answer; with a p99 SLO that only the full pool
// meets, the answer is the full pool.
func TestPoolSearch(t *testing.T) {
	c := saturating(4000, 8)
	m := model{curve: c, noise: 0.02}
	p := newPlanner(t, results.SearchPool, 1, 128, 3, 0)
	steps := run(t, p, m)
	r := kneeOf(steps, p)
	kc := r.Recommendation.Concurrency
	// The noise-free answer on the pool grid.
	grid := poolLevels(kc, math.Sqrt2)
	truth := kc
	for _, ps := range grid {
		if c(kc, ps) >= 0.95*c(kc, kc) {
			truth = ps
		}
	}
	var got int
	pools := 0
	for _, st := range steps {
		if st.PoolSetting != "match" {
			pools++
			if st.Concurrency != kc || st.Search.Mode != results.SearchPool {
				t.Errorf("pool step at C=%d (knee %d), search %+v", st.Concurrency, kc, st.Search)
			}
		}
	}
	n := p.Notes()
	if len(n) != 1 || !strings.Contains(n[0], "pool: at concurrency") {
		t.Fatalf("notes %q", n)
	}
	if _, err := fmtSscan(n[0], "maxPoolSize %d per host", &got); err != nil {
		t.Fatalf("no pool size in %q", n[0])
	}
	all := append([]int{kc}, grid...)
	if d := slices.Index(all, got) - slices.Index(all, truth); d < -1 || d > 1 {
		t.Errorf("pool %d, noise-free answer %d (grid %v)", got, truth, all)
	}
	if pools > 8 {
		t.Errorf("%d pool steps", pools)
	}
	// The answer and the size that failed below it rest on 3 trials each.
	var bad int
	if _, err := fmtSscan(n[0], "; %d gave", &bad); err == nil {
		for _, size := range []int{got, bad} {
			k := 0
			for _, st := range steps {
				if st.PoolSetting == strconv.Itoa(size) {
					k++
				}
			}
			if size != kc && k != 3 {
				t.Errorf("pool %d has %d trials, want 3", size, k)
			}
		}
	}
	t.Logf("knee %d, pool %d (noise-free %d) in %d pool steps: %s", kc, got, truth, pools, n[0])
	checkInfo(t, steps)

	// An SLO just above the knee's own p99: a smaller pool only adds
	// waiting, so the answer is the full pool (or within the noise of it).
	var p99 float64
	for _, st := range steps {
		if st.Concurrency == kc && st.PoolSetting == "match" {
			p99 = max(p99, st.Latency.P99)
		}
	}
	ps := newPlanner(t, results.SearchPool, 1, 128, 3, 0)
	ps.search.SLOP99Ms = p99 * 1.01
	checkInfo(t, run(t, ps, m))
	n = ps.Notes()
	if len(n) != 1 || !strings.Contains(n[0], "p99 within") {
		t.Fatalf("SLO notes %q", n)
	}
	if _, err := fmtSscan(n[0], "maxPoolSize %d per host", &got); err != nil || got < truth {
		t.Errorf("with an SLO at the knee's p99 the pool is %d, below the %d without one: %s", got, truth, n[0])
	}
}

// TestPoolSearchWithinRange: --pool MIN..MAX bounds the sizes the pool
// search tries; the knee search is unchanged (pool match). With a floor
// above the noise-free answer the answer is the floor or above it.
func TestPoolSearchWithinRange(t *testing.T) {
	c := saturating(4000, 8)
	m := model{curve: c, noise: 0.02}
	p := newPlanner(t, results.SearchPool, 1, 128, 3, 0)
	p.search.PoolMin, p.search.PoolMax = 6, 9
	steps := run(t, p, m)
	tried := 0
	for _, st := range steps {
		if st.PoolSetting == "match" {
			continue
		}
		tried++
		if st.MaxPoolSize < 6 || st.MaxPoolSize > 9 {
			t.Errorf("pool step %d outside --pool 6..9", st.MaxPoolSize)
		}
	}
	n := p.Notes()
	if tried == 0 || len(n) != 1 || !strings.Contains(n[0], "pool: at concurrency") {
		t.Fatalf("%d pool steps, notes %q", tried, n)
	}
	var got int
	if _, err := fmtSscan(n[0], "maxPoolSize %d per host", &got); err != nil || got < 6 {
		t.Errorf("answer %d below the floor 6: %q", got, n[0])
	}
	// A range below every size the grid has at the knee: nothing to try.
	p = newPlanner(t, results.SearchPool, 1, 128, 3, 0)
	p.search.PoolMin, p.search.PoolMax = 1000, 2000
	run(t, p, m)
	if n := p.Notes(); len(n) != 1 || !strings.Contains(n[0], "within --pool 1000..2000") {
		t.Errorf("notes %q", n)
	}
}

// TestSeveralSeries: targets are searched one after the other, each to
// its own knee, and the notes name them.
func TestSeveralSeries(t *testing.T) {
	curves := map[string]curve{"small": saturating(4000, 8), "large": saturating(16000, 32)}
	m := model{noise: 0.02}
	m.curve = nil
	p := newPlanner(t, results.SearchKnee, 1, 128, 3, 0, "small", "large")
	var done []results.StepResult
	for len(done) < 200 {
		sp, ok := p.Next(done, nil)
		if !ok {
			break
		}
		m.curve = curves[sp.Target]
		done = append(done, m.measure(sp))
	}
	switched := 0
	for i := 1; i < len(done); i++ {
		if done[i].Target != done[i-1].Target {
			switched++
		}
	}
	n := p.Notes()
	if switched != 1 || len(n) != 2 || !strings.HasPrefix(n[0], "small read: search: knee at concurrency") || !strings.HasPrefix(n[1], "large read: search: knee at concurrency") {
		t.Errorf("%d switches; notes %q", switched, n)
	}
	if 10*len(done) > 4*2*42 {
		t.Errorf("%d steps for two series", len(done))
	}
}

// TestFailedStepIsNotRetried: a step that could not be measured (with
// --keep-going) is not asked for again; the search goes on without it.
func TestFailedStepIsNotRetried(t *testing.T) {
	m := model{curve: saturating(4000, 8), noise: 0.02}
	p := newPlanner(t, results.SearchKnee, 1, 128, 3, 0)
	var (
		done   []results.StepResult
		failed []plan.StepSpec
		seen   = map[string]bool{}
	)
	for i := 0; i < 100; i++ {
		sp, ok := p.Next(done, failed)
		if !ok {
			break
		}
		if seen[sp.Key()] {
			t.Fatalf("step %s asked for again", sp.Key())
		}
		seen[sp.Key()] = true
		if sp.Search.Reason == results.ReasonBisect && (len(failed) == 0 || sp.Concurrency == failed[0].Concurrency) {
			failed = append(failed, sp) // the first bisection's level cannot be measured
			continue
		}
		done = append(done, m.measure(sp))
	}
	if r := kneeOf(done, p); !r.Knee.Found {
		t.Errorf("no knee without level %d: %+v", failed[0].Concurrency, r.Knee)
	}
	if len(failed) != 1 {
		t.Errorf("%d failed attempts at one level", len(failed))
	}
}

func TestNewRefusesWhatItCannotSearch(t *testing.T) {
	levels := []int{1, 2, 4}
	base := plan.Plan{Concurrency: levels, Pool: plan.PoolPlan{Match: true}, Trials: 3, Clients: 1}
	hs := []results.TargetHeader{{Name: "t"}}
	for _, tt := range []struct {
		plan plan.Plan
		want string
	}{
		{base, "no search"},
		{func() plan.Plan { p := base; p.Search = &results.SearchPlan{Mode: "fast", Levels: levels}; return p }(), `"fast" is not knee or pool`},
		{func() plan.Plan {
			p := base
			p.Search = &results.SearchPlan{Mode: "knee", Levels: levels[:1]}
			return p
		}(), "two levels"},
		{func() plan.Plan {
			p := base
			p.Pool = plan.PoolPlan{Sizes: []int{4}}
			p.Search = &results.SearchPlan{Mode: "knee", Levels: levels}
			return p
		}(), "pool match"},
	} {
		if _, err := New(tt.plan, hs, []string{"read"}, knee.DefaultOptions()); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New: %v, want %q", err, tt.want)
		}
	}
}

// TestBudgetShared: two series share a budget of sixteen steps' time,
// eight each, and both say their share ended.
func TestBudgetShared(t *testing.T) {
	m := model{curve: saturating(4000, 8), noise: 0.02, cost: 5 * time.Second}
	p := newPlanner(t, results.SearchKnee, 1, 128, 3, 80*time.Second, "a", "b")
	steps := run(t, p, m)
	per := map[string]int{}
	for _, st := range steps {
		per[st.Target]++
	}
	n := p.Notes()
	if per["a"] != 8 || per["b"] != 8 || len(n) != 2 || !strings.HasPrefix(n[0], "a read: the --budget 1m20s ended (this series' share)") ||
		!strings.HasPrefix(n[1], "b read: the --budget 1m20s ended (this series' share)") {
		t.Errorf("steps %v; notes %q", per, n)
	}
}
