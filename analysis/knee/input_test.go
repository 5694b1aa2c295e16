package knee

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// Results files that lie must never turn into zeros, let alone into
// "recommendation: concurrency 0".
func TestFromResultsLeavesOutUnusableSteps(t *testing.T) {
	good := func(c int, ops float64) results.StepResult {
		return results.StepResult{Kind: results.KindStep, Target: "sim", PoolSetting: "match", Concurrency: c, Trial: 1,
			DurationS: 10, Ops: int64(ops * 10), Calls: int64(ops * 10), OpsPerS: ops}
	}
	tests := []struct {
		name string
		bad  func(results.StepResult) results.StepResult
		warn string
	}{
		{"concurrency 0", func(s results.StepResult) results.StepResult { s.Concurrency = 0; return s },
			"r.jsonl: step record 3 (target=sim C=0 pool=match trial 1): concurrency 0 is not a positive number; left out"},
		{"negative concurrency", func(s results.StepResult) results.StepResult { s.Concurrency = -8; return s }, "concurrency -8 is not a positive number"},
		{"absurd concurrency", func(s results.StepResult) results.StepResult { s.Concurrency = 1 << 40; return s }, "above the largest a plan allows"},
		{"negative ops/s", func(s results.StepResult) results.StepResult { s.OpsPerS = -500; return s }, "ops_per_s -500 is negative"},
		{"NaN ops/s", func(s results.StepResult) results.StepResult { s.OpsPerS = math.NaN(); return s }, "not a finite number"},
		{"missing ops/s", func(s results.StepResult) results.StepResult { s.OpsPerS = 0; return s }, "ops_per_s is missing or 0 although 40000 operations were counted"},
		{"hostile target", func(s results.StepResult) results.StepResult { s.Target = "sim\x1b[2J"; s.Concurrency = 0; return s }, `target=sim\x1b[2J C=0`},
	}
	for _, tt := range tests {
		steps := []results.StepResult{good(1, 1000), good(2, 2000), tt.bad(good(4, 4000)), good(8, 4000), good(16, 4000)}
		ss := FromResults([]*results.Results{{Path: "r.jsonl", Steps: steps}})
		var pts int
		var warns []string
		for _, s := range ss {
			pts += len(s.Points)
			warns = append(warns, s.Warnings...)
			for _, p := range s.Points {
				if p.Concurrency < 1 || !(p.QPS > 0) {
					t.Errorf("%s: point %+v was kept", tt.name, p)
				}
			}
		}
		joined := strings.Join(warns, "\n")
		if pts != 4 || !strings.Contains(joined, tt.warn) {
			t.Errorf("%s: %d points, warnings %q; want 4 and %q", tt.name, pts, joined, tt.warn)
		}
		if strings.ContainsRune(joined, 0x1b) {
			t.Errorf("%s: raw escape in warnings %q", tt.name, joined)
		}
	}
}

func TestNoRecommendationFromOnlyBadSteps(t *testing.T) {
	steps := []results.StepResult{
		{Kind: results.KindStep, Target: "x", PoolSetting: "match", Concurrency: 0, OpsPerS: 100, Ops: 1000, DurationS: 10},
		{Kind: results.KindStep, Target: "x", PoolSetting: "match", Concurrency: 8, OpsPerS: -100, Ops: 1000, DurationS: 10},
	}
	reports := AnalyzeAll(FromResults([]*results.Results{{Path: "lies.jsonl", Steps: steps}}), DefaultOptions())
	var text, js bytes.Buffer
	if err := WriteText(&text, reports); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, reports); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "recommendation: concurrency 0") || !strings.Contains(text.String(), "recommendation: none") ||
		!strings.Contains(text.String(), "step record 1") || !strings.Contains(text.String(), "step record 2") {
		t.Errorf("text:\n%s", text.String())
	}
	if !strings.Contains(js.String(), `"concurrency": null`) || strings.Contains(js.String(), `"concurrency": 0`) ||
		!strings.Contains(js.String(), `"levels": []`) {
		t.Errorf("json:\n%s", js.String())
	}
}

func TestReadCSVValidatesEveryField(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		// Numbers must be plain decimals: no hex, no Inf, no digit separators.
		{"hex qps", "concurrency,qps\n1,0x10\n", `seeds.csv:2: qps: not a number`},
		{"inf qps", "concurrency,qps\n1,Inf\n", `seeds.csv:2: qps: not a number`},
		{"huge qps", "concurrency,qps\n1,1e400\n", `seeds.csv:2: qps: not a number`},
		{"underscores", "concurrency,qps\n1_000,5\n", `seeds.csv:2: concurrency: not a whole number`},
		{"empty qps", "concurrency,qps\n8,\n", `seeds.csv:2: qps: missing value`},
		{"empty concurrency", "concurrency,qps\n,5\n", `seeds.csv:2: concurrency: missing value`},
		// Counts in range.
		{"absurd concurrency", "concurrency,qps\n99999999999,5\n", `seeds.csv:2: concurrency: larger than 10000000`},
		{"zero clients", "concurrency,qps,clients\n1,5,0\n", `seeds.csv:2: clients: must be at least 1`},
		{"zero connections", "concurrency,qps,connections\n1,5,0\n", `seeds.csv:2: connections: must be at least 1`},
		{"fractional trial", "concurrency,qps,trial\n1,5,1.5\n", `seeds.csv:2: trial: not a trial number`},
		// Labels are printable and pools are "match" or a size.
		{"escape in target", "concurrency,qps,target\n1,5,a\x1b[31mred\n", `seeds.csv:2: target: holds a non-printing character`},
		{"bad pool", "concurrency,qps,pool\n1,5,big\n", `seeds.csv:2: pool: not "match" or a pool size`},
		{"long workload", "concurrency,qps,workload\n1,5," + strings.Repeat("w", 201) + "\n", `seeds.csv:2: workload: 201 characters is longer than 200`},
		// A reported case: a header with escape sequences was echoed
		// raw; and another: a header was echoed at all (a symlink to
		// /etc/shadow showed its first line). Only the count is said.
		{"escape in header", "\x1b]0;pwned\x07concurrency,ops\n1,5\n", `seeds.csv:1: missing column concurrency (or connections): not among the header's 2 columns`},
		{"a password file", "root:*:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n", `seeds.csv:1: missing column concurrency (or connections): not among the header's 1 column`},
		{"escape in a duplicate column", "qps,concurrency,q\x1bps,q\x1bps\n", `seeds.csv:1: columns 3 and 4 of the header have one name`},
		// A quote in a bare field: encoding/csv's line and column.
		{"bare quote", "concurrency,qps\n1,5\"x\n", `seeds.csv:2: column 4: bare " in non-quoted-field`},
		// A ragged row keeps encoding/csv's line number.
		{"ragged row", "concurrency,qps\n1,10\n2,20\nabc\n", "seeds.csv:4: wrong number of fields"},
		// The example from the brief: a non-number names file, line and column.
		{"qps abc", "concurrency,qps\n1,10\n2,20\n4,abc\n", `seeds.csv:4: qps: not a number`},
		// Missing required column, on the header line.
		{"no qps", "concurrency,ops\n1,10\n", "seeds.csv:1: missing column qps: not among the header's 2 columns"},
		// Neither concurrency nor connections.
		{"no x", "threads,qps\n1,10\n", "seeds.csv:1: missing column concurrency (or connections): not among the header's 2 columns"},
		// Header only: an empty series.
		{"no rows", "concurrency,qps\n", "seeds.csv:2: no data rows after the header"},
		// Nothing at all.
		{"empty file", "", "seeds.csv:1: no data rows: the file is empty, want a header row"},
		// Concurrency must be a positive whole number.
		{"zero concurrency", "concurrency,qps\n0,10\n", `seeds.csv:2: concurrency: must be at least 1`},
		{"fractional concurrency", "concurrency,qps\n64.5,10\n", `seeds.csv:2: concurrency: not a whole number`},
		// Negative and non-finite throughput.
		{"negative qps", "concurrency,qps\n1,-5\n", `seeds.csv:2: qps: must not be negative`},
		{"NaN p99", "concurrency,qps,p99_ms\n1,5,NaN\n", `seeds.csv:2: p99_ms: not a number`},
		// A bad optional column is still an error, not silently dropped.
		{"bad clients", "concurrency,qps,clients\n1,5,three\n", `seeds.csv:2: clients: not a whole number`},
		{"bad trial", "concurrency,qps,trial\n1,5,-1\n", `seeds.csv:2: trial: not a trial number`},
		// A duplicated column is ambiguous.
		{"duplicate", "qps,concurrency,qps\n1,2,3\n", "seeds.csv:1: qps: appears twice in the header"},
	}
	for _, tt := range tests {
		_, err := ReadCSV(strings.NewReader(tt.in), "seeds.csv")
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		var ie *InputError
		if !errors.As(err, &ie) || ie.File != "seeds.csv" || ie.Line < 1 {
			t.Errorf("%s: %v is not an InputError with file and line", tt.name, err)
		}
		if err.Error() != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, err, tt.want)
		}
		if strings.ContainsAny(err.Error(), "\x1b\x07\n\r") {
			t.Errorf("%s: raw control character in %q", tt.name, err.Error())
		}
	}
	// A file name with control characters is escaped too.
	_, err := ReadCSV(strings.NewReader(""), "evil\x1b[2J.csv")
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Errorf("file name not escaped: %q", err)
	}
	// What is valid still reads: pool sizes, trial 0, "64.0".
	ss, err := ReadCSV(strings.NewReader("concurrency,qps,pool,trial,workload\n64.0,5,16,0,read\n8,4,match,1,read\n"), "ok.csv")
	if err != nil || len(ss) != 2 || ss[0].Pool != "16" || ss[0].Points[0].Concurrency != 64 {
		t.Errorf("valid file: %v %+v", err, ss)
	}
}

// OnCurve is the steps FromResults reads as points (every usable one):
// the figures draw these and no others. Open-loop steps, interrupted
// steps and a pool search's probes are not on a curve.
func TestOnCurveIsFromResults(t *testing.T) {
	mk := func(c int, f func(*results.StepResult)) results.StepResult {
		s := results.StepResult{Kind: results.KindStep, Target: "sim", PoolSetting: "match", Concurrency: c, Trial: 1,
			DurationS: 10, Ops: 10000, Calls: 10000, OpsPerS: 1000}
		if f != nil {
			f(&s)
		}
		return s
	}
	steps := []results.StepResult{
		mk(1, nil), mk(2, nil), mk(4, nil),
		mk(8, func(s *results.StepResult) { s.Interrupted = true }),
		mk(8, func(s *results.StepResult) { s.TargetFailed = &results.TargetFailed{Reason: "no reply for 2s"} }),
		mk(16, func(s *results.StepResult) { s.Partial = true }),
		mk(8, func(s *results.StepResult) { s.Mode, s.Rate, s.Open = results.ModeOpen, 100, &results.OpenLoopStats{} }),
		mk(4, func(s *results.StepResult) {
			s.PoolSetting, s.MaxPoolSize = "2", 2
			s.Search = &results.SearchInfo{Mode: results.SearchPool, Reason: results.ReasonPool}
		}),
		// A pool-match step a pool search measured is on the curve.
		mk(16, func(s *results.StepResult) {
			s.Search = &results.SearchInfo{Mode: results.SearchPool, Reason: results.ReasonRepeat}
		}),
	}
	on := 0
	for i := range steps {
		if OnCurve(&steps[i]) {
			on++
		}
	}
	pts := 0
	for _, s := range FromResults([]*results.Results{{Path: "r", Steps: steps}}) {
		pts += len(s.Points)
		if s.Pool != "match" {
			t.Errorf("a series of pool %q: the pool search's probes are not a curve", s.Pool)
		}
	}
	if on != 4 || pts != on {
		t.Errorf("%d steps on a curve, %d points; want 4 and 4", on, pts)
	}
}

// TestFromResultsLeavesOutPartialSteps: a merged agent run whose agent 2
// died before C=8: the partial steps (two agents' clients) are not points
// of the planned 3-client series, nor a series of their own; the series
// names them with the agent they ran without (analysis.MissingSteps
// counts them as not measured: TestMissingStepsCountsPartialSteps).
func TestFromResultsLeavesOutPartialSteps(t *testing.T) {
	res := &results.Results{Path: "merged.jsonl"}
	res.Header.Plan = results.PlanInfo{Concurrency: []int{1, 2, 4, 8, 16}, Pool: "match", Clients: 3, Trials: 1, Steps: 5}
	res.Header.Targets = []results.TargetHeader{{Name: "sim"}}
	res.End = &results.EndRecord{Kind: results.KindEnd, Status: results.StatusPartial, Reason: "2 of 5 merged step(s) are partial"}
	for _, c := range []int{1, 2, 4, 8, 16} {
		st := results.StepResult{Kind: results.KindStep, Target: "sim", Workload: "read", PoolSetting: "match", Concurrency: c, Clients: 3,
			Trial: 1, DurationS: 10, OpsPerS: float64(300 * min(c, 4)), Ops: int64(3000 * min(c, 4)), Calls: int64(3000 * min(c, 4))}
		if c >= 8 {
			// Two agents' clients and operations: a third less than the level's.
			st.Clients, st.OpsPerS, st.Partial = 2, st.OpsPerS*2/3, true
			st.MissingAgents = []results.MissingAgent{{Index: 2, Host: "load3", Reason: "stopped answering during the step"}}
		}
		res.Steps = append(res.Steps, st)
	}
	ss := FromResults([]*results.Results{res})
	if len(ss) != 1 || ss[0].Clients != 3 {
		t.Fatalf("%d series (want one, of 3 clients): %+v", len(ss), ss)
	}
	for _, p := range ss[0].Points {
		if p.Concurrency >= 8 {
			t.Errorf("partial step C=%d is a point of the series", p.Concurrency)
		}
	}
	want := "2 partial step(s) left out of the knee, peak and recommendation: they ran without some agents, so they carried less than the planned 3 clients' load: " +
		"C=8 trial 1 (without agent 2 on load3: stopped answering during the step), C=16 trial 1 (without agent 2 on load3: stopped answering during the step)"
	if len(ss[0].Points) != 3 || !slices.Contains(ss[0].Warnings, want) {
		t.Errorf("%d points, warnings %q; want 3 and %q", len(ss[0].Points), ss[0].Warnings, want)
	}
	r := Analyze(ss[0], DefaultOptions())
	if r.Peak.Concurrency != 4 || !slices.Contains(r.Warnings, want) {
		t.Errorf("peak %+v, warnings %q", r.Peak, r.Warnings)
	}
	var text bytes.Buffer
	if err := WriteText(&text, []Report{r}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "C=8 trial 1 (without agent 2 on load3") {
		t.Errorf("analyze text does not name the partial steps:\n%s", text.String())
	}
}
