package sweep

import (
	"math"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
)

// TestTimelineBins: every value's bin midpoint, the quantile reported, is
// within TimelineQuantileError of it, bins rise with the value, and
// values past the last bin's edge share it.
func TestTimelineBins(t *testing.T) {
	prev := -1
	for v := int64(0); v < 1<<tlTopExp; v = v + 1 + v/97 {
		b := tlBin(v)
		if b < prev || b >= tlBins {
			t.Fatalf("bin of %d µs is %d, after %d (of %d bins)", v, b, prev, tlBins)
		}
		prev = b
		if v > 0 && math.Abs(tlMid(b)-float64(v)) > TimelineQuantileError*float64(v) {
			t.Fatalf("%d µs is in bin %d whose midpoint %.1f is %.2f%% off", v, b, tlMid(b), 100*math.Abs(tlMid(b)-float64(v))/float64(v))
		}
	}
	if tlBin(1<<tlTopExp) != tlBins-1 || tlBin(math.MaxInt64) != tlBins-1 {
		t.Errorf("values past 2^%d µs are not in the last bin", tlTopExp)
	}
}

// TestTimelineQuantile: a histogram's p50 and p99 are the true ones
// within the bins' error; an empty one has none.
func TestTimelineQuantile(t *testing.T) {
	var h tlHist
	if h.quantile(0.5) != nil {
		t.Fatal("an empty histogram has a median")
	}
	for us := int64(1); us <= 10_000; us++ { // 1 µs … 10 ms, uniform
		h.add(us)
	}
	for _, c := range []struct{ q, want float64 }{{0.5, 5}, {0.99, 9.9}, {1, 10}} {
		got := h.quantile(c.q)
		if got == nil || math.Abs(*got-c.want) > TimelineQuantileError*c.want {
			t.Errorf("q %v: %v ms, want %v ± %.1f%%", c.q, got, c.want, 100*TimelineQuantileError)
		}
	}
}

// TestTimelineWidth: intervals are 100 ms up to 20,000 of them, then the
// smallest multiple of 100 ms that keeps the count within it.
func TestTimelineWidth(t *testing.T) {
	for _, c := range []struct {
		d, want time.Duration
	}{
		{time.Second, 100 * time.Millisecond},                         // a short profile
		{2000 * time.Second, 100 * time.Millisecond},                  // exactly 20,000 intervals
		{2000*time.Second + time.Millisecond, 200 * time.Millisecond}, // one more would be 20,001
		{48 * time.Hour, 8700 * time.Millisecond},                     // the longest step: 19,863 intervals
	} {
		got := timelineWidth(c.d)
		if got != c.want || (c.d+got-1)/got > timelineMaxIntervals {
			t.Errorf("%s: interval %s, want %s", c.d, got, c.want)
		}
	}
	tl := newTimelineRecorder(newRecorder(time.Second, 1), 48*time.Hour, 48*time.Hour)
	if n := len(tl.iv); n > results.MaxTimelineIntervals || n != 19_863+timelineMaxTail {
		t.Errorf("a 48-h profile with a 48-h drain has %d intervals, a record at most %d", n, results.MaxTimelineIntervals)
	}
}

// BenchmarkTimelineRecord is one open-loop call's recording (its arrival,
// start, one op, end, and the pool's checkout and checkin events) without
// and with a profile step's timeline, from parallel callers; and the
// timeline's own part of it alone (its arrival, op, call and two pool
// events).
func BenchmarkTimelineRecord(b *testing.B) {
	b.Run("timeline-only", func(b *testing.B) {
		rec := newRecorder(5*time.Second, 1)
		tl := newTimelineRecorder(rec, 10*time.Minute, 5*time.Second)
		tl.start(rec.now())
		out := &event.PoolEvent{Type: event.ConnectionCheckedOut, Address: "h:1", Duration: 20 * time.Microsecond}
		in := &event.PoolEvent{Type: event.ConnectionCheckedIn, Address: "h:1"}
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				at := rec.now()
				tl.arrival(at, false)
				tl.pool(out)
				tl.pool(in)
				tl.op(int64(at)+1, errNone, nil, false)
				tl.call(at, 1500*time.Microsecond)
			}
		})
	})
	for _, withTimeline := range []bool{false, true} {
		name := "open"
		if withTimeline {
			name = "open+timeline"
		}
		b.Run(name, func(b *testing.B) {
			const slots = 64
			rec := newRecorder(5*time.Second, slots)
			orec := newOpenRecorder(rec, 10*time.Minute)
			pool := newPoolRecorder()
			var tl *timelineRecorder
			if withTimeline {
				tl = newTimelineRecorder(rec, 10*time.Minute, 5*time.Second)
				rec.tl, pool.tl = tl, tl
			}
			mon := pool.monitor()
			rec.openWindow()
			pool.measuring.Store(true)
			if tl != nil {
				tl.start(rec.now())
			}
			var next atomic.Int64
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				out := &event.PoolEvent{Type: event.ConnectionCheckedOut, Address: "h:1", Duration: 20 * time.Microsecond}
				in := &event.PoolEvent{Type: event.ConnectionCheckedIn, Address: "h:1"}
				for pb.Next() {
					w := int(next.Add(1) % slots)
					at := rec.now()
					orec.arrival(at, false, false)
					if tl != nil {
						tl.arrival(at, false)
					}
					orec.start(w, at)
					s := rec.opStart(w, 0)
					mon.Event(out)
					mon.Event(in)
					rec.opEnd(w, 0, s, errNone, workload.LookupNone, nil, true)
					d, ok := orec.end(w, at, true)
					if tl != nil && ok {
						tl.call(at, d)
					}
				}
			})
		})
	}
}
