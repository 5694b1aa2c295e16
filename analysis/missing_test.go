package analysis

import (
	"slices"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// planned builds a results file from a plan and the steps it holds: have
// lists (target, workload, pool, C, trial) as steps; interrupted ones are
// marked with a negative trial.
type stepID struct {
	target, workload, pool string
	c, trial               int
}

func planned(plan results.PlanInfo, targets []string, mixes []string, end *results.EndRecord, have []stepID) *results.Results {
	r := &results.Results{Path: "run/results.jsonl", End: end}
	r.Header.Plan = plan
	r.Header.Workload = results.WorkloadInfo{Name: "read", Mixes: mixes}
	if len(mixes) > 0 {
		r.Header.Workload.Name = "mixes"
	}
	for _, t := range targets {
		r.Header.Targets = append(r.Header.Targets, results.TargetHeader{Name: t})
	}
	for _, h := range have {
		s := results.StepResult{Kind: results.KindStep, Target: h.target, Workload: h.workload, PoolSetting: h.pool,
			Concurrency: h.c, Clients: plan.Clients, Trial: h.trial, OpsPerS: 100}
		if h.trial < 0 {
			s.Trial, s.Interrupted = -h.trial, true
		}
		r.Steps = append(r.Steps, s)
	}
	return r
}

// grid lists every step of target/workload/pool at concs × trials.
func grid(target, workload, pool string, concs []int, trials int) []stepID {
	var out []stepID
	for tr := 1; tr <= trials; tr++ {
		for _, c := range concs {
			out = append(out, stepID{target, workload, pool, c, tr})
		}
	}
	return out
}

func without(all []stepID, drop ...stepID) []stepID {
	return slices.DeleteFunc(slices.Clone(all), func(s stepID) bool { return slices.Contains(drop, s) })
}

func TestMissingSteps(t *testing.T) {
	concs := []int{1, 2, 4, 8, 16, 32, 64}
	match2 := results.PlanInfo{Concurrency: concs, Pool: "match", Clients: 1, Trials: 2, Steps: 14}
	partial := &results.EndRecord{Kind: results.KindEnd, Status: "partial", Reason: "2 step(s) failed", Steps: 12}
	full := grid("sim", "read", "match", concs, 2)
	tests := []struct {
		name  string
		r     *results.Results
		want  []string // the lines, in order
		first Missing  // checked field by field when set
	}{
		// A finished run: nothing missing, nothing said.
		{"complete", planned(match2, []string{"sim"}, nil, &results.EndRecord{Status: "complete", Steps: 14}, full), nil, Missing{}},
		// The example.
		{"partial", planned(match2, []string{"sim"}, nil, partial,
			without(full, stepID{"sim", "read", "match", 32, 2}, stepID{"sim", "read", "match", 64, 2})),
			[]string{"missing: target=sim pool=match C=32,64 (trial 2); the run ended partial: 2 step(s) failed"},
			Missing{File: "run/results.jsonl", Target: "sim", Workload: "read", Pool: "match", Clients: 1, Planned: 14, Measured: 12,
				Steps: []MissingGroup{{Concurrency: []int{32, 64}, Trials: []int{2}}}}},
		// Killed in trial 1: later levels miss both trials, one level only
		// trial 2; no end record.
		{"killed", planned(match2, []string{"sim"}, nil, nil, grid("sim", "read", "match", concs[:5], 1)),
			[]string{"missing: target=sim pool=match C=1,2,4,8,16 (trial 2), C=32,64 (all 2 trials); the run has no end record (still running, or killed)"},
			Missing{}},
		// An interrupted step is not a measurement: it is missing.
		{"interrupted step", planned(match2, []string{"sim"}, nil, &results.EndRecord{Status: "interrupted", Steps: 14},
			append(without(full, stepID{"sim", "read", "match", 64, 2}), stepID{"sim", "read", "match", 64, -2})),
			[]string{"missing: target=sim pool=match C=64 (trial 2); the run ended interrupted: 14 of 14 planned steps recorded"},
			Missing{}},
		// Two targets, a pool list, three clients: the second target never ran.
		{"target never ran", planned(results.PlanInfo{Concurrency: []int{8, 16}, Pool: "8,16", Pools: []int{8, 16}, Clients: 3, Trials: 1, Steps: 8},
			[]string{"a", "b"}, nil, &results.EndRecord{Status: "failed", Reason: "target b stopped answering"},
			append(grid("a", "read", "8", []int{8, 16}, 1), grid("a", "read", "16", []int{8, 16}, 1)...)),
			[]string{
				"missing: target=b pool=8 clients=3 C=8,16; the run ended failed: target b stopped answering",
				"missing: target=b pool=16 clients=3 C=8,16; the run ended failed: target b stopped answering"},
			Missing{}},
		// Several mixes: the workload is named; trials are ranged.
		{"mixes", planned(results.PlanInfo{Concurrency: []int{8}, Pool: "match", Trials: 4}, []string{"s"}, []string{"mix 50:50:0", "mix 0:100:0"}, nil,
			append(grid("s", "mix 50:50:0", "match", []int{8}, 4), stepID{"s", "mix 0:100:0", "match", 8, 3})),
			[]string{"missing: target=s workload=mix 0:100:0 pool=match C=8 (trials 1–2, 4); the run has no end record (still running, or killed)"},
			Missing{}},
		// Levels of each target's own: a target owes only its own levels,
		// never the other's.
		{"levels per target", planned(results.PlanInfo{Concurrency: []int{2, 4, 8, 16}, Pool: "match", Trials: 1,
			TargetConcurrency: []results.TargetLevels{{Target: "a", Concurrency: []int{2, 16}}, {Target: "b", Concurrency: []int{4, 8}}}},
			[]string{"a", "b"}, nil, nil, append(grid("a", "read", "match", []int{2, 16}, 1), stepID{"b", "read", "match", 4, 1})),
			[]string{"missing: target=b pool=match C=8; the run has no end record (still running, or killed)"}, Missing{}},
		// No plan in the header: what was planned cannot be told.
		{"no plan", planned(results.PlanInfo{}, []string{"sim"}, nil, nil, full[:3]), nil, Missing{}},
		// Names from the file are escaped in the text.
		{"hostile target", planned(results.PlanInfo{Concurrency: []int{1}, Pool: "match", Trials: 1}, []string{"x\x1b[2J"}, nil, nil, nil),
			[]string{`missing: target=x\x1b[2J pool=match C=1; the run has no end record (still running, or killed)`}, Missing{}},
	}
	for _, tt := range tests {
		ms := MissingSteps([]*results.Results{tt.r})
		var got []string
		for _, m := range ms {
			got = append(got, m.Text)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
			continue
		}
		if tt.first.Target != "" {
			m := ms[0]
			m.Text, m.RunEnd = "", ""
			if m.File != tt.first.File || m.Target != tt.first.Target || m.Workload != tt.first.Workload || m.Pool != tt.first.Pool ||
				m.Clients != tt.first.Clients || m.Planned != tt.first.Planned || m.Measured != tt.first.Measured ||
				len(m.Steps) != 1 || !slices.Equal(m.Steps[0].Concurrency, tt.first.Steps[0].Concurrency) || !slices.Equal(m.Steps[0].Trials, tt.first.Steps[0].Trials) {
				t.Errorf("%s: %+v, want %+v", tt.name, m, tt.first)
			}
		}
	}
	// With several files each line names its file.
	a := planned(results.PlanInfo{Concurrency: []int{1}, Pool: "match", Trials: 1}, []string{"sim"}, nil, nil, nil)
	b := planned(results.PlanInfo{Concurrency: []int{1}, Pool: "match", Trials: 1}, []string{"sim"}, nil, nil, grid("sim", "read", "match", []int{1}, 1))
	b.Path = "b.jsonl"
	ms := MissingSteps([]*results.Results{a, b})
	if len(ms) != 1 || ms[0].Text != "missing: run/results.jsonl: target=sim pool=match C=1; the run has no end record (still running, or killed)" {
		t.Errorf("two files: %+v", ms)
	}
}

// TestMissingTrialsAtMost: a grid whose --trials is a maximum owes each
// level one trial; the extra trials it did not take are not missing, a
// level never measured is.
func TestMissingTrialsAtMost(t *testing.T) {
	concs := []int{1, 2, 4, 8}
	p := results.PlanInfo{Concurrency: concs, Pool: "match", Clients: 1, Trials: 3, Steps: 6, TrialsAtMost: true}
	end := &results.EndRecord{Kind: results.KindEnd, Status: "complete", Steps: 6}
	have := append(grid("sim", "read", "match", concs, 1), stepID{"sim", "read", "match", 4, 2}, stepID{"sim", "read", "match", 8, 2})
	if m := MissingSteps([]*results.Results{planned(p, []string{"sim"}, nil, end, have)}); len(m) != 0 {
		t.Errorf("trials at most, every level once: missing %+v", m)
	}
	m := MissingSteps([]*results.Results{planned(p, []string{"sim"}, nil, end, without(have, stepID{"sim", "read", "match", 2, 1}))})
	if len(m) != 1 || m[0].Planned != 4 || m[0].Measured != 3 {
		t.Errorf("level 2 never measured: %+v", m)
	}
}

// TestMissingStepsCountsPartialSteps: a merged agent run whose agent 2
// died before C=8 measured C=8 and 16 with two of its three clients; those
// partial steps are not the planned level, so they are missing.
func TestMissingStepsCountsPartialSteps(t *testing.T) {
	res := &results.Results{Path: "merged.jsonl"}
	res.Header.Plan = results.PlanInfo{Concurrency: []int{1, 2, 4, 8, 16}, Pool: "match", Clients: 3, Trials: 1, Steps: 5}
	res.Header.Targets = []results.TargetHeader{{Name: "sim"}}
	res.End = &results.EndRecord{Kind: results.KindEnd, Status: results.StatusPartial, Reason: "2 of 5 merged step(s) are partial"}
	for _, c := range []int{1, 2, 4, 8, 16} {
		st := results.StepResult{Kind: results.KindStep, Target: "sim", Workload: "read", PoolSetting: "match", Concurrency: c, Clients: 3,
			Trial: 1, DurationS: 10, OpsPerS: float64(300 * min(c, 4)), Ops: int64(3000 * min(c, 4)), Calls: int64(3000 * min(c, 4))}
		if c >= 8 {
			st.Clients, st.OpsPerS, st.Partial = 2, st.OpsPerS*2/3, true
			st.MissingAgents = []results.MissingAgent{{Index: 2, Host: "load3", Reason: "stopped answering during the step"}}
		}
		res.Steps = append(res.Steps, st)
	}
	ms := MissingSteps([]*results.Results{res})
	if len(ms) != 1 || !strings.HasPrefix(ms[0].Text, "missing: target=sim pool=match clients=3 C=8,16") {
		t.Errorf("missing %+v, want one line for C=8,16 of 3 clients", ms)
	}
}
