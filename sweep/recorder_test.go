package sweep

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
)

// TestRecorderSummary checks the merge of the stripes: counts, rates,
// errors by kind and latency quantiles in milliseconds.
func TestRecorderSummary(t *testing.T) {
	r := newRecorder(5*time.Second, 40)
	record := func(w, typ int, d time.Duration, kind int, err error) {
		c := r.callStart(w)
		o := r.opStart(w, typ)
		r.slots[w].op.Store(int64(o-d) + 1) // pretend it started d ago
		r.opEnd(w, typ, o-d, kind, workload.LookupNone, err, true)
		r.slots[w].call.Store(int64(c-d) + 1)
		r.callEnd(w, c-d, true)
	}
	record(0, 0, time.Millisecond, errNone, nil) // before the window: not counted
	r.openWindow()
	for w := 0; w < 40; w++ { // 40 workers over 16 stripes
		for i := 0; i < 25; i++ {
			record(w, 0, 2*time.Millisecond, errNone, nil)
		}
	}
	o := r.opStart(3, 1)
	r.slots[3].op.Store(int64(o-5*time.Second) + 1)
	r.opEnd(3, 1, o-5*time.Second, errTimeout, workload.LookupNone, nil, true)
	o = r.opStart(4, 1)
	r.opEnd(4, 1, o, errServer, workload.LookupNone, errString("E11000"), true)
	r.closeWindow()
	record(0, 0, time.Millisecond, errNone, nil) // after the window: not counted

	var s results.StepResult
	r.summary(&s, 2*time.Second)
	if s.Calls != 1000 || s.Ops != 1002 || s.CallsPerS != 500 || s.OpsPerS != 501 {
		t.Errorf("counts: calls %d ops %d calls/s %g ops/s %g", s.Calls, s.Ops, s.CallsPerS, s.OpsPerS)
	}
	if s.Errors != (results.ErrorCounts{Timeout: 1, Server: 1}) || s.ErrorSample != "E11000" || s.OpsByType["update"].Errors != 2 {
		t.Errorf("errors: %+v %q %+v", s.Errors, s.ErrorSample, s.OpsByType["update"])
	}
	if f := s.OpsByType["find"]; f.Count != 1000 || f.Latency.P50 < 1.99 || f.Latency.P50 > 2.01 {
		t.Errorf("find: %+v", f)
	}
	// The 5 s timeout is kept in the update latency, not dropped.
	if u := s.OpsByType["update"]; u.Latency.Max < 4990 {
		t.Errorf("timeout latency dropped: %+v", u.Latency)
	}
	if s.InFlightAtClose != 0 {
		t.Errorf("in flight at close: %d, want 0", s.InFlightAtClose)
	}
}

// TestRecorderWindowEnd is the rule for calls that straddle the end of the
// window: one that ends later is recorded with its full latency but adds
// nothing to throughput; one still stuck when the step is sealed is
// recorded as a timeout of its age; anything ending after the seal, or
// started after the window closed, is not recorded at all.
func TestRecorderWindowEnd(t *testing.T) {
	r := newRecorder(time.Second, 3)
	r.openWindow()
	// worker 0: a call that completes in the window
	c0 := r.callStart(0)
	o0 := r.opStart(0, 0)
	r.opEnd(0, 0, o0, errNone, workload.LookupNone, nil, true)
	r.callEnd(0, c0, true)
	// worker 1: starts in the window, ends after it closes
	c1 := r.callStart(1)
	o1 := r.opStart(1, 0)
	// worker 2: starts in the window and never returns (a frozen server)
	c2 := r.callStart(2)
	o2 := r.opStart(2, 1)
	time.Sleep(20 * time.Millisecond)
	r.closeWindow()
	time.Sleep(20 * time.Millisecond)
	r.opEnd(1, 0, o1, errNetwork, workload.LookupNone, errString("connection reset"), true)
	r.callEnd(1, c1, true)
	// a call started after the window: never recorded
	c3 := r.callStart(0)
	r.callEnd(0, c3, true)
	r.seal()
	// the frozen op returns after the seal: not recorded twice
	r.opEnd(2, 1, o2, errNone, workload.LookupNone, nil, true)
	r.callEnd(2, c2, true)

	var s results.StepResult
	r.summary(&s, time.Second)
	if s.InFlightAtClose != 2 || s.OldestInFlightMS < 19 {
		t.Errorf("in flight at close: %d, oldest %.1f ms; want 2 and ≥ 20 ms", s.InFlightAtClose, s.OldestInFlightMS)
	}
	if s.Calls != 1 || s.Ops != 1 {
		t.Errorf("throughput counts calls %d ops %d, want 1 and 1 (only what ended in the window)", s.Calls, s.Ops)
	}
	if s.Errors != (results.ErrorCounts{Timeout: 1, Network: 1}) || s.OpsAfterClose != 2 || s.FailedShare() != 2.0/3 {
		t.Errorf("errors %+v, %d ops after the close, failed share %g: want the straddling reset and the sealed timeout, 2 of 3 ops",
			s.Errors, s.OpsAfterClose, s.FailedShare())
	}
	if s.Latency.Max < 39 {
		t.Errorf("call latency max %.1f ms: the straddling and stuck calls must be in the histogram", s.Latency.Max)
	}
	if u := s.OpsByType["update"]; u.Latency.Max < 39 || u.Errors != 1 {
		t.Errorf("the stuck update must be a timeout of its age: %+v", u)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// BenchmarkRecorderParallel is the cost the measurement adds to every op
// when many workers record at once (the hot path of a step).
func BenchmarkRecorderParallel(b *testing.B) {
	const workers = 1024
	r := newRecorder(5*time.Second, workers)
	r.openWindow()
	var next atomic.Int64
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := int(next.Add(1)-1) % workers // one slot per goroutine, as workers have
		for pb.Next() {
			c := r.callStart(w)
			o := r.opStart(w, 0)
			r.opEnd(w, 0, o, errNone, workload.LookupNone, nil, true)
			r.callEnd(w, c, true)
		}
	})
}

// BenchmarkNewRecorder is the per-step allocation made before pre-warm.
func BenchmarkNewRecorder(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		newRecorder(5*time.Second, 64)
	}
}

// TestWatchdogCancelsAContextTakenLate: a worker marks an op's start, then
// takes the op's context, a new one after its last op timed out. A worker
// starved between the two, past the op timeout, is seen expired by the
// watchdog while the cancel it finds is the old context's; the next tick
// must cancel the new one, or the op runs unbounded until the step ends.
func TestWatchdogCancelsAContextTakenLate(t *testing.T) {
	const timeout = 20 * time.Millisecond
	rec := newRecorder(timeout, 1)
	w := &worker{id: 0, rec: rec, parent: t.Context(), timeout: timeout}

	first := w.opContext()
	start := rec.startOne(0, 0)
	time.Sleep(timeout + 5*time.Millisecond)
	rec.expire(timeout)
	if first.Err() == nil {
		t.Fatal("an op past the op timeout was not cancelled")
	}
	rec.endOne(0, 0, start, errTimeout, workload.LookupNone, nil, true)

	rec.startOne(0, 0)
	time.Sleep(timeout + 5*time.Millisecond) // starved before taking the context
	rec.expire(timeout)                      // finds the old cancel
	late := w.opContext()
	if late == first || late.Err() != nil {
		t.Fatal("the worker did not take a new, live context after a timeout")
	}
	rec.expire(timeout) // the next tick
	if late.Err() == nil {
		t.Error("the op whose context was taken after the watchdog looked is never cancelled")
	}
}
