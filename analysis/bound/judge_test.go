package bound

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// TestJudgeSeries: a Judge judges each step against the previous step of
// its own series (target, workload, pool setting, clients), as the growth
// rules need.
func TestJudgeSeries(t *testing.T) {
	other := func(s *results.StepResult) *results.StepResult { s.Target = "other"; return s }
	tests := []struct {
		name  string
		steps []*results.StepResult
		want  []string // the bound of each step, in order
	}{
		// C 4 → 16 on a server that reports nothing: the growth rule
		// needs the step before, and finds it.
		{"one series", []*results.StepResult{ferretStep(4, 343, 11.7), ferretStep(16, 260, 61.5)}, []string{BoundNone, BoundServer}},
		// The same two steps of two targets interleaved: each is judged
		// against its own target's last step.
		{"interleaved targets", []*results.StepResult{ferretStep(4, 343, 11.7), other(ferretStep(4, 343, 11.7)),
			ferretStep(16, 260, 61.5), other(ferretStep(16, 260, 61.5))}, []string{BoundNone, BoundNone, BoundServer, BoundServer}},
		// Another target's step is not this curve's previous point.
		{"other target only", []*results.StepResult{other(ferretStep(4, 343, 11.7)), ferretStep(16, 260, 61.5)}, []string{BoundNone, BoundNone}},
	}
	for _, tt := range tests {
		j := NewJudge(JudgeConfig{LocalServerHost: "127.0.0.1:27018"})
		for i, s := range tt.steps {
			j.Judge(s)
			if s.Bound != tt.want[i] || s.LittlesLaw == nil {
				t.Errorf("%s: step %d (%s C=%d) bound %q (%s), littles %v; want %q", tt.name, i, s.Target, s.Concurrency, s.Bound, s.BoundReason, s.LittlesLaw, tt.want[i])
			}
		}
	}
}

// TestJudgeSharded: a "none" verdict on a sharded cluster says its shards
// were not sampled; another verdict, or another topology, does not.
func TestJudgeSharded(t *testing.T) {
	const note = "shards are not sampled"
	for _, tt := range []struct {
		sharded bool
		step    *results.StepResult
		want    bool
	}{
		{true, ferretStep(4, 343, 11.7), true},
		{false, ferretStep(4, 343, 11.7), false},
		{true, func() *results.StepResult { s := ferretStep(16, 260, 61.5); s.Client.CPUPct = 190; return s }(), false}, // client-bound
	} {
		NewJudge(JudgeConfig{Sharded: tt.sharded}).Judge(tt.step)
		if got := strings.Contains(tt.step.BoundReason, note); got != tt.want {
			t.Errorf("sharded %v, bound %s: reason %q; want the shards note %v", tt.sharded, tt.step.Bound, tt.step.BoundReason, tt.want)
		}
	}
}

// TestJudgeConfig: --server-cores and the local server reach the rules.
func TestJudgeConfig(t *testing.T) {
	// The server's CPU is 95% of one core: busy on a 1-core host (the
	// --server-cores override), not on its own 2 cores (hostInfo).
	step := func() *results.StepResult {
		s := ferretStep(4, 343, 11.7)
		s.Target = "remote"
		return s
	}
	s := step()
	NewJudge(JudgeConfig{}).Judge(s)
	if s.Bound != BoundNone {
		t.Errorf("2 cores: bound %s (%s), want none", s.Bound, s.BoundReason)
	}
	s = step()
	NewJudge(JudgeConfig{ServerCores: 1}).Judge(s)
	if s.Bound != BoundServer || !strings.Contains(s.BoundReason, "CPU") {
		t.Errorf("--server-cores 1: bound %s (%s), want server for its CPU", s.Bound, s.BoundReason)
	}
}
