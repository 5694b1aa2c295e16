package threshold

import (
	"math"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// run is a closed-loop sweep of one series whose throughput rises as
// 100·C up to 800 ops/s (8 slots) and whose p99 grows with the queue past
// C=8; trial t's numbers are the level's times (1 + (t−2)/100), so the
// median trial is trial 2. Step (C=32, trial 3) has 5 errors of 1000 ops.
func run() *results.Results {
	r := &results.Results{Path: "r.jsonl"}
	r.Header.Targets = []results.TargetHeader{{Name: "sim"}}
	for _, c := range []int{1, 2, 4, 8, 16, 32} {
		for trial := 1; trial <= 3; trial++ {
			f := 1 + float64(trial-2)/100
			qps := 100 * float64(min(c, 8)) * f
			p99 := 10 * math.Max(1, float64(c)/8) * f
			st := results.StepResult{Kind: results.KindStep, Target: "sim", Workload: "read", PoolSetting: "match",
				Concurrency: c, MaxPoolSize: c, Clients: 1, Connections: c, Trial: trial, DurationS: 1,
				Calls: int64(qps), Ops: int64(qps), CallsPerS: qps, OpsPerS: qps,
				Latency: results.LatencySummary{P50: p99 / 2, P99: p99}}
			st.Pool.CheckoutWait.P99 = 0.5 * f
			if c == 32 && trial == 3 {
				st.Ops, st.Errors.Timeout = 1000, 5
			}
			r.Steps = append(r.Steps, st)
		}
	}
	return r
}

func evaluate(t *testing.T, rs []*results.Results, text ...string) []results.ThresholdOutcome {
	t.Helper()
	var ts []Threshold
	for _, s := range text {
		th, err := Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	return Evaluate(ts, rs, analysis.Of(rs, knee.DefaultOptions()))
}

func TestEvaluate(t *testing.T) {
	rs := []*results.Results{run()}
	a := analysis.Of(rs, knee.DefaultOptions())
	if len(a.Series) != 1 || !a.Series[0].Knee.Found {
		t.Fatalf("the fixture has no knee: %+v", a.Series)
	}
	kneeC := a.Series[0].Knee.Concurrency
	kneeQPS := 100 * float64(min(kneeC, 8)) // the median trial's
	for _, tc := range []struct {
		threshold string
		pass      bool
		value     float64 // the value the check reports
		note      string  // or the note of a check that could not be made
	}{
		// At a level: the median of its trials (trial 2).
		{"p99<20ms@8", true, 10, ""},
		{"p99<20ms@32", false, 40, ""},
		{"calls>399@4", true, 400, ""},
		{"p50<=5ms@8", true, 5, ""},
		{"connections<=16@16", true, 16, ""},
		// At the knee: the analysis's knee, its level's median.
		{"ops>=700@knee", kneeQPS >= 700, kneeQPS, ""},
		{"knee>=4", kneeC >= 4, float64(kneeC), ""},
		{"knee<4", kneeC < 4, float64(kneeC), ""},
		// Every step: the worst one counts.
		{"ops>50", true, 99, ""},                // C=1 trial 1
		{"ops>100", false, 99, ""},              // the same step fails it
		{"pool_wait<0.505ms", false, 0.505, ""}, // trial 3's 0.505 is not below
		{"errors<0.1%", false, 0.5, ""},         // 5 of 1000
		{"errors<=5", true, 5, ""},
		// Cannot be evaluated: fails, saying why.
		{"p99<20ms@64", false, -1, "concurrency 64 was not measured"},
	} {
		out := evaluate(t, rs, tc.threshold)[0]
		if out.Pass != tc.pass || len(out.Checks) != 1 {
			t.Errorf("%s: pass %v with %d checks %+v, want pass %v and one check", tc.threshold, out.Pass, len(out.Checks), out.Checks, tc.pass)
			continue
		}
		c := out.Checks[0]
		switch {
		case tc.note != "":
			if c.Value != nil || !strings.Contains(c.Note, tc.note) {
				t.Errorf("%s: value %v note %q, want no value and %q", tc.threshold, c.Value, c.Note, tc.note)
			}
		case c.Value == nil || math.Abs(*c.Value-tc.value) > 1e-9:
			t.Errorf("%s: value %v (%s), want %g", tc.threshold, c.Value, c.Note, tc.value)
		}
	}
}

// A threshold that cannot be evaluated never passes.
func TestEvaluateCannot(t *testing.T) {
	flat := run()
	flat.Steps = flat.Steps[:3] // one level: no knee
	open := &results.Results{Steps: []results.StepResult{{Kind: results.KindStep, Target: "sim", PoolSetting: "8", Concurrency: 8, Mode: results.ModeOpen, Rate: 100, Trial: 1, OpsPerS: 100, Calls: 0}}}
	dead := run()
	for i := range dead.Steps {
		dead.Steps[i].Interrupted = true
	}
	for _, tc := range []struct {
		rs        *results.Results
		threshold string
		note      string
	}{
		{flat, "ops>1@knee", "no knee found"},
		{flat, "knee>=1", "no knee found"},
		{open, "p99<1s@8", "no closed-loop series"},
		{open, "knee>=1", "no closed-loop series"},
		{open, "p99<1s", "no call ended"},
		{dead, "errors<=0", "no measured step"},
	} {
		out := evaluate(t, []*results.Results{tc.rs}, tc.threshold)[0]
		if out.Pass || len(out.Checks) == 0 || out.Checks[0].Value != nil || !strings.Contains(out.Checks[0].Note, tc.note) {
			t.Errorf("%s: %+v, want a failure saying %q", tc.threshold, out, tc.note)
		}
	}
}

// Every series is checked; one failing series fails the threshold.
func TestEvaluateEverySeries(t *testing.T) {
	a, b := run(), run()
	for i := range b.Steps {
		b.Steps[i].Target = "other"
		b.Steps[i].Latency.P99 *= 3
	}
	b.Header.Targets[0].Name = "other"
	out := evaluate(t, []*results.Results{a, b}, "p99<20ms@8")[0]
	if out.Pass || len(out.Checks) != 2 || !out.Checks[0].Pass || out.Checks[1].Pass {
		t.Fatalf("%+v: want sim to pass and other to fail", out)
	}
	var sb strings.Builder
	if err := WriteText(&sb, []results.ThresholdOutcome{out}); err != nil {
		t.Fatal(err)
	}
	want := "thresholds: 0 of 1 passed\n  pass  p99<20ms@8  sim read pool=match C=8: 10.0 ms (median of 3 trials)\n  FAIL  p99<20ms@8  other read pool=match C=8: 30.0 ms (median of 3 trials)\n"
	if sb.String() != want {
		t.Errorf("text:\n%s\nwant:\n%s", sb.String(), want)
	}
}
