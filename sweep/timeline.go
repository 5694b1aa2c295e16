package sweep

import (
	"math"
	"math/bits"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/poolsweep/poolsweep/results"
)

// A profile step records a timeline: the step cut into short intervals
// from the profile's start, each with its arrivals, completed calls and
// their latency, the pool's events and the errors. Calls, their ops and
// errors are filed under the interval of the call's intended start, so a
// call's latency is charged to the moment the load asked for it; pool
// events under the interval they happened in.
//
// Recording is a few atomic adds into intervals allocated before the
// step starts: nothing on a call's path allocates or takes a lock.

const (
	// timelineInterval is the interval of a profile of at most
	// timelineMaxIntervals × timelineInterval (33 min 20 s).
	timelineInterval = 100 * time.Millisecond
	// timelineMaxIntervals bounds the intervals a profile's own length
	// is cut into: a longer profile gets wider intervals (a whole number
	// of timelineInterval), so that its memory (about 1.9 KB an
	// interval, 38 MB at the bound) and its record (about 250 bytes an
	// interval) stay bounded.
	timelineMaxIntervals = 20_000
	// timelineMaxTail bounds the intervals kept beyond the profile's end
	// for the calls still draining and the pool's events meanwhile: the
	// rest of what a record may hold.
	timelineMaxTail = results.MaxTimelineIntervals - timelineMaxIntervals
)

// Histogram of one interval's latencies in microseconds: values below 8
// have a bin each; above, each power of two is cut into 8 equal bins,
// so a bin is at most 1/8 of its lower edge wide and its midpoint, the
// quantile reported, is within 1/16 (6.25 %) of every value in it.
// Values at or above 2^30 µs (about 18 min) share the last bin.
const (
	tlSubBits = 3
	tlSub     = 1 << tlSubBits
	tlTopExp  = 30
	tlBins    = tlSub + (tlTopExp-tlSubBits)*tlSub
)

// TimelineQuantileError is the relative error of a timeline interval's
// p50 and p99: half a bin's width.
const TimelineQuantileError = 1.0 / (2 * tlSub)

type tlHist [tlBins]atomic.Uint32

// tlBin is the bin of us microseconds.
func tlBin(us int64) int {
	if us < tlSub {
		return int(max(us, 0))
	}
	msb := bits.Len64(uint64(us)) - 1
	if msb >= tlTopExp {
		return tlBins - 1
	}
	shift := msb - tlSubBits
	return tlSub + shift*tlSub + int((us>>shift)&(tlSub-1))
}

// tlMid is bin b's midpoint in microseconds.
func tlMid(b int) float64 {
	if b < tlSub {
		return float64(b)
	}
	shift := (b - tlSub) / tlSub
	lo := int64(tlSub+(b-tlSub)%tlSub) << shift
	return float64(lo) + float64(int64(1)<<shift)/2
}

func (h *tlHist) add(us int64) { h[tlBin(us)].Add(1) }

// quantile is the q-th quantile (0 < q ≤ 1) in milliseconds; nil when
// the histogram is empty.
func (h *tlHist) quantile(q float64) *float64 {
	var n uint64
	for i := range h {
		n += uint64(h[i].Load())
	}
	if n == 0 {
		return nil
	}
	rank := uint64(math.Ceil(q * float64(n)))
	var c uint64
	for i := range h {
		if c += uint64(h[i].Load()); c >= max(rank, 1) {
			return new(tlMid(i) / 1000)
		}
	}
	return new(tlMid(tlBins-1) / 1000)
}

// tlInterval is one interval's counts as they are recorded.
type tlInterval struct {
	offered, dropped, calls, ops atomic.Int64
	created, closed, clears      atomic.Int64
	checkedOut, checkedIn        atomic.Int64
	errs                         [4]atomic.Int64 // by error kind
	notPrimary, poolCleared      atomic.Int64    // of errs, by cause (errCause)
	retriedOK                    atomic.Int64
	waitMaxNS                    atomic.Int64
	lat, wait                    tlHist
}

// timelineRecorder records a profile step's timeline. Its clock is the
// step recorder's; its zero, set by start, is the profile's start.
type timelineRecorder struct {
	rec      *recorder
	base     atomic.Int64 // the profile's start on rec's clock, + 1; 0 before
	interval time.Duration
	iv       []tlInterval
	// The pool's events before the profile started (the pre-warm): the
	// connections open and in use at its start.
	created0, closed0, out0, in0 atomic.Int64
	// hosts, in a step with events only, are the connections per host
	// (perHost); nil otherwise.
	hosts *tlHosts
}

// timelineWidth is the interval a profile of length d is recorded in.
func timelineWidth(d time.Duration) time.Duration {
	n := (d + timelineMaxIntervals*timelineInterval - 1) / (timelineMaxIntervals * timelineInterval)
	return max(n, 1) * timelineInterval
}

// newTimelineRecorder is the timeline of a profile of length d whose
// calls drain for at most drain after it.
func newTimelineRecorder(rec *recorder, d, drain time.Duration) *timelineRecorder {
	w := timelineWidth(d)
	n := int((d+w-1)/w) + min(int((drain+w-1)/w), timelineMaxTail)
	return &timelineRecorder{rec: rec, interval: w, iv: make([]tlInterval, max(n, 1))}
}

// start sets the profile's start to at, on the recorder's clock.
func (t *timelineRecorder) start(at time.Duration) { t.base.Store(int64(at) + 1) }

// index is the interval of at (recorder clock); false before the start.
// Anything past the last interval is filed in it.
func (t *timelineRecorder) index(at time.Duration) (int, bool) {
	b := t.base.Load()
	if b == 0 || at < time.Duration(b-1) {
		return 0, false
	}
	return min(int((at-time.Duration(b-1))/t.interval), len(t.iv)-1), true
}

// arrival counts an arrival due at at; dropped: no slot was free.
func (t *timelineRecorder) arrival(at time.Duration, dropped bool) {
	if i, ok := t.index(at); ok {
		t.iv[i].offered.Add(1)
		if dropped {
			t.iv[i].dropped.Add(1)
		}
	}
}

// call records a call due at intended that completed after d.
func (t *timelineRecorder) call(intended, d time.Duration) {
	if i, ok := t.index(intended); ok {
		t.iv[i].calls.Add(1)
		t.iv[i].lat.add(t.rec.clamp(d))
	}
}

// sealed records a call due at intended still running at the step's end,
// after d: its latency, as the step's own (recorder.seal), but no call.
func (t *timelineRecorder) sealed(intended, d time.Duration) {
	if i, ok := t.index(intended); ok {
		t.iv[i].lat.add(t.rec.clamp(d))
	}
}

// op records an op of the call due at due (recorder clock + 1, as a
// slot holds it) that ended with error kind kind; late: it is counted in
// the step's errors but not in its ops (recorder.summary).
func (t *timelineRecorder) op(due int64, kind int, err error, late bool) {
	if due == 0 {
		return
	}
	i, ok := t.index(time.Duration(due - 1))
	if !ok {
		return
	}
	if !late {
		t.iv[i].ops.Add(1)
	}
	if kind != errNone {
		t.iv[i].errs[kind].Add(1)
		switch errCause(err) {
		case causeNotPrimary:
			t.iv[i].notPrimary.Add(1)
		case causePoolCleared:
			t.iv[i].poolCleared.Add(1)
		}
	}
}

// retried records an op of the call due at due (as op) that failed once
// and succeeded on the driver's retry.
func (t *timelineRecorder) retried(due int64) {
	if due == 0 {
		return
	}
	if i, ok := t.index(time.Duration(due - 1)); ok {
		t.iv[i].retriedOK.Add(1)
	}
}

// pool files one of the driver's pool events under the interval it
// happened in, or before the start.
func (t *timelineRecorder) pool(e *event.PoolEvent) {
	i, ok := t.index(t.rec.now())
	var iv *tlInterval
	if ok {
		iv = &t.iv[i]
	}
	if t.hosts != nil && (e.Type == event.ConnectionCreated || e.Type == event.ConnectionClosed) {
		t.hosts.add(e.Address, i, ok, e.Type == event.ConnectionCreated)
	}
	switch e.Type {
	case event.ConnectionCreated:
		if iv == nil {
			t.created0.Add(1)
		} else {
			iv.created.Add(1)
		}
	case event.ConnectionClosed:
		if iv == nil {
			t.closed0.Add(1)
		} else {
			iv.closed.Add(1)
		}
	case event.ConnectionCheckedOut:
		if iv == nil {
			t.out0.Add(1)
			return
		}
		iv.checkedOut.Add(1)
		iv.wait.add(int64(e.Duration / time.Microsecond))
		raise(&iv.waitMaxNS, int64(e.Duration))
	case event.ConnectionCheckedIn:
		if iv == nil {
			t.in0.Add(1)
		} else {
			iv.checkedIn.Add(1)
		}
	case event.ConnectionPoolCleared:
		if iv != nil {
			iv.clears.Add(1)
		}
	}
}

// timeline is the record of the intervals up to end (from the start):
// the open and in-use connections at each interval's end follow from
// what was open at the start and each interval's events.
func (t *timelineRecorder) timeline(end time.Duration) results.Timeline {
	n := len(t.iv)
	if end >= 0 {
		n = min(n, max(int((end+t.interval-1)/t.interval), 1))
	}
	tl := results.Timeline{IntervalS: t.interval.Seconds(), Intervals: make([]results.TimelineInterval, n)}
	open := t.created0.Load() - t.closed0.Load()
	inUse := t.out0.Load() - t.in0.Load()
	for i := range tl.Intervals {
		s := &t.iv[i]
		out := &tl.Intervals[i]
		out.Offered, out.Dropped, out.Calls, out.Ops = s.offered.Load(), s.dropped.Load(), s.calls.Load(), s.ops.Load()
		out.Created, out.Closed, out.Clears = s.created.Load(), s.closed.Load(), s.clears.Load()
		open += out.Created - out.Closed
		inUse += s.checkedOut.Load() - s.checkedIn.Load()
		out.Open, out.InUse = int(max(open, 0)), int(max(inUse, 0))
		out.P50MS, out.P99MS = s.lat.quantile(0.5), s.lat.quantile(0.99)
		if s.checkedOut.Load() > 0 {
			out.CheckoutWaitP99MS = s.wait.quantile(0.99)
			out.CheckoutWaitMaxMS = new(float64(s.waitMaxNS.Load()) / float64(time.Millisecond))
		}
		if e := (results.ErrorCounts{Timeout: s.errs[errTimeout].Load(), Network: s.errs[errNetwork].Load(), Server: s.errs[errServer].Load(),
			NotWritablePrimary: s.notPrimary.Load(), PoolCleared: s.poolCleared.Load()}); e.Total() > 0 {
			out.Errors = &e
		}
		out.RetriedOK = s.retriedOK.Load()
	}
	if t.hosts != nil {
		t.hosts.fill(tl.Intervals)
	}
	return tl
}
