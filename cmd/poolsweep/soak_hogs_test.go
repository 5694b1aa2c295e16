//go:build soak

package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// The soak tier: a sweep beside more busy loops than cores. The fast tier
// proves the contention rules on recorded samples (analysis/bound:
// TestContended, TestClientLimited, TestMachineFull, TestClassify) and the
// samplers on a busy child (telemetry: TestProcSamplerBusyChild).

// startHogs runs n busy shell loops (separate processes, so they compete
// for the cores as a neighbour would, not as our goroutines) until the
// test ends or the bound passes, whichever is first.
func startHogs(t *testing.T, n int, bound time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	var cmds []*exec.Cmd
	for range n {
		c := exec.CommandContext(ctx, "sh", "-c", "while :; do :; done")
		if err := c.Start(); err != nil {
			cancel()
			t.Fatalf("start CPU hog: %v", err)
		}
		cmds = append(cmds, c)
	}
	t.Cleanup(func() {
		cancel() // kills every loop still running
		for _, c := range cmds {
			_ = c.Wait()
		}
	})
}

// TestSimulatorUnderCPUHogs sweeps the simulator while more busy loops than
// cores run beside it (a busy load host): the starved steps must
// be labelled client with the contention evidence, even though our own CPU
// stays low, and the summary must warn; the knee analysis then either finds
// the true knee or sees client-bound levels and does not claim confidence.
func TestSimulatorUnderCPUHogs(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps the simulator beside CPU hogs")
	}
	startHogs(t, max(3, runtime.NumCPU()+1), 3*time.Minute)
	time.Sleep(500 * time.Millisecond) // let the loops take the cores
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runBinary(t, dir, 3*time.Minute, "sweep", "--target", "s=sim:slots=8,service=2ms", "--workload", "read",
		"--concurrency", "1..64x2", "--warmup", "300ms", "--duration", "1500ms", "--records", "2000", "--no-plot", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	logSteps(t, res)
	contended := 0
	for _, s := range res.Steps {
		if s.Bound == bound.BoundClient && strings.Contains(s.BoundReason, "load host CPU contended") &&
			strings.Contains(s.BoundReason, "these numbers are this machine's, not the server's") {
			contended++
			continue
		}
		// Where this step escaped, say what it saw: its CPU was not ours to
		// blame, so the label must name the host.
		t.Logf("C=%d not labelled contended: %s (%s)", s.Concurrency, s.Bound, s.BoundReason)
	}
	// Every core is oversubscribed for the whole sweep: all steps are
	// starved; allow one to slip through a quiet moment of the scheduler.
	if contended < len(res.Steps)-1 {
		t.Errorf("%d of %d steps labelled client for load-host contention, want all (at most one missed)", contended, len(res.Steps))
	}
	if !strings.Contains(stdout, "CLIENT-BOUND") {
		t.Errorf("the summary does not warn that the steps were client-bound:\n%s", stdout)
	}
	reports := knee.AnalyzeAll(knee.FromResults([]*results.Results{res}), knee.DefaultOptions())
	if len(reports) != 1 {
		t.Fatalf("%d knee reports", len(reports))
	}
	r := reports[0]
	t.Logf("knee %+v; verdict %s", r.Knee, r.Verdict)
	if k := r.Knee.Concurrency; r.Knee.Found && k >= 4 && k <= 16 {
		return // the truth despite the hogs
	}
	client := 0
	for _, l := range r.Levels {
		if l.Bound == bound.BoundClient {
			client++
		}
	}
	if client == 0 {
		t.Errorf("the knee analysis saw no client-bound level: %+v", r.Levels)
	}
	if c := r.Knee.Confidence; c == "high" || c == "medium" {
		t.Errorf("knee %d claimed with %s confidence on a starved load host", r.Knee.Concurrency, c)
	}
}
