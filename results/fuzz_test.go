package results_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/report"
	"github.com/poolsweep/poolsweep/results"
)

// FuzzReadResults: a results file never panics the reader or its
// validator, and whatever the validator accepts, strictly or leniently,
// the analysis, the figures, the report and the comparison process
// without panicking. What it accepts has a header and only steps that
// pass validation.
func FuzzReadResults(f *testing.F) {
	for _, seed := range fuzzSeeds(f) {
		f.Add(seed)
	}
	f.Add([]byte(`{"kind":"run","schema":99}`))
	f.Add([]byte("\x00\xff\n\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, o := range []results.ReadOptions{{}, {Lenient: true}} {
			res, err := results.ReadResultsWith(bytes.NewReader(b), "f", o)
			if err != nil {
				continue
			}
			if res.Header.Kind != results.KindRun {
				t.Fatalf("accepted without a run header")
			}
			for i := range res.Steps {
				if err := results.ValidateStep(&res.Steps[i], &res.Header); err != nil {
					t.Fatalf("accepted a step the validator refuses: %v", err)
				}
			}
			process(t, res)
		}
	})
}

// process runs what analyze, the sweep's summary, plot, report and
// compare run on res.
func process(t *testing.T, res *results.Results) {
	rs := []*results.Results{res}
	a := analysis.Of(rs, knee.DefaultOptions())
	if err := render.Text(io.Discard, a); err != nil {
		t.Logf("analyze text: %v", err)
	}
	if err := render.JSON(io.Discard, a); err != nil {
		t.Logf("analyze json: %v", err)
	}
	if err := render.Summary(io.Discard, res, a); err != nil {
		t.Logf("sweep summary: %v", err)
	}
	if rep, _, err := report.New(rs, a, nil); err == nil {
		for i := range rep.Figures {
			_ = rep.Figures[i].WriteSVG(io.Discard)
		}
		_ = rep.WriteHTML(io.Discard)
	}
	if len(res.Header.Targets) >= 2 {
		c, err := compare.Match(rs, rs, compare.Options{Baseline: res.Header.Targets[0].Name, Candidate: res.Header.Targets[1].Name, Alpha: compare.DefaultAlpha})
		if err == nil {
			_ = compare.WriteText(io.Discard, c)
		}
	}
}

// fuzzSeeds are valid files of a few shapes (two targets, trials, a
// failed step, an open-loop step) for the fuzzer to mutate.
func fuzzSeeds(f *testing.F) [][]byte {
	h := results.RunHeader{Kind: results.KindRun, Schema: results.SchemaVersion, RunID: "x", StartedAt: time.Unix(0, 0).UTC(),
		Workload: results.WorkloadInfo{Name: "read"},
		Plan:     results.PlanInfo{Concurrency: []int{1, 2, 4}, Pool: "match", Clients: 1, Trials: 2, DurationS: 2},
		Targets:  []results.TargetHeader{{Name: "a"}, {Name: "b"}}}
	lineOf := func(rec any) string {
		b, err := json.Marshal(rec)
		if err != nil {
			f.Fatal(err)
		}
		return string(b) + "\n"
	}
	step := func(target string, c, trial int, opsPerS float64) results.StepResult {
		hist := hdr.New(1, 60_000_000, 3)
		for i := range 50 {
			hist.RecordValue(int64(c*500 + 7*i))
		}
		lat := results.NewLatencySummary(hist)
		ops := int64(opsPerS * 2)
		return results.StepResult{Kind: results.KindStep, Target: target, Workload: "read", PoolSetting: "match", Concurrency: c,
			MaxPoolSize: c, Clients: 1, Trial: trial, StartedAt: time.Unix(100, 0).UTC(), DurationS: 2, Calls: ops, Ops: ops,
			CallsPerS: opsPerS, OpsPerS: opsPerS, Latency: lat,
			OpsByType:  map[string]results.OpTypeStats{results.TypeFind: {Count: ops, PerS: opsPerS, Latency: lat}},
			Histograms: &results.StepHistograms{Call: results.EncodeHistogram(hist), Ops: map[string]string{results.TypeFind: results.EncodeHistogram(hist)}}}
	}
	var grid string
	for _, target := range []string{"a", "b"} {
		for trial := 1; trial <= 2; trial++ {
			for i, c := range []int{1, 2, 4} {
				grid += lineOf(step(target, c, trial, float64(1000*(i+1)+trial)))
			}
		}
	}
	end := lineOf(results.EndRecord{Kind: results.KindEnd, Status: results.StatusComplete, Steps: 12, Planned: 12})
	failed := step("a", 8, 1, 300)
	failed.Bound, failed.BoundReason = results.BoundFailed, "target failed during the window: x"
	failed.TargetFailed = &results.TargetFailed{Failed: true, Reason: "x", StalledS: 1.4, FirstFailureS: 1.6}
	open := step("a", 100, 1, 500)
	open.Mode, open.Rate = results.ModeOpen, 500
	open.Open = &results.OpenLoopStats{Arrivals: results.ArrivalsUniform, MaxInFlight: 100, Offered: 1000, OfferedPerS: 500, AchievedPerS: 500, Corrected: open.Latency}
	return [][]byte{
		[]byte(lineOf(h) + grid + end),
		[]byte(lineOf(h) + grid + lineOf(failed)),
		[]byte(lineOf(h) + lineOf(open) + end),
		[]byte(lineOf(h) + grid[:len(grid)/2]), // cut mid-record
	}
}
