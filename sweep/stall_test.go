package sweep

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
)

// TestFindStuck: the freeze rule from streams of calls fed to a
// recorder, as a step's workers would end them. Each row says what it
// proves.
func TestFindStuck(t *testing.T) {
	type call struct {
		start, took time.Duration
		n           int // how many such calls (1 when 0)
	}
	// window opens at 0 and closes at 2 s.
	tests := []struct {
		name    string
		workers int
		calls   []call
		frozen  bool
	}{
		// The audit's case: C=2 at 2 ms, frozen 3 s from 1.5 s: both calls
		// in flight at the close take 3 s; p99 stays 2 ms.
		{"C=2 frozen across the end", 2, []call{{0, 2 * ms, 750}, {1500 * ms, 3 * time.Second, 2}}, true},
		// A busy host's pauses: 300 ms stalls of every worker now and then,
		// one of them across the close. Past 10 × p99, but under a second.
		{"GC and scheduler pauses", 64, []call{{0, 5 * ms, 20000}, {500 * ms, 300 * ms, 64}, {1900 * ms, 300 * ms, 64}}, false},
		// One slow call of 64 at the close (a slow op, not a freeze).
		{"one slow call at the close", 64, []call{{0, 5 * ms, 20000}, {1900 * ms, 1500 * ms, 1}, {1990 * ms, 20 * ms, 63}}, false},
		// A saturated healthy server: calls queue for 400 ms; the close
		// finds 64 of them 400 ms old.
		{"saturated, healthy", 64, []call{{0, 400 * ms, 300}, {1700 * ms, 400 * ms, 64}}, false},
		// A freeze of 3 s inside the window at C=256: a call of every
		// worker hung, 2.5 % of the window's calls (p99 alone would rise
		// to the freeze); the p99 less one call per worker stays 5 ms.
		{"C=256 frozen mid-window", 256, []call{{0, 5 * ms, 10000}, {200 * ms, 3 * time.Second, 256}}, true},
		// Slow calls that time out at 1 s at the close of a step whose
		// p99 is 200 ms: 5 × p99, not a freeze.
		{"timeouts near the p99", 8, []call{{0, 200 * ms, 80}, {0, 150 * ms, 2}, {1500 * ms, time.Second, 8}}, false},
		// The killed target the driver did not see: 4 calls at the close
		// time out at 1 s against a 1-ms p99.
		{"killed, timeouts only", 4, []call{{0, ms, 4000}, {1400 * ms, 1100 * ms, 4}}, true},
	}
	for _, tt := range tests {
		r := newRecorder(5*time.Second, tt.workers)
		r.base = time.Now().Add(-10 * time.Second)
		r.open.Store(1)
		r.close.Store(int64(2*time.Second) + 1)
		w := 0
		for _, c := range tt.calls {
			for range max(c.n, 1) {
				start := c.start
				_, late := r.measured(start, start+c.took)
				r.recordCall(w%tt.workers, start, c.took, late)
				w++
			}
		}
		var step results.StepResult
		r.summary(&step, 2*time.Second)
		f := frozenMark(r.stuck, 0)
		if (f != nil) != tt.frozen {
			t.Errorf("%s: mark %+v, want frozen=%v (stuck %+v)", tt.name, f, tt.frozen, r.stuck)
		}
	}
}

// TestDataLostRule: the share of ops by loaded keys that found nothing
// marks a step from 1 %; below that it is warned about.
func TestDataLostRule(t *testing.T) {
	for _, tt := range []struct {
		notFound, of int64
		marked, warn bool
	}{
		{0, 1000, false, false},
		{5, 1000, false, true},    // someone removed a few documents
		{10, 1000, true, false},   // 1 %
		{1000, 1000, true, false}, // restarted empty
	} {
		step := &results.StepResult{NotFound: tt.notFound, LoadedKeyOps: tt.of}
		f := markTargetFailed(step, outageEvidence{first: -1})
		step.TargetFailed = f
		if (f != nil) != tt.marked || (notFoundWarning(step) != "") != tt.warn {
			t.Errorf("%d of %d: mark %+v, warning %q", tt.notFound, tt.of, f, notFoundWarning(step))
			continue
		}
		if f != nil && (f.Cause != results.CauseDataLost || !strings.Contains(f.Reason, " of 1000 reads and updates by loaded keys found no document")) {
			t.Errorf("%d of %d: mark without its evidence: %+v", tt.notFound, tt.of, f)
		}
	}
}

// TestFrozenAcrossWindowEndDefaultTimeout: the audit's case on the
// simulator. Frozen (SIGSTOP) 1.5 s into a 2-s window for 3 s at C=2,
// under the default 5-s op timeout, the step has no errors and a clean
// p99; it is marked frozen, with the calls at the close as evidence.
func TestFrozenAcrossWindowEndDefaultTimeout(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a simulator child")
	}
	sim := startSimChild(t, "slots=8,service=2ms")
	freeze := &atWindow{after: 1500 * ms, f: func() {
		sim.Cmd.Process.Signal(syscall.SIGSTOP)
		time.AfterFunc(3*time.Second, func() { sim.Cmd.Process.Signal(syscall.SIGCONT) })
	}}
	t.Cleanup(func() { sim.Cmd.Process.Signal(syscall.SIGCONT) })
	r, w := simRunner(t, sim.URI, 2*time.Second, freeze)
	r.OpTimeout = 5 * time.Second // sweep's default (--op-timeout)
	step, err := r.RunStep(t.Context(), plan.StepSpec{Target: "sim", Workload: w.Label, Concurrency: 2, MaxPoolSize: 2, PoolSetting: "match", Clients: 1, Trial: 1})
	if err != nil {
		t.Fatal(err)
	}
	f := step.TargetFailed
	t.Logf("errors %+v, p99 %.2f ms, max %.0f ms, in flight %d (oldest %.0f ms), mark %+v", step.Errors, step.Latency.P99, step.Latency.Max, step.InFlightAtClose, step.OldestInFlightMS, f)
	if !freeze.fired.Load() || f == nil || f.Cause != results.CauseFrozen {
		t.Fatalf("frozen across the window's end under a %s op timeout, but mark %+v", r.OpTimeout, f)
	}
	if f.StuckCalls < 1 || f.StuckAfterMS < 1000 || f.StalledS < 2 || !f.Recovered || !strings.Contains(f.Reason, "hung for") || step.Measured() {
		t.Errorf("the mark does not hold its evidence: %+v", f)
	}
	if verr := results.ValidateStep(&step, &results.RunHeader{Targets: []results.TargetHeader{{Name: "sim"}}}); verr != nil {
		t.Error(verr)
	}
}

// TestDataLostOnSimulator: a step whose records are not there (the
// simulator never loaded them) while the key space says they were loaded
// is marked data_lost, with the count; the same step against the loaded
// records counts its reads by loaded keys and finds every one.
func TestDataLostOnSimulator(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs a simulator child")
	}
	sim := startSimChild(t, "slots=8,service=1ms")
	spec := plan.StepSpec{Target: "sim", Workload: "read", Concurrency: 2, MaxPoolSize: 2, PoolSetting: "match", Clients: 1, Trial: 1}
	empty := newSimRunner(sim.URI, 500*ms)
	empty.Keys.SetLoaded(int64(empty.Workload.Records))
	spec.Workload = empty.Workload.Label
	lost, err := empty.RunStep(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if f := lost.TargetFailed; f == nil || f.Cause != results.CauseDataLost || lost.NotFound == 0 || lost.NotFound != lost.LoadedKeyOps || !strings.Contains(f.Reason, "found no document") {
		t.Errorf("reads of %d loaded keys on an empty server: not found %d of %d, mark %+v", empty.Workload.Records, lost.NotFound, lost.LoadedKeyOps, f)
	}
	loaded, _ := simRunner(t, sim.URI, 500*ms)
	loaded.Keys.SetLoaded(int64(loaded.Workload.Records))
	ok, err := loaded.RunStep(t.Context(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if ok.TargetFailed != nil || ok.NotFound != 0 || ok.LoadedKeyOps == 0 {
		t.Errorf("reads of loaded keys: not found %d of %d, mark %+v", ok.NotFound, ok.LoadedKeyOps, ok.TargetFailed)
	}
}

// TestInsertedKeysNotChecked: only the loaded keys are checked; an
// insert's key (read by "latest" before it lands) never is.
func TestInsertedKeysNotChecked(t *testing.T) {
	k := workload.NewKeySpace("latest", 100, 100)
	if k.Loaded(0) {
		t.Error("a key space no one said was loaded checks its keys")
	}
	k.SetLoaded(100)
	if n := k.NextInsert(); !k.Loaded(99) || k.Loaded(n) || k.Loaded(-1) {
		t.Errorf("loaded 100: Loaded(99) %v, Loaded(insert %d) %v", k.Loaded(99), n, k.Loaded(n))
	}
}
