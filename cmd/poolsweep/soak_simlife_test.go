//go:build soak

package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// The soak tier (go test -tags soak): a sweep whose windows run past the
// simulator's 60-s start timeout. The fast tier proves the mechanism in
// topology/sim (TestDeploymentOutlivesStartContext).

// TestSimLifeLongSweep guards against "the simulator dies after 60 s":
// a sim: target used to stop listening when its 60-s start context ended,
// so the second step of this sweep (which runs past that mark) measured a
// dead server. Both steps must be clean and the second must have done
// work. Speeds are not asserted: the machine may be busy.
func TestSimLifeLongSweep(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps the simulator for 95 s")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runBinary(t, dir, 3*time.Minute, "sweep", "--target", "s=sim:slots=8,service=1ms",
		"--concurrency", "2,4", "--warmup", "1s", "--duration", "45s", "--no-plot", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if len(res.Steps) != 2 {
		t.Fatalf("%d steps, want 2", len(res.Steps))
	}
	for i, s := range res.Steps {
		if n := s.Errors.Total(); n != 0 {
			t.Errorf("step %d (C=%d): %d errors (%s)", i+1, s.Concurrency, n, s.ErrorSample)
		}
	}
	last := res.Steps[1]
	if last.Ops <= 0 || last.OpsPerS <= 0 {
		t.Errorf("step 2 (C=%d): ops %d, ops/s %g; want > 0", last.Concurrency, last.Ops, last.OpsPerS)
	}
	// The test proves something only if the second window runs past the
	// 60-s mark after the server started (it started before step 1).
	end := last.StartedAt.Add(time.Duration(last.DurationS * float64(time.Second)))
	if span := end.Sub(res.Steps[0].StartedAt); span < 61*time.Second {
		t.Errorf("the windows span only %v; the test must cross the 60-s mark", span)
	}
	if res.End == nil || res.End.Status != results.StatusComplete {
		t.Errorf("end record %+v, want status %s", res.End, results.StatusComplete)
	}
}
