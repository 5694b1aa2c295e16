package search

import (
	"slices"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// autoGrid is a grid 1, 2, 4 … 64 with auto windows and at most trials
// trials per level, over the given pool setting.
func autoGrid(trials int, pool plan.PoolPlan) plan.Plan {
	return plan.Plan{Concurrency: []int{1, 2, 4, 8, 16, 32, 64}, Pool: pool, Clients: 1, Trials: trials,
		Warmup: time.Second, Duration: 2 * time.Second, OpTimeout: time.Second,
		Auto: plan.NewAutoPlan(true, true, time.Second, time.Minute, 2*time.Second, time.Minute, 2, 1000)}
}

func newTrials(t *testing.T, p plan.Plan) *Trials {
	t.Helper()
	tr, err := NewTrials(p, []results.TargetHeader{{Name: "t", Topology: "standalone", Hosts: []string{"h:1"}}}, []string{"read"}, knee.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// withInterval is m's step with a batch-means half-width of hwPct.
func withInterval(m model, hwPct float64) func(plan.StepSpec) results.StepResult {
	return func(sp plan.StepSpec) results.StepResult {
		st := m.measure(sp)
		hw := hwPct
		st.Steady = &results.StepSteady{HalfWidthPct: &hw, Independent: true, Batches: 20}
		st.ExtraTrial = sp.ExtraTrial
		return st
	}
}

// drive runs a planner to its end the way a session does.
func drive(t *testing.T, p plan.Planner, measure func(plan.StepSpec) results.StepResult, done []results.StepResult) []results.StepResult {
	t.Helper()
	for i := 0; ; i++ {
		if i > 1000 {
			t.Fatal("the planner does not end")
		}
		sp, ok := p.Next(done, nil)
		if !ok {
			return done
		}
		if p.Remaining(done) < 1 {
			t.Errorf("Remaining %d before step %d, which Next gave", p.Remaining(done), len(done)+1)
		}
		done = append(done, measure(sp))
	}
}

// TestTrialsWhereTheyPay: with auto windows a grid measures every level
// once; the level below the knee and the knee, whose intervals overlap
// (a soft corner: 8 gives 84% of the peak, the knee 16 gives 98%, each
// ±25%, and the knee's confidence stays low), get further trials up to
// --trials and no other level does; each extra trial says why, with the
// two intervals, which overlap. Narrow intervals (±1%) take no extra
// trial at all, nor does a knee whose confidence reaches medium (±10%).
func TestTrialsWhereTheyPay(t *testing.T) {
	m := model{curve: saturating(4000, 8)}
	steps := drive(t, newTrials(t, autoGrid(3, plan.PoolPlan{Match: true, Given: "match"})), withInterval(m, 25), nil)
	n := trials(steps)
	for _, c := range []int{1, 2, 4, 32, 64} {
		if n[c] != 1 {
			t.Errorf("level %d, far from the knee: %d trials, want 1", c, n[c])
		}
	}
	if n[8] < 2 || n[8] > 3 || n[16] < 2 || n[16] > 3 {
		t.Errorf("the knee's pair 8 and 16: %d and %d trials, want 2 or 3 each (their intervals overlap)", n[8], n[16])
	}
	s := series{target: results.TargetHeader{Name: "t", Topology: "standalone", Hosts: []string{"h:1"}}, workload: "read", clients: 1, pool: "match"}
	if r, _ := s.analyze(steps, knee.DefaultOptions()); r.Knee.Concurrency != 16 {
		t.Errorf("knee %+v, want 16", r.Knee)
	} else if c, other, ok := needsTrial(r, n, 3, steps[len(steps)-1].Concurrency); ok {
		t.Errorf("the grid ended while %d and %d still overlap below 3 trials (%s)", c, other, r.Knee.Statement)
	}
	for i, st := range steps {
		e := st.ExtraTrial
		switch {
		case i < 7 && (e != nil || st.Trial != 1):
			t.Errorf("step %d: trial %d, extra %+v; the grid's first pass is trial 1 of every level", i+1, st.Trial, e)
		case i >= 7 && e == nil:
			t.Errorf("step %d (C=%d trial %d) has no reason", i+1, st.Concurrency, st.Trial)
		case i >= 7 && (e.Interval[1] < e.NeighbourInterval[0] || e.NeighbourInterval[1] < e.Interval[0]):
			t.Errorf("step %d: intervals %v and %v do not overlap", i+1, e.Interval, e.NeighbourInterval)
		case i >= 7 && !slices.Contains([]int{8, 16}, e.Neighbour):
			t.Errorf("step %d: neighbour %d", i+1, e.Neighbour)
		}
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].Key() == steps[i-1].Key() {
			t.Errorf("step %d measured twice", i+1)
		}
	}

	for _, hw := range []float64{1, 10} {
		if narrow := drive(t, newTrials(t, autoGrid(3, plan.PoolPlan{Match: true, Given: "match"})), withInterval(m, hw), nil); len(narrow) != 7 {
			t.Errorf("±%g%% intervals: %d steps, want the 7 levels once", hw, len(narrow))
		}
	}

	// A grid of concurrency × pool: each pool setting is its own curve.
	pools := drive(t, newTrials(t, autoGrid(2, plan.PoolPlan{Sizes: []int{4, 64}, Given: "4,64"})), withInterval(m, 25), nil)
	byPool := map[string]int{}
	for _, st := range pools {
		if st.Trial > 1 {
			byPool[st.PoolSetting]++
		}
	}
	if len(pools) < 14 || byPool["4"] != 0 || byPool["64"] == 0 {
		t.Errorf("pools 4 and 64: %d steps, extra trials %v; pool 4 is flat from concurrency 4 (no knee to decide), 64 has the soft corner", len(pools), byPool)
	}
}

// TestTrialsResumeAndFailures: cut anywhere, the planner goes on with the
// same steps (a resumed run); an extra trial that failed in this session
// is not asked for again; fixed windows are refused (every level × N).
func TestTrialsResumeAndFailures(t *testing.T) {
	m := withInterval(model{curve: saturating(4000, 8)}, 25)
	p := autoGrid(3, plan.PoolPlan{Match: true, Given: "match"})
	whole := drive(t, newTrials(t, p), m, nil)
	for _, cut := range []int{1, 7, 8, len(whole) - 1} {
		got := drive(t, newTrials(t, p), m, slices.Clone(whole[:cut]))
		if len(got) != len(whole) {
			t.Errorf("cut at %d: %d steps, want %d", cut, len(got), len(whole))
			continue
		}
		for i := range got {
			if got[i].Key() != whole[i].Key() {
				t.Errorf("cut at %d: step %d is %s, want %s", cut, i+1, got[i].Key(), whole[i].Key())
			}
		}
	}

	tr := newTrials(t, p)
	done := slices.Clone(whole[:7])
	sp, ok := tr.Next(done, nil)
	if !ok || sp.ExtraTrial == nil {
		t.Fatalf("after the grid: %+v %v, want an extra trial", sp, ok)
	}
	failed := []plan.StepSpec{sp}
	if again, ok := tr.Next(done, failed); ok && again.Key() == sp.Key() {
		t.Errorf("the failed extra trial %s was asked for again", sp.Key())
	}

	fixed := p
	fixed.Auto = nil
	if _, err := NewTrials(fixed, []results.TargetHeader{{Name: "t"}}, []string{"read"}, knee.DefaultOptions()); err == nil {
		t.Error("fixed windows: NewTrials accepted a plan whose every level takes every trial")
	}
	if !p.TrialsAtMost() || fixed.TrialsAtMost() {
		t.Errorf("TrialsAtMost: auto %v, fixed %v", p.TrialsAtMost(), fixed.TrialsAtMost())
	}
	inter := p
	inter.Order = plan.OrderInterleaved
	if inter.TrialsAtMost() {
		t.Error("interleaved targets: trials at most, want every trial (compare pairs them)")
	}
}

// TestTrialsAtOverlappingPeaks: with two targets, once each
// knee is decided, the peak with fewer trials is measured again while the
// two peaks' intervals overlap (2.5% apart, ±3% each), up to --trials;
// each such trial names the other target and its peak, and the intervals
// it records overlap. Peaks 50% apart take no extra trial.
func TestTrialsAtOverlappingPeaks(t *testing.T) {
	two := func() *Trials {
		tr, err := NewTrials(autoGrid(3, plan.PoolPlan{Match: true, Given: "match"}), []results.TargetHeader{
			{Name: "a", Topology: "standalone", Hosts: []string{"h:1"}}, {Name: "b", Topology: "standalone", Hosts: []string{"h:2"}},
		}, []string{"read"}, knee.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	measure := func(peakB float64) func(plan.StepSpec) results.StepResult {
		a, b := withInterval(model{curve: saturating(4000, 8)}, 3), withInterval(model{curve: saturating(peakB, 8)}, 3)
		return func(sp plan.StepSpec) results.StepResult {
			if sp.Target == "b" {
				return b(sp)
			}
			return a(sp)
		}
	}
	close := drive(t, two(), measure(4100), nil)
	extra := 0
	for _, st := range close {
		e := st.ExtraTrial
		if e == nil {
			continue
		}
		extra++
		other := map[string]string{"a": "b", "b": "a"}[st.Target]
		if e.NeighbourTarget != other || st.Trial < 2 || st.Trial > 3 {
			t.Errorf("%s C=%d trial %d: extra %+v; want the other target's peak named", st.Target, st.Concurrency, st.Trial, e)
		}
		if e.Interval[1] < e.NeighbourInterval[0] || e.NeighbourInterval[1] < e.Interval[0] {
			t.Errorf("%s C=%d: intervals %v and %v do not overlap", st.Target, st.Concurrency, e.Interval, e.NeighbourInterval)
		}
	}
	t.Logf("peaks 2.5%% apart: %d extra trials", extra)
	if extra == 0 || extra > 4 {
		t.Errorf("peaks 2.5%% apart with ±3%% intervals: %d extra trials, want 1 to 4 (at most 3 a peak)", extra)
	}
	if apart := drive(t, two(), measure(6000), nil); len(apart) != 14 {
		t.Errorf("peaks 50%% apart: %d steps, want the 7 levels of each target once", len(apart))
	}
}

// TestTrialsOwnLevels: with levels of each target's own, the trials
// planner measures each target's grid once and takes its extra trials
// (at the knee, or where the peaks overlap) at that target's own levels
// only, never at the other's.
func TestTrialsOwnLevels(t *testing.T) {
	p := autoGrid(3, plan.PoolPlan{Match: true, Given: "match"})
	own := map[string][]int{"a": {2, 8, 32, 128}, "b": {16, 64, 256}}
	p.SetTargetLevels(own)
	tr, err := NewTrials(p, []results.TargetHeader{
		{Name: "a", Topology: "standalone", Hosts: []string{"h:1"}}, {Name: "b", Topology: "standalone", Hosts: []string{"h:2"}},
	}, []string{"read"}, knee.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	a, b := withInterval(model{curve: saturating(4000, 8)}, 3), withInterval(model{curve: saturating(4100, 8)}, 3)
	steps := drive(t, tr, func(sp plan.StepSpec) results.StepResult {
		if sp.Target == "b" {
			return b(sp)
		}
		return a(sp)
	}, nil)
	firsts, extra := map[string][]int{}, 0
	for _, st := range steps {
		if !slices.Contains(own[st.Target], st.Concurrency) {
			t.Errorf("%s measured at C=%d, not one of its levels %v", st.Target, st.Concurrency, own[st.Target])
		}
		if st.Trial == 1 {
			firsts[st.Target] = append(firsts[st.Target], st.Concurrency)
		} else {
			extra++
		}
	}
	if !slices.Equal(firsts["a"], own["a"]) || !slices.Equal(firsts["b"], own["b"]) {
		t.Errorf("first trials %v, want each target's levels once, in order", firsts)
	}
	if extra == 0 {
		t.Error("peaks 2.5% apart with ±3% intervals took no extra trial")
	}
}
