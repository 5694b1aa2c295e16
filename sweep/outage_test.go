package sweep

import (
	"context"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
)

const ms = time.Millisecond

// TestMarkTargetFailed: the rule, from the evidence. Each row says what
// it proves.
func TestMarkTargetFailed(t *testing.T) {
	step := func(p50 float64, network int64, samplerErrors int) *results.StepResult {
		s := &results.StepResult{Latency: results.LatencySummary{P50: p50}, Errors: results.ErrorCounts{Network: network, Timeout: 2}}
		s.Server = &results.ServerTelemetry{SamplerErrors: samplerErrors}
		return s
	}
	killed := stall{1600 * ms, 1400 * ms, false}
	tests := []struct {
		name   string
		step   *results.StepResult
		ev     outageEvidence
		marked bool
	}{
		// The audit's kill: the driver cleared its pool and nothing
		// answered from 1.6 s to the end.
		{"killed mid-window", step(2, 0, 10), outageEvidence{first: 1600 * ms, hard: killed, inWindow: killed, poolCleared: 1}, true},
		// Killed without telemetry: the pool clear alone is the evidence.
		{"killed, no sampler", step(2, 0, 0), outageEvidence{first: 1600 * ms, hard: killed, inWindow: killed, poolCleared: 1}, true},
		// A network error is as hard as a pool clear.
		{"network errors and a stall", step(2, 3, 0), outageEvidence{hard: killed, inWindow: killed}, true},
		// Resets the driver's retry hid: a pool clear, but the stall was
		// a reconnection's worth.
		{"resets, quick recovery", step(2, 0, 1), outageEvidence{hard: stall{800 * ms, 40 * ms, true}, inWindow: stall{800 * ms, 40 * ms, true}, poolCleared: 3}, false},
		// A frozen server: samples failed and nothing answered inside
		// the window for 1.2 s.
		{"frozen, samples failed", step(2, 0, 2), outageEvidence{inWindow: stall{1000 * ms, 1200 * ms, true}}, true},
		// Timeouts alone (a slow server) never mark a step, however long
		// the stall.
		{"timeouts only", step(2, 0, 0), outageEvidence{hard: stall{}, inWindow: stall{0, 3 * time.Second, false}}, false},
		// Slow calls: a stall of one call's latency is not a failure,
		// even with a failed sample.
		{"slow calls", step(800, 0, 1), outageEvidence{inWindow: stall{0, 1500 * ms, true}}, false},
		// A hard failure whose stall is below the minimum.
		{"short hard stall", step(2, 2, 0), outageEvidence{hard: stall{0, 300 * ms, true}, inWindow: stall{0, 300 * ms, true}}, false},
	}
	for _, tt := range tests {
		f := markTargetFailed(tt.step, tt.ev)
		if (f != nil) != tt.marked {
			t.Errorf("%s: mark %+v, want marked=%v", tt.name, f, tt.marked)
			continue
		}
		if f != nil && (!f.Failed || f.Reason == "" || f.StalledS <= 0) {
			t.Errorf("%s: mark without its evidence: %+v", tt.name, f)
		}
	}
}

// TestOutageStalls: the tracker's stalls from a stream of outcomes. A
// healthy overloaded step interleaves timeouts with successes: its stalls
// are a few milliseconds. A kill leaves one stall to the end.
func TestOutageStalls(t *testing.T) {
	newRec := func() *recorder {
		r := &recorder{base: time.Now().Add(-4 * time.Second)}
		r.outage.closed = &r.close
		r.open.Store(1) // the window opened at 0
		return r
	}
	// Overload: every third op times out, ops end every 2 ms on 8 workers;
	// the window closes at 3 s and the drain's last ops all time out.
	r := newRec()
	for i := range 1500 {
		kind := errNone
		if i%3 == 0 {
			kind = errTimeout
		}
		r.noteOutcome(i%8, time.Duration(i)*2*ms, kind)
	}
	r.close.Store(int64(3*time.Second) + 1)
	r.noteOutcome(0, 3100*ms, errTimeout)
	r.noteOutcome(1, 3400*ms, errTimeout)
	ev := r.outageEvidence(0)
	if ev.inWindow.length > 10*ms || ev.hard.length != 0 {
		t.Errorf("overload: stalls %+v, want only a few ms in the window and none hard", ev)
	}
	// A kill at 1.6 s: successes until then, a pool clear, timeouts.
	r = newRec()
	for i := range 800 {
		r.noteOutcome(i%8, time.Duration(i)*2*ms, errNone)
	}
	r.outage.fail(1601*ms, 0, true) // the pool cleared
	r.noteOutcome(2, 2600*ms, errTimeout)
	r.close.Store(int64(3*time.Second) + 1)
	// Nothing answers until the step ends (outageEvidence, at now(): 4 s).
	ev = r.outageEvidence(1)
	if ev.hard.recovered || ev.hard.start != 1598*ms || ev.hard.length < 2*time.Second || ev.inWindow.length != 1402*ms || ev.first != 1601*ms {
		t.Errorf("kill: %+v", ev)
	}
}

// sim child helpers for the step tests.
func simRunner(t *testing.T, uri string, d time.Duration, observers ...WindowObserver) (*runner, workload.Workload) {
	t.Helper()
	r := newSimRunner(uri, d, observers...)
	lr, err := workload.Prepare(t.Context(), testsrv.Connect(t, uri), r.Workload, workload.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r.Keys = workload.NewKeySpace("uniform", int64(r.Workload.Records), lr.NextInsert)
	return r, r.Workload
}

// newSimRunner is a runner of the step tests' workload against the
// simulator at uri, in d-long windows, without loading its records
// (simRunner does): the simulator books a read's service time whatever
// the read finds.
func newSimRunner(uri string, d time.Duration, observers ...WindowObserver) *runner {
	w := workload.DefaultWorkload()
	w.Records, w.Database = 200, "ps_outage"
	return &runner{Target: "sim", NewClient: func() *options.ClientOptions { return options.Client().ApplyURI(uri) }, Workload: w,
		Keys: workload.NewKeySpace("uniform", int64(w.Records), int64(w.Records)), Warmup: 300 * ms, Duration: d, OpTimeout: time.Second,
		Observers: observers}
}

// atWindow is an observer that runs f at a moment into each window, and
// fills the step's server section with failed samples when told to.
type atWindow struct {
	after         time.Duration
	f             func()
	samplerErrors int
	fired         atomic.Bool
}

func (a *atWindow) WindowStart(context.Context) {
	if a.f != nil {
		time.AfterFunc(a.after, func() { a.fired.Store(true); a.f() })
	}
}
func (a *atWindow) WindowEnd() {}
func (a *atWindow) Fill(step *results.StepResult) {
	if a.samplerErrors > 0 {
		step.Server = &results.ServerTelemetry{SamplerErrors: a.samplerErrors, SamplerError: "sample failed (made up by the test)"}
	}
}

// TestTargetKilledMidWindow: the simulator, in a child process, is killed
// (SIGKILL) 1 s into a 2-s window. The step says so: the target_failed
// mark with the stall from about the kill to the end of the step, and
// the driver's own evidence, without any telemetry.
func TestTargetKilledMidWindow(t *testing.T) {
	// Serial: the mark rests on the driver seeing the kill (a network
	// error, a pool cleared) while the step runs; beside the parallel
	// group on a busy host its events came too late and the calls only
	// timed out (seen beside four busy loops: 8 timeouts, no mark).
	if testing.Short() {
		t.Skip("runs a simulator child")
	}
	sim := startSimChild(t, "slots=8,service=1ms")
	const window, killAt = 2 * time.Second, time.Second
	kill := &atWindow{after: killAt, f: func() { sim.Cmd.Process.Signal(syscall.SIGKILL) }}
	r, w := simRunner(t, sim.URI, window, kill)
	step, err := r.RunStep(t.Context(), plan.StepSpec{Target: "sim", Workload: w.Label, Concurrency: 4, MaxPoolSize: 4, PoolSetting: "match", Clients: 1, Trial: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := step.TargetFailed
	if !kill.fired.Load() || f == nil {
		t.Fatalf("killed at %s of the window, but no mark: errors %+v, lost %d, in flight %d, warnings %q", killAt, step.Errors, step.Pool.ConnectionsLost, step.InFlightAtClose, step.Warnings)
	}
	t.Logf("mark: %+v", f)
	if k := killAt.Seconds(); f.Recovered || f.StalledFromS < k-0.3 || f.StalledFromS > k+0.7 || f.FirstFailureS < f.StalledFromS || f.StalledS < window.Seconds()-f.StalledFromS-0.1 {
		t.Errorf("the stall does not run from the kill to the end: %+v", f)
	}
	// The driver's evidence (a pool cleared, a network error), or, when a
	// busy host delayed its events past the step, the calls the kill left
	// hanging at the close (seen once: 7 timeouts, 4 in flight, no mark
	// before the freeze rule).
	if f.PoolCleared == 0 && step.Errors.Network == 0 && (f.Cause != results.CauseFrozen || f.StuckCalls == 0) {
		t.Errorf("marked without the driver's evidence or hung calls: %+v", f)
	}
	verr := results.ValidateStep(&step, &results.RunHeader{Targets: []results.TargetHeader{{Name: "sim"}}})
	if len(step.Warnings) == 0 || verr != nil {
		t.Errorf("warnings %q, validation %v", step.Warnings, verr)
	}
}

// TestHeavyHealthyStepNotMarked: a saturated but healthy simulator (64
// workers on 4 slots: calls queue for about 16× the service time) is
// never marked, even with failed server samples as evidence.
func TestHeavyHealthyStepNotMarked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a simulator child")
	}
	sim := startSimChild(t, "slots=4,service=2ms")
	obs := &atWindow{samplerErrors: 3}
	r, w := simRunner(t, sim.URI, 2*time.Second, obs)
	step, err := r.RunStep(t.Context(), plan.StepSpec{Target: "sim", Workload: w.Label, Concurrency: 64, MaxPoolSize: 64, PoolSetting: "match", Clients: 1, Trial: 1})
	if err != nil {
		t.Fatal(err)
	}
	if step.TargetFailed != nil {
		t.Errorf("a saturated, healthy step is marked: %+v (p50 %.1f ms, %.0f ops/s)", step.TargetFailed, step.Latency.P50, step.OpsPerS)
	}
	if step.Latency.P50 < 8 || step.Ops == 0 {
		t.Errorf("not saturated: p50 %.1f ms, %d ops", step.Latency.P50, step.Ops)
	}
}
