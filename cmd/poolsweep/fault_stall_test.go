package main

import (
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// The fault suite's cases of two classes of bad input: a server
// frozen across the end of a window under the default op timeout, and a
// server restarted empty between steps. Each step hit is marked with its
// evidence, left out of the knee, and the run ends partial, naming it.

// TestFaultFrozenDefaultOpTimeout: the audit's freeze. SIGSTOP 1 s into
// step 2's 2-s window, for 3 s, under the default 5-s --op-timeout: no
// call times out, the hung calls straddle the close, and the p99 does
// not move. The step is marked (frozen), bound failed, left out by
// analyze, and the run ends partial (exit 3) naming it.
func TestFaultFrozenDefaultOpTimeout(t *testing.T) {
	t.Parallel()
	srv, p := faultTarget(t)
	var from time.Time
	args := faultArgs(p, "--duration", "2s", "--op-timeout", "5s")
	r := sweepWithFaults(t, 2*time.Minute, args, intoStep2(p, time.Second, func() {
		srv.Stop()
		from = time.Now()
		time.Sleep(3 * time.Second)
		srv.Continue()
	}))
	if r.res == nil || r.res.End == nil || len(r.res.Steps) != 3 {
		t.Fatalf("exit %d, want 3 steps and an end record\n%s", r.code, r.stderr)
	}
	hit := stepHitAt(t, r, from, "the stop")
	f := hit.TargetFailed
	t.Logf("step C=%d: errors %+v, p99 %.1f ms, max %.0f ms, in flight %d (oldest %.0f ms), mark %+v",
		hit.Concurrency, hit.Errors, hit.Latency.P99, hit.Latency.Max, hit.InFlightAtClose, hit.OldestInFlightMS, f)
	end := hit.StartedAt.Add(time.Duration(hit.DurationS * float64(time.Second)))
	if f == nil || hit.Bound != results.BoundFailed || !strings.HasPrefix(hit.BoundReason, "target failed during the window: ") {
		t.Fatalf("step C=%d frozen from %s before its close for 3 s reads clean: bound %q, mark %+v\n%s", hit.Concurrency, end.Sub(from), hit.Bound, f, r.stderr)
	}
	// Under a 5-s timeout the 3-s freeze fails no call: the evidence is
	// the hung calls themselves.
	if f.Cause != results.CauseFrozen && f.Cause != results.CauseOutage || f.StuckCalls == 0 || f.StuckAfterMS < 1000 {
		t.Errorf("the mark does not rest on the hung calls: %+v", f)
	}
	if !slices.ContainsFunc(hit.Warnings, func(w string) bool { return strings.HasPrefix(w, "the target failed during the window: ") }) {
		t.Errorf("no warning says the target failed: %q", hit.Warnings)
	}
	assertLeftOut(t, r, []int{hit.Concurrency})
}

// TestFaultRestartedEmpty: the simulator is replaced, on the same
// address, by an empty one between steps (the switch lands inside step
// 2's window, whose connections stay on the old server; the old one is
// killed once step 2 ends). Steps 3 and 4 read the keys poolsweep loaded
// and find nothing, faster than before: each is marked data_lost with
// the count, left out of the knee, and the run ends partial. --resume
// loads the data again and measures them.
func TestFaultRestartedEmpty(t *testing.T) {
	t.Parallel()
	srv, p := faultTarget(t)
	empty := startSimServer(t, faultSimSpec)
	args := faultArgs(p, "--concurrency", "2,4,8,16")
	inject := intoStep2(p, 300*time.Millisecond, func() { p.SetBackend(empty.Addr) })
	var kill sync.Once
	r := sweepWithFaults(t, 2*time.Minute, args, func(line string) {
		inject(line)
		if strings.HasPrefix(line, "[2/") {
			kill.Do(srv.Kill)
		}
	})
	if r.res == nil || r.res.End == nil || len(r.res.Steps) != 4 {
		t.Fatalf("exit %d, want 4 steps and an end record\n%s", r.code, r.stderr)
	}
	for _, s := range r.res.Steps {
		f := s.TargetFailed
		switch s.Concurrency {
		case 2, 4:
			if f != nil || s.NotFound != 0 || s.LoadedKeyOps == 0 {
				t.Errorf("step C=%d, on the loaded server: not found %d of %d, mark %+v", s.Concurrency, s.NotFound, s.LoadedKeyOps, f)
			}
		default:
			if f == nil || f.Cause != results.CauseDataLost || s.NotFound == 0 || s.NotFound != s.LoadedKeyOps || s.Bound != results.BoundFailed ||
				!strings.Contains(f.Reason, fmt.Sprintf("%d of %d reads and updates by loaded keys found no document", s.NotFound, s.LoadedKeyOps)) {
				t.Errorf("step C=%d on the empty server: not found %d of %d, bound %q, mark %+v", s.Concurrency, s.NotFound, s.LoadedKeyOps, s.Bound, f)
			}
		}
	}
	assertLeftOut(t, r, []int{8, 16})

	code, _, errText := runBinary(t, filepath.Dir(r.out), 2*time.Minute, append(append([]string{"sweep"}, args...), "--resume", r.out, "--no-plot")...)
	res, err := results.ReadResultsFile(filepath.Join(r.out, "results.jsonl"))
	if code != 0 || err != nil || res.End.Status != results.StatusComplete || len(res.Steps) != 4 || !strings.Contains(errText, "2 of 4 steps already measured, 2 to go") {
		t.Fatalf("resume: exit %d, %v, end %+v\n%s", code, err, res.End, errText)
	}
	for _, s := range res.Steps {
		if !s.Measured() || s.NotFound != 0 {
			t.Errorf("after the resume step C=%d: not found %d of %d, mark %+v", s.Concurrency, s.NotFound, s.LoadedKeyOps, s.TargetFailed)
		}
	}
}

// assertLeftOut: the steps at levels cs (and only they) are named as
// failed in the end record, the run ended partial (exit 3), and analyze
// leaves each out of the knee, naming it.
func assertLeftOut(t *testing.T, r faultRun, cs []int) {
	t.Helper()
	var named []int
	for _, fs := range r.res.End.FailedSteps {
		if fs.TargetFailed {
			named = append(named, fs.Concurrency)
		}
	}
	if r.code != errext.ExitPartial || r.res.End.Status != results.StatusPartial || !slices.Equal(named, cs) {
		t.Errorf("exit %d, end %q naming %v; want %d, %q naming %v\n%s", r.code, r.res.End.Status, named, errext.ExitPartial, results.StatusPartial, cs, r.stderr)
	}
	code, stdout, stderr := runCLI(t, "analyze", filepath.Join(r.out, "results.jsonl"))
	for _, c := range cs {
		if want := fmt.Sprintf("step C=%d trial 1: the target failed during the window (", c); code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "; left out") {
			t.Errorf("analyze exit %d does not name the step it left out (%q)\n%s%s", code, want, stdout, stderr)
		}
	}
	for _, s := range r.res.Steps {
		if !slices.Contains(cs, s.Concurrency) && s.TargetFailed != nil {
			t.Errorf("step C=%d was not hit but is marked: %+v", s.Concurrency, s.TargetFailed)
		}
	}
}
