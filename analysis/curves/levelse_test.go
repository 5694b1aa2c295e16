package curves

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// TestLevelStdErr: a level measured once takes its standard error from
// its ops' own interval; a file from before it from the calls'; a window
// too short for its call time, or a starved load host, gives none and
// says why (a narrow interval around a biased value is worse than none).
func TestLevelStdErr(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	ops := &results.OpsInterval{BatchSize: 3, Batches: 20, Independent: true, MeanPerS: f(3000), HalfWidthPerS: f(30), HalfWidthPct: f(1)}
	calls := func(st *results.StepSteady) { // the calls' interval: ±20%
		st.Batches, st.BatchSize, st.Independent = 20, 3, true
		st.MeanPerS, st.HalfWidthPerS, st.HalfWidthPct = f(1000), f(200), f(20)
	}
	step := func(mod func(*results.StepResult)) *results.StepResult {
		st := &results.StepResult{Target: "a", Concurrency: 32, Clients: 3, OpsPerS: 3000, CallsPerS: 1000, Bound: "server",
			Steady: &results.StepSteady{Confidence: 0.95, BatchS: 0.1}}
		calls(st.Steady)
		mod(st)
		return st
	}
	tests := []struct {
		name    string
		st      *results.StepResult
		has     bool
		maxSE   float64 // the standard error is at most this (relative)
		minSE   float64
		whyHave string
	}{
		// The ops' ±1% gives ln-SE about 0.005, not the calls' ±20%.
		{"ops' own interval", step(func(s *results.StepResult) { s.Steady.Ops = ops }), true, 0.006, 0.004, ""},
		// An older file: the calls' relative half-width applies.
		{"older file: the calls'", step(func(*results.StepResult) {}), true, 0.11, 0.09, ""},
		// The ops recorded, without an interval: none, and the record's why.
		{"window too short", step(func(s *results.StepResult) {
			s.Steady.Ops = &results.OpsInterval{BatchSize: 30, Batches: 8}
			s.Steady.NoInterval = "the window held 8 batches of 3s"
		}), false, 0, 0, "the window held 8 batches"},
		// A starved load host: none, whatever the window says.
		{"starved host", step(func(s *results.StepResult) {
			s.Steady.Ops = ops
			s.Bound, s.BoundReason = "client", "load host CPU contended: our threads waited"
		}), false, 0, 0, "starved"},
	}
	for _, tt := range tests {
		lv := levelOf([]*results.StepResult{tt.st}, 1)
		if lv.HasSE != tt.has {
			t.Errorf("%s: HasSE %v, want %v (%s)", tt.name, lv.HasSE, tt.has, lv.NoSE)
			continue
		}
		if tt.has && (lv.LogSE > tt.maxSE || lv.LogSE < tt.minSE) {
			t.Errorf("%s: log SE %.4f, want %.3f–%.3f", tt.name, lv.LogSE, tt.minSE, tt.maxSE)
		}
		if !tt.has && !strings.Contains(lv.NoSE, tt.whyHave) {
			t.Errorf("%s: no SE, why %q, want it to say %q", tt.name, lv.NoSE, tt.whyHave)
		}
	}
	// The verdict names why the ratio has none.
	starved := levelOf([]*results.StepResult{tests[3].st}, 1)
	b, c := oneNode(0.01), cluster(0.01)
	for i := range b.Levels {
		if b.Levels[i].Concurrency == b.Report.Peak.Concurrency {
			b.Levels[i].HasSE, b.Levels[i].NoSE = false, starved.NoSE
		}
	}
	cmp := compare(b, c, 0.05)
	if cmp.PeakRatio.Has() || !strings.Contains(cmp.Verdict, "(no interval: standalone's peak ran on a starved load host)") {
		t.Errorf("verdict %q, ratio %+v", cmp.Verdict, cmp.PeakRatio)
	}
}
