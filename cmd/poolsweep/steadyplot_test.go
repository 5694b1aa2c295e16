package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotSteadyStep: a sweep with auto windows keeps each step's batch
// series; plot --steady and report --steady draw the step asked for, with
// its truncation point as the record has it; bad values are one line
// naming the flag, exit 2, nothing written.
func TestPlotSteadyStep(t *testing.T) {
	t.Parallel() // its claims are the record's shape and the figures, no speed
	uri, _ := startServe(t, "--sim", "slots=4,service=2ms")
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if code, _, errOut := runCLI(t, "sweep", "--target", "sim="+uri, "--concurrency", "4", "--warmup", "auto", "--duration", "auto",
		"--min-warmup", "1s", "--max-warmup", "4s", "--min-duration", "1s", "--max-duration", "2s", "--min-calls", "10", "--out", run, "--no-plot"); code != 0 {
		t.Fatalf("sweep exit %d: %s", code, errOut)
	}
	res := readRes(t, filepath.Join(run, "results.jsonl"))
	st := res.Steps[0].Steady
	if st == nil || len(st.WarmupRates) < 30 || len(st.WindowRates) < 10 || st.WindowStartS == nil || *st.WindowStartS < 3 {
		t.Fatalf("steady record %+v: want the warm-up's 3 s or more and the window's batches", st)
	}
	figs := filepath.Join(dir, "figs")
	code, out, errOut := runCLI(t, "plot", filepath.Join(run, "results.jsonl"), "-o", figs, "--steady", "4,1")
	if code != 0 || !strings.Contains(out, "steady.svg") {
		t.Fatalf("plot --steady exit %d: %s %s", code, out, errOut)
	}
	svg, err := os.ReadFile(filepath.Join(figs, "steady.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if st.TruncationS != nil && !strings.Contains(string(svg), "MSER-5 truncation at") {
		t.Errorf("the SVG has no truncation line though the step settled at %v s", *st.TruncationS)
	}
	html := filepath.Join(dir, "r.html")
	if code, _, errOut := runCLI(t, "report", filepath.Join(run, "results.jsonl"), "-o", html, "--steady", "sim:4"); code != 0 {
		t.Fatalf("report --steady exit %d: %s", code, errOut)
	}
	if b, _ := os.ReadFile(html); !strings.Contains(string(b), `id="steady"`) {
		t.Error("the report has no steady figure")
	}
	for _, c := range []struct{ args []string }{
		{[]string{"plot", filepath.Join(run, "results.jsonl"), "-o", filepath.Join(dir, "bad1"), "--steady", "4,0"}},
		{[]string{"plot", filepath.Join(run, "results.jsonl"), "-o", filepath.Join(dir, "bad2"), "--steady", "64"}},
		{[]string{"report", filepath.Join(run, "results.jsonl"), "-o", filepath.Join(dir, "bad3.html"), "--steady", "x"}},
	} {
		code, _, errOut := runCLI(t, c.args...)
		if code != 2 || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "steady") {
			t.Errorf("%v: exit %d, %q; want 2 and one line naming --steady", c.args, code, errOut)
		}
		if _, err := os.Stat(c.args[3]); err == nil {
			t.Errorf("%v wrote %s", c.args, c.args[3])
		}
	}
}
