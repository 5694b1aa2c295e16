package compare

import (
	"strings"
	"testing"
)

func TestRegressions(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	metric := func(status status, delta float64) *metricComparison {
		return &metricComparison{Status: status, DeltaPct: f(delta), PValue: f(0.01)}
	}
	step := func(name string, ms map[string]*metricComparison) *Step {
		return &Step{Target: name, Workload: "read", Concurrency: 8, Pool: "match", BaselineTrials: 5, CandidateTrials: 5, Metrics: ms}
	}
	c := &Comparison{Steps: []*Step{
		// Throughput fell 17%, significantly: a regression.
		step("drop", map[string]*metricComparison{OpsPerS: metric(statusChanged, -17)}),
		// Fell 4%: within the 5% allowed.
		step("small", map[string]*metricComparison{OpsPerS: metric(statusChanged, -4)}),
		// Fell 30% but inside the noise: never a regression.
		step("noise", map[string]*metricComparison{OpsPerS: metric(statusNoChange, -30)}),
		// Too few trials to test: never a regression.
		step("few", map[string]*metricComparison{OpsPerS: metric(StatusUnconfirmed, -30)}),
		// Throughput rose and p99 fell: better, not worse.
		step("better", map[string]*metricComparison{OpsPerS: metric(statusChanged, 20), ReadP99US: metric(statusChanged, -20)}),
		// p99 rose 12% (reads) and 6% (writes): two regressions.
		step("slow", map[string]*metricComparison{ReadP99US: metric(statusChanged, 12), WriteP99US: metric(statusChanged, 6)}),
		// CPU rose a lot: not a regression metric.
		step("cpu", map[string]*metricComparison{ServerCPUPct: metric(statusChanged, 50)}),
	}}
	rs := c.Regressions(5)
	var got []string
	for _, r := range rs {
		got = append(got, r.Step.Target+" "+r.Metric)
	}
	want := "drop ops_per_s, slow read_p99_us, slow write_p99_us"
	if strings.Join(got, ", ") != want {
		t.Errorf("regressions %v, want %s", got, want)
	}
	var b strings.Builder
	if err := WriteRegressions(&b, rs[:1], 5); err != nil {
		t.Fatal(err)
	}
	if w := "1 significant regression(s) worse than 5% on throughput or p99:\n  drop read C=8 pool=match: throughput -17.0% (5 vs 5 trials, p=0.01)\n"; b.String() != w {
		t.Errorf("text %q, want %q", b.String(), w)
	}
	if got := c.Regressions(20); len(got) != 0 {
		t.Errorf("at 20%%: %d regressions, want none", len(got))
	}
}
