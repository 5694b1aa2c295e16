package compare

import "testing"

func hlF(v float64) *float64 { return &v }

// opsStep is a matched step whose throughput changed by pct (with the
// interval lo..hi when both are set) with the given status.
func hlStep(target, workload string, c int, pct float64, status status, lo, hi *float64) *Step {
	return &Step{Target: target, Workload: workload, Concurrency: c, Pool: "match", Clients: 1,
		Metrics: map[string]*metricComparison{OpsPerS: {Name: OpsPerS, DeltaPct: hlF(pct), CILowPct: lo, CIHighPct: hi,
			Significant: status == statusChanged, Status: status}}}
}

func hlVerdict(target, workload string, c int) verdict {
	return verdict{Target: target, Workload: workload, Concurrency: c, Pool: "match", Clients: 1}
}

func TestHeadline(t *testing.T) {
	for _, tc := range []struct {
		name      string
		c         Comparison
		want      string
		wantC     int // the reference step's concurrency; 0 for none
		confirmed bool
	}{
		{
			// The study's finding: a significant fall at the baseline's peak, with its interval.
			"significant at the reference step",
			Comparison{Verdicts: []verdict{hlVerdict("", "read", 64)},
				Steps: []*Step{hlStep("", "read", 64, -17.2, statusChanged, hlF(-19.1), hlF(-14.5))}},
			"throughput −17% [−19%, −14%] at C=64", 64, true,
		},
		{
			// A larger change at a step that is not a verdict's reference does not make the headline.
			"only reference steps count",
			Comparison{Verdicts: []verdict{hlVerdict("", "read", 64)},
				Steps: []*Step{hlStep("", "read", 8, -40, statusChanged, nil, nil), hlStep("", "read", 64, 3.2, statusChanged, nil, nil)}},
			"throughput +3.2% at C=64", 64, true,
		},
		{
			// Several workloads: the largest change wins and names its workload.
			"largest of several workloads",
			Comparison{Verdicts: []verdict{hlVerdict("", "mix 100:0:0", 64), hlVerdict("", "mix 0:50:50", 256)},
				Steps: []*Step{hlStep("", "mix 100:0:0", 64, -4, statusChanged, nil, nil), hlStep("", "mix 0:50:50", 256, -17, statusChanged, nil, nil)}},
			"throughput −17% at C=256, mix 0:50:50", 256, true,
		},
		{
			// Too few trials: the change is shown but flagged, never as a finding.
			"unconfirmed only",
			Comparison{Verdicts: []verdict{hlVerdict("", "read", 8)},
				Steps: []*Step{hlStep("", "read", 8, 5, StatusUnconfirmed, nil, nil)}},
			"throughput +5.0% at C=8 (unconfirmed: too few trials)", 8, false,
		},
		{
			// A significant change beats a larger unconfirmed one.
			"significant beats unconfirmed",
			Comparison{Verdicts: []verdict{hlVerdict("", "a", 8), hlVerdict("", "b", 8)},
				Steps: []*Step{hlStep("", "a", 8, 30, StatusUnconfirmed, nil, nil), hlStep("", "b", 8, -6, statusChanged, nil, nil)}},
			"throughput −6.0% at C=8, b", 8, true,
		},
		{
			// Inside the noise everywhere.
			"no change",
			Comparison{Verdicts: []verdict{hlVerdict("", "read", 64)},
				Steps: []*Step{hlStep("", "read", 64, 1.1, statusNoChange, nil, nil)}},
			"no significant change in throughput", 0, false,
		},
		{
			// With target roles, a verdict refers only to its own role's step.
			"target roles",
			Comparison{Verdicts: []verdict{hlVerdict("a", "read", 64)},
				Steps: []*Step{hlStep("b", "read", 64, -50, statusChanged, nil, nil), hlStep("a", "read", 64, -8, statusChanged, nil, nil)}},
			"throughput −8.0% at C=64", 64, true,
		},
	} {
		h := tc.c.Headline()
		gotC := 0
		if h.Step != nil {
			gotC = h.Step.Concurrency
		}
		if h.Text != tc.want || gotC != tc.wantC || h.Confirmed != tc.confirmed {
			t.Errorf("%s: got %q (C=%d, confirmed %v), want %q (C=%d, confirmed %v)", tc.name, h.Text, gotC, h.Confirmed, tc.want, tc.wantC, tc.confirmed)
		}
	}
}

func TestHeadlineSideNames(t *testing.T) {
	two := sideInputs{Files: []string{"runs/off/results.jsonl"}, RunIDs: []string{"audit-off"}, Targets: []string{"default"}}
	noID := sideInputs{Files: []string{"runs/off/results.jsonl", "/x/more.jsonl"}, Targets: []string{"default"}}
	one := sideInputs{Files: []string{"ab/results.jsonl"}, RunIDs: []string{"r1"}, Targets: []string{"standalone"}}
	for _, tc := range []struct {
		s           sideInputs
		oneFile     bool
		name, short string
	}{
		{two, false, "audit-off (results.jsonl)", "audit-off"},                  // two files: the run, and the file for the legend
		{noID, false, "results.jsonl, more.jsonl", "results.jsonl, more.jsonl"}, // no run id: the file names
		{one, true, "target standalone (r1)", "standalone"},                     // one file, two targets: the target is the side
	} {
		if got := tc.s.Name(tc.oneFile); got != tc.name {
			t.Errorf("Name(%+v) = %q, want %q", tc.s, got, tc.name)
		}
		if got := tc.s.ShortName(tc.oneFile); got != tc.short {
			t.Errorf("ShortName(%+v) = %q, want %q", tc.s, got, tc.short)
		}
	}
	c := Comparison{Baseline: one, Candidate: sideInputs{Files: one.Files, Targets: []string{"sharded"}}}
	if !c.OneFile() {
		t.Error("same files: OneFile false")
	}
	c.Candidate.Files = []string{"other.jsonl"}
	if c.OneFile() {
		t.Error("different files: OneFile true")
	}
}

func TestHeadlineSeriesKey(t *testing.T) {
	single := Comparison{Baseline: sideInputs{Targets: []string{"a"}}, Candidate: sideInputs{Targets: []string{"b"}}}
	multi := Comparison{Baseline: sideInputs{Targets: []string{"a", "b"}}, Candidate: sideInputs{Targets: []string{"a", "b"}}}
	// One target a side: the series pair whatever the targets' names.
	if single.SeriesKey("a", "read", "match", 1) != single.SeriesKey("b", "read", "match", 1) {
		t.Error("one target a side: series of differently named targets do not pair")
	}
	// Several targets: they pair by name.
	if multi.SeriesKey("a", "read", "match", 1) == multi.SeriesKey("b", "read", "match", 1) {
		t.Error("several targets: series of different targets pair")
	}
	// Pool and clients always split series.
	if single.SeriesKey("a", "read", "match", 1) == single.SeriesKey("a", "read", "16", 1) ||
		single.SeriesKey("a", "read", "match", 1) == single.SeriesKey("a", "read", "match", 3) {
		t.Error("pool or clients do not split series")
	}
}
