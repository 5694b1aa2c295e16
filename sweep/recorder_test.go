package sweep

import (
	"testing"
	"time"
)

// TestRecorderSummary checks the merge of the stripes: counts, rates,
// errors by kind and latency quantiles in milliseconds.
func TestRecorderSummary(t *testing.T) {
	r := newRecorder(5 * time.Second)
	r.call(0, time.Millisecond) // before the window: not counted
	r.measuring.Store(true)
	for w := 0; w < 40; w++ { // 40 workers over 16 stripes
		for i := 0; i < 25; i++ {
			r.op(w, 0, 2*time.Millisecond, errNone, nil)
			r.call(w, 2*time.Millisecond)
		}
	}
	r.op(3, 1, 5*time.Second, errTimeout, nil)
	r.op(4, 1, time.Millisecond, errServer, errString("E11000"))
	r.measuring.Store(false)
	r.call(0, time.Millisecond) // after the window: not counted

	var s StepResult
	r.summary(&s, 2*time.Second)
	if s.Calls != 1000 || s.Ops != 1002 || s.CallsPerS != 500 || s.OpsPerS != 501 {
		t.Errorf("counts: calls %d ops %d calls/s %g ops/s %g", s.Calls, s.Ops, s.CallsPerS, s.OpsPerS)
	}
	if s.Errors != (ErrorCounts{Timeout: 1, Server: 1}) || s.ErrorSample != "E11000" || s.OpsByType["update"].Errors != 2 {
		t.Errorf("errors: %+v %q %+v", s.Errors, s.ErrorSample, s.OpsByType["update"])
	}
	if f := s.OpsByType["find"]; f.Count != 1000 || f.Latency.P50 < 1.99 || f.Latency.P50 > 2.01 {
		t.Errorf("find: %+v", f)
	}
	// The 5 s timeout is kept in the update latency, not dropped.
	if u := s.OpsByType["update"]; u.Latency.Max < 4990 {
		t.Errorf("timeout latency dropped: %+v", u.Latency)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// BenchmarkRecorderParallel is the cost the measurement adds to every op
// when many workers record at once (the hot path of a step).
func BenchmarkRecorderParallel(b *testing.B) {
	r := newRecorder(5 * time.Second)
	r.measuring.Store(true)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		w := 0
		for pb.Next() {
			w++
			r.op(w, 0, 1500*time.Microsecond, errNone, nil)
			r.call(w, 1500*time.Microsecond)
		}
	})
}

// BenchmarkNewRecorder is the per-step allocation made before pre-warm.
func BenchmarkNewRecorder(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		newRecorder(5 * time.Second)
	}
}
