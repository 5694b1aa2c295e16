package cpuwait

import (
	"math"
	"os"
	"runtime"
	"testing"
	"time"
)

func TestHistQuantile(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name string
		h    Hist
		q    float64
		want float64
		ok   bool
	}{
		// 100 samples in [1,2) ms: the median is interpolated to 1.5 ms.
		{"one bucket", Hist{Counts: []uint64{0, 100, 0}, Buckets: []float64{0, 0.001, 0.002, inf}}, 0.5, 0.0015, true},
		// 98 fast, 2 slow: p99 falls in the slow bucket [4,8) ms, halfway.
		{"tail", Hist{Counts: []uint64{98, 0, 2}, Buckets: []float64{0, 0.001, 0.004, 0.008}}, 0.99, 0.006, true},
		// The top bucket is unbounded: its lower bound, not +Inf.
		{"unbounded top", Hist{Counts: []uint64{0, 0, 10}, Buckets: []float64{0, 0.001, 0.002, inf}}, 0.99, 0.002, true},
		// An unbounded bottom bucket counts from zero.
		{"unbounded bottom", Hist{Counts: []uint64{10, 0}, Buckets: []float64{math.Inf(-1), 0.001, 0.002}}, 0.5, 0.0005, true},
		// No samples: no quantile, not zero.
		{"empty", Hist{Counts: []uint64{0, 0}, Buckets: []float64{0, 1, 2}}, 0.5, 0, false},
		// Malformed (bucket count mismatch): no quantile.
		{"malformed", Hist{Counts: []uint64{1, 2}, Buckets: []float64{0, 1}}, 0.5, 0, false},
	}
	for _, tt := range tests {
		got, ok := tt.h.Quantile(tt.q)
		if ok != tt.ok || math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: Quantile(%v) = %v, %v; want %v, %v", tt.name, tt.q, got, ok, tt.want, tt.ok)
		}
	}
}

func TestHistDelta(t *testing.T) {
	b := []float64{0, 1, 2, 3}
	d, ok := HistDelta(Hist{Counts: []uint64{1, 2, 3}, Buckets: b}, Hist{Counts: []uint64{1, 5, 4}, Buckets: b})
	if !ok || d.Counts[0] != 0 || d.Counts[1] != 3 || d.Counts[2] != 1 {
		t.Errorf("delta = %+v, %v", d, ok)
	}
	// A count going backwards is not a delta.
	if _, ok := HistDelta(Hist{Counts: []uint64{2, 0, 0}, Buckets: b}, Hist{Counts: []uint64{1, 0, 0}, Buckets: b}); ok {
		t.Error("backwards counts: want not ok")
	}
	// Different bucket layouts cannot be subtracted.
	if _, ok := HistDelta(Hist{Counts: []uint64{0, 0}}, Hist{Counts: []uint64{0, 0, 0}, Buckets: b}); ok {
		t.Error("different layouts: want not ok")
	}
}

func TestParseSchedstat(t *testing.T) {
	tests := []struct {
		in   string
		want Thread
		err  bool
	}{
		{"1397209 4880 2\n", Thread{1397209, 4880, 2}, false}, // recorded
		{"5 6", Thread{5, 6, 0}, false},                       // no timeslice count
		{"5 6 x", Thread{5, 6, 0}, false},                     // a bad count is no count
		{"5", Thread{}, true},
		{"a b c", Thread{}, true},
		{"-1 2 3", Thread{}, true},
		{"NaN 2 3", Thread{}, true},
	}
	for _, tt := range tests {
		got, err := ParseSchedstat([]byte(tt.in))
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseSchedstat(%q) = %+v, %v; want %+v, err %v", tt.in, got, err, tt.want, tt.err)
		}
	}
	b, err := os.ReadFile("testdata/schedstat.txt")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := ParseSchedstat(b); err != nil || got != (Thread{1286320, 3702121, 3}) {
		t.Errorf("testdata schedstat.txt: %+v, %v", got, err)
	}
}

func TestRunQueue(t *testing.T) {
	a := Threads{"1": {Run: 100, Wait: 10, Slices: 1}, "2": {Run: 50, Wait: 0, Slices: 1}, "gone": {Run: 5, Wait: 5, Slices: 1}}
	tests := []struct {
		name            string
		b               Threads
		share, meanWait float64
		ok              bool
	}{
		// Thread 1 ran 100 and waited 100 more in 4 slices; thread 2 ran
		// 100 in 1 slice: 100/300 of the time, 100 ns over 5 slices.
		{"two threads", Threads{"1": {Run: 200, Wait: 110, Slices: 5}, "2": {Run: 150, Wait: 0, Slices: 2}}, 100.0 / 3, 20e-6, true},
		// A thread born in the window counts from zero.
		{"new thread", Threads{"1": {Run: 100, Wait: 10, Slices: 1}, "2": {Run: 50, Wait: 0, Slices: 1}, "3": {Run: 30, Wait: 10, Slices: 2}}, 25, 5e-6, true},
		// A recycled thread id (counters below the start) is skipped.
		{"recycled id", Threads{"1": {Run: 1, Wait: 1, Slices: 9}, "2": {Run: 150, Wait: 100, Slices: 3}}, 50, 50e-6, true},
		// Nothing ran: no share, not 0%.
		{"idle", Threads{"1": {Run: 100, Wait: 10, Slices: 1}}, 0, 0, false},
		// No slice counts from the kernel (a is replaced from here on): the
		// share, and no mean wait.
		// No slice counts from the kernel: the share, and no mean wait.
		{"no slices", Threads{"1": {Run: 200, Wait: 110}, "2": {Run: 150}}, 100.0 / 3, 0, true},
	}
	for _, tt := range tests {
		if tt.name == "no slices" {
			a = Threads{"1": {Run: 100, Wait: 10}, "2": {Run: 50}}
		}
		share, mean, ok := RunQueue(a, tt.b)
		if ok != tt.ok || math.Abs(share-tt.share) > 1e-9 || math.Abs(mean-tt.meanWait) > 1e-15 {
			t.Errorf("%s: RunQueue = %v, %v, %v; want %v, %v, %v", tt.name, share, mean, ok, tt.share, tt.meanWait, tt.ok)
		}
	}
}

// TestReadLinux reads this process's real sources around a window in
// which one goroutine spins and yields: both readings exist and the waits
// are within their ranges. Linux only (schedstat is).
func TestReadLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("schedstat is Linux's")
	}
	th0 := ReadThreads("/proc")
	h0, ok := ReadSched()
	if th0 == nil || !ok {
		t.Fatalf("threads %v, sched histogram %v", th0 != nil, ok)
	}
	for stop := time.Now().Add(200 * time.Millisecond); time.Now().Before(stop); {
		runtime.Gosched()
	}
	share, mean, ok := RunQueue(th0, ReadThreads("/proc"))
	if !ok || share < 0 || share > 100 || mean < 0 {
		t.Errorf("run queue share %v%%, mean wait %v ms, ok %v", share, mean, ok)
	}
	h1, _ := ReadSched()
	d, ok := HistDelta(h0, h1)
	if !ok {
		t.Fatal("sched histogram went backwards")
	}
	if p99, ok := d.Quantile(0.99); !ok || p99 < 0 {
		t.Errorf("sched p99 %v, %v after 200 ms of yields", p99, ok)
	}
}

func FuzzParseSchedstat(f *testing.F) {
	f.Add([]byte("1286320 3702121 3\n"))
	f.Add([]byte("5 6"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if th, err := ParseSchedstat(b); err == nil && !(finiteCount(th.Run) && finiteCount(th.Wait) && finiteCount(th.Slices)) {
			t.Errorf("%+v from %q", th, b)
		}
	})
}
