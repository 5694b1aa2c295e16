package main

import (
	"encoding/json"
	"github.com/poolsweep/poolsweep/internal/errext"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// gatesSweep sweeps the simulator at uri in-process with short windows
// and returns the exit status, stdout and the results.
func gatesSweep(t *testing.T, uri string, args ...string) (int, string, *results.Results) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := runCLI(t, append([]string{"sweep", "--uri", uri, "--concurrency", "1,2,4,8", "--warmup", "100ms",
		"--duration", "500ms", "--records", "200", "--op-timeout", "2s", "--no-plot", "--out", out}, args...)...)
	t.Logf("exit %d\n%s\n%s", code, stdout, stderr)
	return code, stdout, readRes(t, filepath.Join(out, "results.jsonl"))
}

// TestThresholds: a sweep whose thresholds hold exits 0, one with a
// failed threshold (and one that cannot be evaluated) exits 4; both print
// each outcome with its value and record them in the end record, whose
// values are the step records'; analyze judges the same file alike.
func TestThresholds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	// 4 slots of 5 ms: at most 800 ops/s, far below what the client can
	// issue, so the steps are the server's.
	uri, _ := startServe(t, "--sim", "slots=4,service=5ms")

	pass := []string{"p99<2s@2", "errors<1%", "connections<=8", "calls/s>0@every"}
	code, stdout, res := gatesSweep(t, uri, thresholdArgs(pass)...)
	if code != 0 || !strings.Contains(stdout, "thresholds: 4 of 4 passed") {
		t.Fatalf("passing thresholds: exit %d, want 0 and 4 of 4 passed", code)
	}
	checkEndThresholds(t, res, pass, []bool{true, true, true, true})

	fail := []string{"ops>1000000@4", "p99<2s@64", "p99<2s@2", "knee>=1"}
	code, stdout, res = gatesSweep(t, uri, thresholdArgs(fail)...)
	if code != errext.ExitGate {
		t.Fatalf("failing thresholds: exit %d, want %d", code, errext.ExitGate)
	}
	a := analysis.Of([]*results.Results{res}, knee.DefaultOptions())
	kneeFound := len(a.Series) == 1 && a.Series[0].Knee.Found
	outs := checkEndThresholds(t, res, fail, []bool{false, false, true, kneeFound})
	for _, want := range []string{"FAIL  ops>1000000@4", "FAIL  p99<2s@64 ", "concurrency 64 was not measured", "pass  p99<2s@2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	// The values are the step records' (one trial: the median is the step).
	if v := outs[0].Checks[0].Value; v == nil || *v != stepAt(t, res, res.Steps[0].Target, 4).OpsPerS {
		t.Errorf("ops@4 = %v, want the step's %g", v, stepAt(t, res, res.Steps[0].Target, 4).OpsPerS)
	}
	if v := outs[2].Checks[0].Value; v == nil || math.Abs(*v-stepAt(t, res, res.Steps[0].Target, 2).Latency.P99) > 1e-9 {
		t.Errorf("p99@2 = %v, want the step's %g", v, stepAt(t, res, res.Steps[0].Target, 2).Latency.P99)
	}
	if c := outs[3].Checks[0]; kneeFound && (c.Value == nil || int(*c.Value) != a.Series[0].Knee.Concurrency) {
		t.Errorf("knee = %v, want the analysis's %d", c.Value, a.Series[0].Knee.Concurrency)
	}

	// analyze judges the file as the sweep did, in text and JSON.
	code, text, _ := runCLI(t, append([]string{"analyze", res.Path}, thresholdArgs(fail)...)...)
	if code != errext.ExitGate || !strings.Contains(text, "FAIL  ops>1000000@4") {
		t.Errorf("analyze: exit %d, want %d and the outcomes:\n%s", code, errext.ExitGate, text)
	}
	code, js, _ := runCLI(t, append([]string{"analyze", res.Path, "--format", "json"}, thresholdArgs(fail)...)...)
	var doc struct {
		Series     []json.RawMessage          `json:"series"`
		Thresholds []results.ThresholdOutcome `json:"thresholds"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || code != errext.ExitGate || len(doc.Series) != 1 || len(doc.Thresholds) != len(fail) {
		t.Errorf("analyze --format json: exit %d, %v, %d series and %d thresholds", code, err, len(doc.Series), len(doc.Thresholds))
	}
	for i, o := range doc.Thresholds {
		if o.Pass != outs[i].Pass {
			t.Errorf("analyze says %s passes %v, the sweep %v", o.Threshold, o.Pass, outs[i].Pass)
		}
	}
	if code, _, _ := runCLI(t, append([]string{"analyze", res.Path}, thresholdArgs(pass)...)...); code != 0 {
		t.Errorf("analyze with passing thresholds: exit %d", code)
	}
}

func thresholdArgs(ts []string) []string {
	var args []string
	for _, s := range ts {
		args = append(args, "--threshold", s)
	}
	return args
}

// checkEndThresholds checks the end record lists the thresholds in order
// with the outcomes wanted, and that the record is valid.
func checkEndThresholds(t *testing.T, res *results.Results, ts []string, pass []bool) []results.ThresholdOutcome {
	t.Helper()
	if res.End == nil || len(res.End.Thresholds) != len(ts) {
		t.Fatalf("end record %+v: want %d thresholds", res.End, len(ts))
	}
	if err := results.ValidateEnd(res.End); err != nil {
		t.Errorf("end record: %v", err)
	}
	for i, o := range res.End.Thresholds {
		if o.Threshold != ts[i] || o.Pass != pass[i] {
			t.Errorf("end record threshold %d: %s pass %v, want %s pass %v (%+v)", i, o.Threshold, o.Pass, ts[i], pass[i], o.Checks)
		}
	}
	return res.End.Thresholds
}

// TestThresholdBadInput: a bad threshold is refused before anything
// starts, naming the flag and the bad part.
func TestThresholdBadInput(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--threshold", "p95<20ms"}, `--threshold: threshold "p95<20ms": unknown metric "p95"`},
		{[]string{"sweep", "--threshold", "p99<20"}, "takes a duration"},
		{[]string{"analyze", "x.jsonl", "--threshold", "ops>5000@peak"}, "@peak is not a concurrency level"},
		{[]string{"analyze", "--csv", "x.csv", "--threshold", "ops>1"}, "--threshold: judged on results files' steps, not on --csv"},
		{[]string{"sweep", "--spawn", "2", "--threshold", "ops>1"}, "--threshold: several agents' steps are judged once merged"},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != errext.ExitUsage || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", tc.args, code, stderr, tc.want)
		}
	}
}
