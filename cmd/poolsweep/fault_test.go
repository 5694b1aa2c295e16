package main

import (
	"bufio"
	"context"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/results"
)

// The fault suite: real sweeps (the built binary) against a simulator
// process behind a fault-injecting proxy. Each case checks what a user
// relies on after the fault: finished steps kept, errors counted in the
// step whose window the fault hit, an honest end record and exit status,
// and a bound on how long the sweep took.

// faultRun is one sweep run under fault injection.
type faultRun struct {
	code   int
	stderr string
	took   time.Duration
	res    *results.Results
	out    string
}

// sweepWithFaults runs `poolsweep sweep args… --out DIR` and calls onLine
// for every stderr line as it arrives (in a goroutine of its own, so an
// injection may sleep). wrap, when set, turns the command into another
// (a shell that sets a limit first).
func sweepWithFaults(t *testing.T, timeout time.Duration, args []string, onLine func(string), wrap ...string) faultRun {
	t.Helper()
	out := filepath.Join(t.TempDir(), "out")
	args = append(append([]string{"sweep"}, args...), "--out", out, "--no-plot")
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var cmd *exec.Cmd
	if len(wrap) > 0 {
		cmd = exec.CommandContext(ctx, wrap[0], append(append(wrap[1:], binary), args...)...)
	} else {
		cmd = exec.CommandContext(ctx, binary, args...)
	}
	// At the timeout a Go process prints every goroutine's stack on
	// SIGQUIT, into the stderr this test logs: a hang says where it hangs.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGQUIT) }
	cmd.WaitDelay = 10 * time.Second
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var (
		log     strings.Builder
		stamped strings.Builder // the same lines, each with its time since start
		wg      sync.WaitGroup
	)
	sc := bufio.NewScanner(stderr)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		log.WriteString(line + "\n")
		fmt.Fprintf(&stamped, "%7.2fs %s\n", time.Since(start).Seconds(), line)
		if onLine != nil {
			wg.Add(1)
			go func() { defer wg.Done(); onLine(line) }()
		}
	}
	err = cmd.Wait()
	wg.Wait()
	r := faultRun{stderr: log.String(), took: time.Since(start), out: out}
	if ctx.Err() != nil {
		t.Fatalf("sweep did not end within %s (%v); its stderr (seconds since start), ending with its goroutines at SIGQUIT:\n%s", timeout, err, stamped.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sweep: %v\n%s", err, r.stderr)
	}
	if res, err := results.ReadResultsFile(filepath.Join(out, "results.jsonl")); err == nil {
		r.res = res
	} else if !os.IsNotExist(err) {
		t.Fatalf("results unreadable after the fault: %v\n%s", err, r.stderr)
	}
	return r
}

// stepAtTime is the step whose measured window contains at.
func stepAtTime(res *results.Results, at time.Time) (results.StepResult, bool) {
	for _, s := range res.Steps {
		end := s.StartedAt.Add(time.Duration(s.DurationS * float64(time.Second)))
		if !at.Before(s.StartedAt) && at.Before(end) {
			return s, true
		}
	}
	return results.StepResult{}, false
}

// stepHitAt is the step of r whose measured window holds at, the moment
// of the fault what ("the stop"); the test fails when no window does (on
// a machine too slow to land it).
func stepHitAt(t *testing.T, r faultRun, at time.Time, what string) results.StepResult {
	t.Helper()
	hit, ok := stepAtTime(r.res, at)
	if !ok {
		t.Fatalf("%s at %s fell in no window\n%s", what, at.Format(time.StampMilli), r.stderr)
	}
	return hit
}

// intoStep2 returns an onLine callback that runs inject once, into after
// step 2's window opened. Step 1's progress line says step 2 is next;
// the proxy then sees step 2's pool open (its 4 connections, then none
// for 200 ms: the pre-warm is over), and the 300 ms of warm-up in faultArgs follow. On a loaded
// machine a pre-warm can take longer than a window, so a fixed delay
// after the line could miss it.
func intoStep2(p *faultProxy, into time.Duration, inject func()) func(string) {
	var once sync.Once
	return func(line string) {
		if strings.HasPrefix(line, "[1/") {
			once.Do(func() {
				p.awaitNewConns(4, 200*time.Millisecond, 30*time.Second)
				time.Sleep(300*time.Millisecond + into)
				inject()
			})
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// faultArgs is a small plan against the proxy: C=2,4,8, 1-s windows
// after 300 ms of warm-up.
func faultArgs(p *faultProxy, extra ...string) []string {
	return append([]string{"--uri", "mongodb://" + p.Addr() + "/?directConnection=true", "--workload", "read", "--records", "200",
		"--concurrency", "2,4,8", "--warmup", "300ms", "--duration", "1s", "--op-timeout", "1s"}, extra...)
}

func TestFaultConnectionResets(t *testing.T) {
	t.Parallel()
	p := sharedFaultProxy(t)
	var at time.Time
	// A 2-s window: the resets and the reconnection after them (up to a
	// second on a starved host) fall inside it, however late they land.
	r := sweepWithFaults(t, 2*time.Minute, faultArgs(p, "--duration", "2s"), intoStep2(p, 300*time.Millisecond, func() {
		at = time.Now()
		p.ResetAll()
	}))
	if r.res == nil || r.res.End == nil || len(r.res.Steps) != 3 {
		t.Fatalf("exit %d, want 3 steps and an end record\n%s", r.code, r.stderr)
	}
	hit := stepHitAt(t, r, at, "the resets")
	// The driver retries a read once on a new connection, so a reset may
	// not fail the op; it always shows as connections lost.
	if hit.Errors.Network == 0 && hit.Pool.ConnectionsLost == 0 {
		t.Errorf("step C=%d, whose window the resets hit, counts no network errors and no lost connections: %+v", hit.Concurrency, hit.Errors)
	}
	// One reset of every connection, the monitor's included: the driver
	// clears its pool and waits for its monitor to see the server again,
	// which its heartbeat floor (500 ms between checks) can hold back for
	// up to about 0.7 s with nothing succeeding, on a quiet machine too.
	// Either the stall stayed under the mark's 500 ms and the run is
	// complete, or the step is marked with the evidence of a recovered
	// outage (the pool cleared, connections lost, a stall the heartbeat
	// floor explains) and the run is partial. A mark without that
	// evidence, an outage that did not end, or one far longer than the
	// driver's recovery is a regression.
	wantCode, wantStatus := errext.ExitOK, results.StatusComplete
	if f := hit.TargetFailed; f != nil {
		limit := 1.5
		if why := resetsOnStarvedHost(hit); why != "" {
			limit = hit.DurationS // a starved host reconnects as late as it runs
		}
		if !f.Recovered || f.PoolCleared == 0 || f.ConnectionsLost == 0 || f.StalledS > limit {
			t.Errorf("step C=%d is marked target failed after one round of resets without a recovered outage's evidence (stall under %.1f s, pool cleared, connections lost): %+v", hit.Concurrency, limit, f)
		}
		t.Logf("step C=%d marked target failed after the resets: %s", hit.Concurrency, f.Reason)
		wantCode, wantStatus = errext.ExitPartial, results.StatusPartial
	}
	if r.code != wantCode || r.res.End.Status != wantStatus {
		t.Errorf("exit %d, end %q; want %d, %q\n%s", r.code, r.res.End.Status, wantCode, wantStatus, r.stderr)
	}
	for _, s := range r.res.Steps {
		if s.Concurrency == hit.Concurrency {
			continue
		}
		if s.Errors.Total() != 0 || s.Pool.ConnectionsLost != 0 {
			t.Errorf("step C=%d was not hit but counts errors %+v, %d connections lost", s.Concurrency, s.Errors, s.Pool.ConnectionsLost)
		}
		if s.TargetFailed != nil || s.Bound == results.BoundFailed {
			t.Errorf("step C=%d was not hit but is marked target failed: %+v", s.Concurrency, s.TargetFailed)
		}
	}
}

// resetsOnStarvedHost is the step's own evidence that its load host was
// starved (its client telemetry judged as if no bound were set: a step
// marked failed is labelled so, whatever its host did), or "".
func resetsOnStarvedHost(s results.StepResult) string {
	s.Bound, s.BoundReason = "", ""
	if ok, why := bound.ClientLimited(&s); ok {
		return why
	}
	return ""
}

func TestFaultLatency(t *testing.T) {
	t.Parallel()
	p := sharedFaultProxy(t)
	onLine := func(line string) {
		switch {
		case strings.HasPrefix(line, "[1/"):
			p.SetLatency(50 * time.Millisecond)
		case strings.HasPrefix(line, "[2/"):
			p.SetLatency(0)
		}
	}
	r := sweepWithFaults(t, 2*time.Minute, faultArgs(p), onLine)
	if r.code != 0 || r.res == nil || len(r.res.Steps) != 3 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	s1, s2 := r.res.Steps[0], r.res.Steps[1]
	// 50 ms each way: every call of the second step waits at least one
	// 100-ms round trip. A busy host only adds to a latency, so that
	// floor holds on any host, where a difference from the first step
	// does not (beside four busy loops its calls took 55 ms unaided).
	if s2.Latency.P50 < 95 || s2.Latency.P50 <= s1.Latency.P50 {
		t.Errorf("p50 %.1f ms with 100 ms of added round trip, %.1f ms without", s2.Latency.P50, s1.Latency.P50)
	}
	if s2.Errors.Total() != 0 {
		t.Errorf("latency below the op timeout made errors: %+v", s2.Errors)
	}
}

func TestFaultBlackhole(t *testing.T) {
	t.Parallel()
	p := sharedFaultProxy(t)
	var at time.Time
	r := sweepWithFaults(t, 2*time.Minute, faultArgs(p), intoStep2(p, 300*time.Millisecond, func() {
		at = time.Now()
		p.SetBlackhole(true)
		time.Sleep(2500 * time.Millisecond)
		p.SetBlackhole(false)
	}))
	if r.res == nil || len(r.res.Steps) < 2 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	hit := stepHitAt(t, r, at, "the blackhole")
	// Nothing comes back for 2.5 s with a 1-s op timeout: timeouts,
	// never a clean step.
	if hit.Errors.Timeout == 0 {
		t.Errorf("step C=%d under a blackhole counts no timeouts: %+v p99 %.0f ms", hit.Concurrency, hit.Errors, hit.Latency.P99)
	}
	// A target unreachable for the last 0.6 s of a window or more, its
	// samples failing, failed during it: marked, bound failed, and the
	// run goes to its end partial (exit 3) naming it for --resume. The
	// sampler reaches the simulator at the address it reports, not
	// through the proxy: when its samples did not fail, the step saw
	// timeouts, which alone never mark a step, and the calls the
	// blackhole held across the close: begun less than 1.5 s before the
	// 2.5-s blackhole ended, each took its whole 1-s op timeout, a
	// freeze's evidence, which marks it.
	end := hit.StartedAt.Add(time.Duration(hit.DurationS * float64(time.Second)))
	samplesFailed := hit.Server != nil && hit.Server.SamplerErrors > 0
	t.Logf("blackhole for the last %s of step C=%d's window, samples failed %v: mark %+v", end.Sub(at), hit.Concurrency, samplesFailed, hit.TargetFailed)
	switch marked := hit.TargetFailed != nil && hit.Bound == results.BoundFailed; {
	case samplesFailed && end.Sub(at) >= 600*time.Millisecond && !marked:
		t.Errorf("step C=%d was unreachable for the last %s of its window, its samples failing, but is not marked: bound %q, mark %+v",
			hit.Concurrency, end.Sub(at), hit.Bound, hit.TargetFailed)
	case end.After(at) && end.Sub(at) < 1400*time.Millisecond && !marked:
		t.Errorf("step C=%d's calls at the close were held past its 1-s op timeout (the blackhole began %s before it), but it is not marked: bound %q, in flight %d",
			hit.Concurrency, end.Sub(at), hit.Bound, hit.InFlightAtClose)
	case !samplesFailed && hit.Errors.Network == 0 && hit.TargetFailed != nil && hit.TargetFailed.StuckCalls == 0:
		t.Errorf("step C=%d is marked on timeouts alone: %+v", hit.Concurrency, hit.TargetFailed)
	}
	if r.res.End == nil || len(r.res.Steps) != 3 {
		t.Fatalf("exit %d, end %+v: a transient blackhole must not end the run\n%s", r.code, r.res.End, r.stderr)
	}
	wantCode, wantStatus := errext.ExitOK, results.StatusComplete
	if hit.TargetFailed != nil {
		wantCode, wantStatus = errext.ExitPartial, results.StatusPartial
		if len(r.res.End.FailedSteps) != 1 || !r.res.End.FailedSteps[0].TargetFailed || r.res.End.FailedSteps[0].Concurrency != hit.Concurrency {
			t.Errorf("end record does not name the step the target failed in: %+v", r.res.End.FailedSteps)
		}
	}
	if r.code != wantCode || r.res.End.Status != wantStatus {
		t.Errorf("exit %d, end %q; want %d, %q\n%s", r.code, r.res.End.Status, wantCode, wantStatus, r.stderr)
	}
}

// TestFaultServerKilled: the server dies mid-sweep and stays dead. The
// step it died in keeps its errors and says the target failed (the
// target_failed mark, bound failed, a warning); the next step fails within
// seconds (no full pre-warm wait), said once; the run ends failed (exit 1),
// or partial (exit 3) with --keep-going, naming the steps not measured,
// the one the target failed in first.
// (Two tests, not two parallel subtests: subtests wait for a slot behind
// every other parallel test, and these two, the longest of the suite's
// faults, then ended it.)
func TestFaultServerKilled(t *testing.T) {
	t.Parallel()
	faultServerKilled(t, false)
}

func TestFaultServerKilledKeepGoing(t *testing.T) {
	t.Parallel()
	faultServerKilled(t, true)
}

func faultServerKilled(t *testing.T, keepGoing bool) {
	srv, p := faultTarget(t)
	extra := []string{"--concurrency", "2,4,8,16"}
	if keepGoing {
		extra = append(extra, "--keep-going")
	}
	var at time.Time
	r := sweepWithFaults(t, 2*time.Minute, faultArgs(p, extra...), intoStep2(p, 400*time.Millisecond, func() {
		at = time.Now()
		srv.Kill()
	}))
	if r.res == nil || r.res.End == nil {
		t.Fatalf("keep-going=%v: no end record\n%s", keepGoing, r.stderr)
	}
	hit, ok := stepAtTime(r.res, at)
	if !ok || hit.Errors.Total() == 0 {
		t.Errorf("keep-going=%v: the step the kill hit (found %v) counts no errors: %+v", keepGoing, ok, hit.Errors)
	}
	assertKilledStep(t, hit, at)
	if !strings.Contains(r.stderr, "bound: failed — target failed during the window") || !strings.Contains(r.stderr, "warning: the target failed during the window") {
		t.Errorf("keep-going=%v: the progress lines do not say the target failed\n%s", keepGoing, r.stderr)
	}
	if r.took > 60*time.Second {
		t.Errorf("keep-going=%v: took %s; a dead target must fail its steps in seconds", keepGoing, r.took)
	}
	if n := strings.Count(r.stderr, "does not answer"); (!keepGoing && n != 1) || (keepGoing && n != 2) {
		t.Errorf("keep-going=%v: the failure is said %d times\n%s", keepGoing, n, r.stderr)
	}
	// analyze leaves the step out of the deployment's numbers, naming it.
	code, stdout, stderr := runCLI(t, "analyze", filepath.Join(r.out, "results.jsonl"))
	if want := fmt.Sprintf("step C=%d trial 1: the target failed during the window (", hit.Concurrency); code != 0 || !strings.Contains(stdout, want) || !strings.Contains(stdout, "; left out") {
		t.Errorf("keep-going=%v: analyze exit %d does not name the step it left out (%q)\n%s%s", keepGoing, code, want, stdout, stderr)
	}
	fs := r.res.End.FailedSteps
	if !keepGoing {
		if r.code != errext.ExitFailed || r.res.End.Status != results.StatusFailed || len(r.res.Steps) != 2 ||
			len(fs) != 2 || !fs[0].TargetFailed || fs[0].Concurrency != 4 || fs[1].Concurrency != 8 {
			t.Errorf("exit %d, end %+v, %d steps; want 1, failed, the 2 recorded steps, naming C=4 (target failed) and C=8\n%s", r.code, r.res.End, len(r.res.Steps), r.stderr)
		}
		return
	}
	if r.code != errext.ExitPartial || r.res.End.Status != results.StatusPartial || len(fs) != 3 || !fs[0].TargetFailed ||
		fs[0].Concurrency != 4 || fs[1].Concurrency != 8 || fs[2].Concurrency != 16 {
		t.Errorf("--keep-going: exit %d, end %+v; want 3, partial, naming C=4 (target failed), C=8 and C=16\n%s", r.code, r.res.End, r.stderr)
	}
}

// TestFaultServerRestarted: the server is killed mid-window and a new one
// comes up on the same address a second later, empty. The hit step keeps
// its errors, the sweep goes on, and the later step, whose reads of the
// loaded keys find nothing, says so (data_lost).
func TestFaultServerRestarted(t *testing.T) {
	t.Parallel()
	srv, p := faultTarget(t)
	var at time.Time
	r := sweepWithFaults(t, 2*time.Minute, faultArgs(p), intoStep2(p, 300*time.Millisecond, func() {
		at = time.Now()
		srv.Kill()
		time.Sleep(time.Second)
		p.SetBackend(startSimServer(t, faultSimSpec).Addr)
	}))
	if r.res == nil || r.res.End == nil || len(r.res.Steps) != 3 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	hit, ok := stepAtTime(r.res, at)
	if !ok || hit.Errors.Total() == 0 {
		t.Fatalf("the step the kill hit (found %v) counts no errors: %+v", ok, hit.Errors)
	}
	assertKilledStep(t, hit, at)
	// The restarted server is empty: the step after it is marked, its
	// reads by loaded keys finding nothing (on a load host starved past
	// the op timeout it may be marked for its stall first: seen at load 10
	// on 2 cores, no call succeeded for 1.1 s, 8 timeouts; its count of
	// reads that found nothing is there either way).
	failed := 2 // steps the target failed in: the hit one, and the last
	if last := r.res.Steps[2]; last.TargetFailed == nil || last.NotFound == 0 || last.NotFound != last.LoadedKeyOps ||
		last.TargetFailed.Cause != results.CauseDataLost && !starved(t, last, fmt.Sprintf("after the restart: mark %+v", last.TargetFailed)) {
		t.Errorf("after the restart to an empty server: ops %d errors %+v, not found %d of %d, mark %+v", last.Ops, last.Errors, last.NotFound, last.LoadedKeyOps, last.TargetFailed)
	}
	// The run went to its end, partial: the step the target failed in is
	// not a measurement. --resume measures that step again, and only it.
	if r.code != errext.ExitPartial || r.res.End.Status != results.StatusPartial || len(r.res.End.FailedSteps) != failed || !r.res.End.FailedSteps[0].TargetFailed {
		t.Errorf("exit %d, end %+v; want 3, partial, naming the step(s) the target failed in (%d)\n%s", r.code, r.res.End, failed, r.stderr)
	}
	code, _, errText := runBinary(t, filepath.Dir(r.out), 2*time.Minute, append(append([]string{"sweep"}, faultArgs(p)...), "--resume", r.out, "--no-plot")...)
	res, err := results.ReadResultsFile(filepath.Join(r.out, "results.jsonl"))
	if code != 0 || err != nil || res.End.Status != results.StatusComplete || res.End.Steps != 3 || res.End.Planned != 3 || len(res.Steps) != 3 {
		t.Fatalf("resume: exit %d, %v, end %+v\n%s", code, err, res.End, errText)
	}
	if !strings.Contains(errText, fmt.Sprintf("%d of 3 steps already measured, %d to go", 3-failed, failed)) {
		t.Errorf("resume did not set out to measure the failed step again:\n%s", errText)
	}
	for _, st := range res.Steps {
		if !st.Measured() {
			t.Errorf("after the resume step C=%d is still not a measurement: %+v", st.Concurrency, st.TargetFailed)
		}
	}
}

// assertKilledStep: a step whose target was killed at at says so — the
// mark, with a stall that began near the kill, bound failed, a warning —
// and analyze leaves it out, naming it.
func assertKilledStep(t *testing.T, hit results.StepResult, at time.Time) {
	t.Helper()
	f := hit.TargetFailed
	if f == nil || !f.Failed || hit.Bound != results.BoundFailed || !strings.HasPrefix(hit.BoundReason, "target failed during the window: ") {
		t.Errorf("step C=%d: the server was killed in its window, but mark %+v, bound %q %q", hit.Concurrency, f, hit.Bound, hit.BoundReason)
		return
	}
	killedAt := at.Sub(hit.StartedAt).Seconds()
	if f.StalledFromS > killedAt+0.3 || f.StalledFromS < killedAt-0.5 || f.FirstFailureS < f.StalledFromS || f.StalledS < 0.5 {
		t.Errorf("step C=%d killed %.2f s into its window, mark %+v", hit.Concurrency, killedAt, f)
	}
	if f.PoolCleared == 0 && hit.Errors.Network == 0 {
		t.Errorf("step C=%d marked without the driver seeing the server fail: %+v", hit.Concurrency, f)
	}
	if !slices.ContainsFunc(hit.Warnings, func(w string) bool { return strings.HasPrefix(w, "the target failed during the window: ") }) {
		t.Errorf("step C=%d: no warning says the target failed: %q", hit.Concurrency, hit.Warnings)
	}
}

// TestFaultFrozenAcrossWindowEnd: the server is SIGSTOPped shortly before
// a window closes and continued after it. The calls in flight at the close
// are counted (in_flight_at_close) and show as timeouts or huge latency in
// that step, never as a clean one.
func TestFaultFrozenAcrossWindowEnd(t *testing.T) {
	t.Parallel()
	srv, p := faultTarget(t)
	var from, lastReply, to time.Time
	// A 2-s window, the freeze 0.9 s into it and 2 s long: it falls in the
	// window and across its end with 0.9 s to spare either way, however
	// late a starved host opens the window after the pool.
	r := sweepWithFaults(t, 2*time.Minute, faultArgs(p, "--duration", "2s"), intoStep2(p, 900*time.Millisecond, func() {
		srv.Stop()
		from = time.Now()
		time.Sleep(2 * time.Second)
		// The replies the server wrote before the stop still reach the
		// client, as late as the proxy passes them on (hundreds of ms on
		// a loaded machine): the freeze as the client saw it.
		lastReply = p.LastToClient()
		srv.Continue()
		to = time.Now()
	}))
	if r.res == nil || len(r.res.Steps) < 2 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	hit := stepHitAt(t, r, from, "the stop")
	end := hit.StartedAt.Add(time.Duration(hit.DurationS * float64(time.Second)))
	if hit.Errors.Timeout == 0 && hit.Latency.Max < 500 {
		t.Errorf("step C=%d with a frozen server looks clean: errors %+v, max %.1f ms", hit.Concurrency, hit.Errors, hit.Latency.Max)
	}
	if to.After(end) && hit.InFlightAtClose == 0 {
		t.Errorf("the server was frozen across the window's end (%s) but no call was in flight at the close", end.Format(time.StampMilli))
	}
	// A call in flight at the freeze is cancelled at --op-timeout (1 s in
	// faultArgs) and the next one hangs anew: the oldest call at the close
	// is as old as the freeze only when the close came before that.
	if frozen := end.Sub(lastReply); to.After(end) && frozen < 900*time.Millisecond && hit.OldestInFlightMS < float64(frozen.Milliseconds())-100 {
		t.Errorf("oldest call at the close %.0f ms, but the last reply before the freeze reached the client %s before it", hit.OldestInFlightMS, frozen)
	}
}
