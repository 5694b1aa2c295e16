package sweep

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/poolsweep/poolsweep/internal/beat"
	"github.com/poolsweep/poolsweep/workload"
)

// Error kinds.
const (
	errNone = iota
	errTimeout
	errNetwork
	errServer
)

// stripes spreads recording over several locks so that a thousand workers
// on two cores rarely wait for each other; each stripe has its own
// histograms, merged once when the window closes.
//
// Memory: each stripe's five histograms (1 µs … 60 s, 3 digits) are about
// 0.7 MB, allocated before each step's pre-warm, so 16 stripes stay near
// 11 MB per step.
const stripes = 16

type stripe struct {
	mu       sync.Mutex
	call     *hdr.Histogram
	ops      []*hdr.Histogram // by op type; a shape's made at its first op
	opErrs   []int64
	errs     [4]int64 // by error kind
	causes   [3]int64 // by the cause an event brings (errCause)
	calls    int64
	lateOps  []int64  // ops that straddled the window's end
	highest  int64    // the histograms' highest value, for a shape's
	keyed    int64    // ops by a loaded key that got an answer
	notFound int64    // of those, ops that found no document
	slowest  slowCall // the slowest call that ended inside the window
	firstErr string
	live     atomic.Int64 // calls completed in any phase, for the live rate
	liveOps  atomic.Int64 // ops completed in any phase: the ops' own series
	_        [64]byte     // keep stripes on separate cache lines
}

// inflight is what one worker is doing right now: the start of its current
// call and op (as recorder.now()+1; 0 when idle) and the op's type. The
// worker sets and clears it; at the end of a step the recorder may clear
// it first (seal), and then the worker's own completion is not recorded.
type inflight struct {
	call    atomic.Int64
	op      atomic.Int64
	opType  atomic.Int32
	expired atomic.Int64                       // the op start the watchdog cancelled
	cancel  atomic.Pointer[context.CancelFunc] // cancels the worker's op context
	_       [24]byte                           // one cache line per worker
}

// recorder collects one step's measurements. Latencies are recorded in
// microseconds from 1 µs to the histogram's highest trackable value.
//
// The window rule: an op or call counts toward throughput when it ends
// inside the window [open, close). One still running when the window
// closes (it straddles the end) is not dropped: its latency goes into the
// histograms, and its error into the counts, when it ends; if it has not
// ended when the step is sealed, it is recorded as a timeout with its age
// as the latency. So a server that freezes across the end of a window
// shows as errors and huge latencies, never as a clean step.
type recorder struct {
	base    time.Time
	open    atomic.Int64 // window start as now()+1; 0 before the window
	close   atomic.Int64 // window end as now()+1; 0 while it is open
	s       [stripes]stripe
	slots   []inflight
	highest int64
	// types are the op types' names by index (workload.OpType).
	types []string

	// Set by closeWindow.
	inFlightAtClose int
	oldestAtClose   time.Duration

	// outage follows the stalls after failures (outage.go).
	outage outage

	// The calls that straddled the window's end (stall.go): one per
	// worker at most, kept whole under one lock.
	lateMu      sync.Mutex
	late        []slowCall
	sealedCalls int   // calls seal recorded as still running
	stuck       stuck // set by summary

	// tl, set before any call in a profile step, is also told of each op
	// and sealed call, filed under its call's intended start (timeline.go).
	tl *timelineRecorder
}

// newRecorder is a recorder of the built-in op types.
func newRecorder(opTimeout time.Duration, workers int) *recorder {
	return newTypedRecorder(opTimeout, workers, workload.BuiltinOpTypeNames())
}

// newTypedRecorder is a recorder of the op types named by types, indexed
// by workload.OpType (a workload's OpTypes). The built-in types'
// histograms are made now; a replayed shape's at its first op in each
// stripe, so that a file of many shapes costs memory for the shapes that
// ran.
func newTypedRecorder(opTimeout time.Duration, workers int, types []string) *recorder {
	r := &recorder{base: time.Now(), highest: max(int64(opTimeout/time.Microsecond)*4, 60_000_000), slots: make([]inflight, workers), late: make([]slowCall, 0, workers)}
	r.types = types
	for i := range r.s {
		r.s[i].call = hdr.New(1, r.highest, 3)
		r.s[i].highest = r.highest
		r.s[i].ops = make([]*hdr.Histogram, len(r.types))
		r.s[i].opErrs = make([]int64, len(r.types))
		r.s[i].lateOps = make([]int64, len(r.types))
		for j := range min(len(r.types), workload.BuiltinOpTypes) {
			r.s[i].ops[j] = hdr.New(1, r.highest, 3)
		}
	}
	r.outage.closed = &r.close
	return r
}

// now is the time since the recorder was made, on the monotonic clock.
func (r *recorder) now() time.Duration { return time.Since(r.base) }

func (r *recorder) clamp(d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	if us < 1 {
		return 1
	}
	if us > r.highest {
		return r.highest
	}
	return us
}

// watch enforces the op timeout until ctx ends: every tick (a tenth of
// the timeout, between 10 and 250 ms) it cancels the op context of each
// worker whose current op has run longer than timeout, marking that op
// expired, so it ends within about a tick of its timeout and counts as a
// timeout (worker.outcome).
func (r *recorder) watch(ctx context.Context, timeout time.Duration) {
	tick := min(max(timeout/10, 10*time.Millisecond), 250*time.Millisecond)
	beat.Every(ctx, tick, func() bool {
		r.expire(timeout)
		return true
	})
}

// expire cancels the op context of each worker whose current op has run
// longer than timeout, marking that op expired. It cancels again at every
// tick while the op runs: a worker marks an op's start before it takes the
// op's context (a new one after a timeout), and a worker starved between
// the two would otherwise run that op with a context no one cancels.
func (r *recorder) expire(timeout time.Duration) {
	now := r.now()
	for i := range r.slots {
		sl := &r.slots[i]
		s := sl.op.Load()
		if s == 0 || now-time.Duration(s-1) < timeout {
			continue
		}
		sl.expired.Store(s)
		if c := sl.cancel.Load(); c != nil && sl.op.Load() == s {
			(*c)()
		}
	}
}

// openWindow starts the measured window.
func (r *recorder) openWindow() { r.open.Store(int64(r.now()) + 1) }

// closeWindow ends the measured window and notes the calls in flight.
func (r *recorder) closeWindow() {
	end := r.now()
	r.close.Store(int64(end) + 1)
	for i := range r.slots {
		if s := r.slots[i].call.Load(); s != 0 && time.Duration(s-1) < end {
			r.inFlightAtClose++
			r.oldestAtClose = max(r.oldestAtClose, end-time.Duration(s-1))
		}
	}
}

// measured says whether something that started at start and ended at end
// belongs to the window, and whether it straddled the window's end (then
// its latency and error count, but it adds nothing to throughput).
func (r *recorder) measured(start, end time.Duration) (counts, late bool) {
	o := r.open.Load()
	if o == 0 || end < time.Duration(o-1) {
		return false, false
	}
	c := r.close.Load()
	if c == 0 || end < time.Duration(c-1) {
		return true, false
	}
	return start < time.Duration(c-1), true
}

// callStart marks the start of worker w's call and returns its start time.
func (r *recorder) callStart(w int) time.Duration {
	t := r.now()
	r.slots[w].call.Store(int64(t) + 1)
	return t
}

// opStart marks the start of worker w's op of type typ.
func (r *recorder) opStart(w, typ int) time.Duration {
	t := r.now()
	r.slots[w].opType.Store(int32(typ))
	r.slots[w].op.Store(int64(t) + 1)
	return t
}

// opEnd records worker w's op that started at start; record false drops
// it (the step was interrupted: the outcome says nothing about the server).
func (r *recorder) opEnd(w, typ int, start time.Duration, kind int, lookup workload.Lookup, err error, record bool) {
	if !r.slots[w].op.CompareAndSwap(int64(start)+1, 0) || !record {
		return // sealed: already recorded as a timeout
	}
	r.s[w%stripes].liveOps.Add(1)
	end := r.now()
	r.noteOutcome(w, end, kind)
	if counts, late := r.measured(start, end); counts {
		r.recordOp(w, typ, end-start, kind, lookup, err, late)
	}
}

// callEnd records worker w's call that started at start.
func (r *recorder) callEnd(w int, start time.Duration, record bool) {
	if !r.slots[w].call.CompareAndSwap(int64(start)+1, 0) || !record {
		return
	}
	r.countLive(w)
	end := r.now()
	if counts, late := r.measured(start, end); counts {
		r.recordCall(w, start, end-start, late)
	}
}

// countLive counts a call of worker w completed, in any phase, for the
// live rate; per stripe, so that workers on different cores do not fight
// over one counter.
func (r *recorder) countLive(w int) { r.s[w%stripes].live.Add(1) }

// liveCalls is how many calls have completed so far, in any phase.
func (r *recorder) liveCalls() int64 {
	var n int64
	for i := range r.s {
		n += r.s[i].live.Load()
	}
	return n
}

// liveOps is how many ops have completed so far, in any phase: the
// operations' own batch series, beside the calls'. A call of several ops
// (the API call) ends once for all of them, so callers whose calls end
// together make the calls' series swing by the call; the ops end spread
// over the call.
func (r *recorder) liveOps() int64 {
	var n int64
	for i := range r.s {
		n += r.s[i].liveOps.Load()
	}
	return n
}

// startOne marks the start of worker w's call that is one op of type typ
// (a read, update, insert or scan): one clock read for both.
func (r *recorder) startOne(w, typ int) time.Duration {
	t := r.now()
	sl := &r.slots[w]
	sl.opType.Store(int32(typ))
	sl.op.Store(int64(t) + 1)
	sl.call.Store(int64(t) + 1)
	return t
}

// endOne records a one-op call begun with startOne: the op and the call
// under one lock, with one latency.
func (r *recorder) endOne(w, typ int, start time.Duration, kind int, lookup workload.Lookup, err error, record bool) {
	sl := &r.slots[w]
	op := sl.op.CompareAndSwap(int64(start)+1, 0)
	call := sl.call.CompareAndSwap(int64(start)+1, 0)
	if !record || (!op && !call) {
		return // interrupted, or sealed: already recorded as a timeout
	}
	if call {
		r.countLive(w)
	}
	if op {
		r.s[w%stripes].liveOps.Add(1)
	}
	end := r.now()
	if op {
		r.noteOutcome(w, end, kind)
	}
	counts, late := r.measured(start, end)
	if !counts {
		return
	}
	d := r.clamp(end - start)
	s := &r.s[w%stripes]
	s.mu.Lock()
	if op {
		s.addOp(typ, d, kind, lookup, err, late)
	}
	if call && !late {
		s.addCall(start, d)
	}
	s.mu.Unlock()
	if call && late {
		r.addLate(start, d)
	}
}

func (r *recorder) recordOp(w, typ int, d time.Duration, kind int, lookup workload.Lookup, err error, late bool) {
	if r.tl != nil {
		r.tl.op(r.slots[w].call.Load(), kind, err, late)
	}
	s := &r.s[w%stripes]
	s.mu.Lock()
	s.addOp(typ, r.clamp(d), kind, lookup, err, late)
	s.mu.Unlock()
}

// recordCall records worker w's call that started at start and took d;
// late: it straddled the window's end.
func (r *recorder) recordCall(w int, start, d time.Duration, late bool) {
	if late {
		r.addLate(start, r.clamp(d))
		return
	}
	s := &r.s[w%stripes]
	s.mu.Lock()
	s.addCall(start, r.clamp(d))
	s.mu.Unlock()
}

// addOp records one op of type typ that took us microseconds (clamped),
// with its error kind and what it found by its key; s.mu is held.
func (s *stripe) addOp(typ int, us int64, kind int, lookup workload.Lookup, err error, late bool) {
	if s.ops[typ] == nil {
		s.ops[typ] = hdr.New(1, s.highest, 3)
	}
	s.ops[typ].RecordValue(us)
	if lookup != workload.LookupNone {
		s.keyed++
		if lookup == workload.LookupMissed {
			s.notFound++
		}
	}
	if late {
		s.lateOps[typ]++
	}
	if kind != errNone {
		s.opErrs[typ]++
		s.errs[kind]++
		s.causes[errCause(err)]++
		if s.firstErr == "" && err != nil {
			s.firstErr = err.Error()
		}
	}
}

// addCall records one call that started at start, ended inside the
// window and took us microseconds (clamped); s.mu is held.
func (s *stripe) addCall(start time.Duration, us int64) {
	s.call.RecordValue(us)
	s.calls++
	if us > s.slowest.us {
		s.slowest = slowCall{start, us}
	}
}

// addLate records one call that started at start, straddled the window's
// end and took us microseconds (clamped). Its latency goes into the
// call histogram (summary).
func (r *recorder) addLate(start time.Duration, us int64) {
	r.lateMu.Lock()
	r.late = append(r.late, slowCall{start, us})
	r.lateMu.Unlock()
}

// seal ends recording: every call and op that started before the window
// closed and is still running is recorded now as a timeout whose latency
// is its age; whatever ends later is not recorded.
func (r *recorder) seal() {
	now := r.now()
	c := r.close.Load()
	if c == 0 {
		r.close.Store(int64(now) + 1)
		c = int64(now) + 1
	}
	closed := time.Duration(c - 1)
	for w := range r.slots {
		sl := &r.slots[w]
		if s := sl.op.Load(); s != 0 && sl.op.CompareAndSwap(s, 0) && r.open.Load() != 0 && time.Duration(s-1) < closed {
			r.recordOp(w, int(sl.opType.Load()), now-time.Duration(s-1), errTimeout, workload.LookupNone, errStillRunning, true)
			r.noteOutcome(w, now, errTimeout)
		}
		if s := sl.call.Load(); s != 0 && sl.call.CompareAndSwap(s, 0) && r.open.Load() != 0 && time.Duration(s-1) < closed {
			r.recordCall(w, time.Duration(s-1), now-time.Duration(s-1), true)
			r.sealedCalls++
			if r.tl != nil {
				r.tl.sealed(time.Duration(s-1), now-time.Duration(s-1))
			}
		}
	}
}

// discard clears whatever is still marked running without recording it:
// after an interruption, or after seal, nothing more is recorded.
func (r *recorder) discard() {
	for w := range r.slots {
		r.slots[w].op.Store(0)
		r.slots[w].call.Store(0)
	}
}

// errStillRunning is the error sample of an op recorded by seal.
var errStillRunning = stillRunning{}

type stillRunning struct{}

func (stillRunning) Error() string {
	return "operation still running when the step ended (past the operation timeout)"
}
