package sweep

import (
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// A step during which the target failed (it died, or stopped answering)
// must say so, not pass for a measurement: its ops/s are those of a
// deployment that was there for part of the window. The evidence the
// engine has is when operations succeeded and when they failed, the
// driver's pool events, and the telemetry sampler's failures. The rule
// (markTargetFailed) asks for a stall — after a failure, no operation
// succeeded for a while — together with evidence that the target, not
// its speed, failed. A slow but healthy server keeps answering: its
// stalls are as long as its latency, and its timeouts neither clear the
// driver's pools nor fail on the network.

// Thresholds of the rule.
const (
	// minStall is the shortest stall that marks a step: the driver's
	// retry after a reset reconnects within it.
	minStall = 500 * time.Millisecond
	// stallLatencies is how many median call latencies a stall must
	// outlast, so a step of slow calls is never marked for waiting on one.
	stallLatencies = 4
)

// stall is one stretch without a successful operation after a failure.
type stall struct {
	start, length time.Duration // from the last success before it
	recovered     bool          // an operation succeeded after it
}

// outage follows, from the window's opening to the end of the drain, the
// stalls of a step: each begins at the last success before a failure and
// ends at the next success, or at the end of the step. It keeps the
// longest stall that saw a hard failure (a network error, a pool the
// driver cleared) and the longest one counted inside the window only.
// Successes are the hot path: an atomic store in the worker's stripe and
// a load of the open stall, which is 0 but during a fault.
type outage struct {
	lastOK [stripes]struct {
		t atomic.Int64 // now()+1 of the stripe's latest success
		_ [56]byte
	}
	open   atomic.Int64  // start+1 of the stall in progress; 0 when none
	closed *atomic.Int64 // the recorder's window close (now()+1; 0 while open)

	mu       sync.Mutex
	openHard bool          // the stall in progress saw a hard failure
	first    time.Duration // first failure +1; 0 when none
	hard     stall         // longest stall with a hard failure, to its end
	inWindow stall         // longest stall, counted up to the window's close
}

// ok notes a success of worker w at t.
func (o *outage) ok(w int, t time.Duration) {
	o.lastOK[w%stripes].t.Store(int64(t) + 1)
	if s := o.open.Load(); s != 0 && t > time.Duration(s-1) {
		o.end(t, true)
	}
}

// fail notes a failure at t; windowOpen is when the window opened (a
// stall starts no earlier).
func (o *outage) fail(t, windowOpen time.Duration, hard bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.first == 0 {
		o.first = t + 1
	}
	if o.open.Load() == 0 {
		start := windowOpen
		for i := range o.lastOK {
			if v := time.Duration(o.lastOK[i].t.Load() - 1); v > start && v <= t {
				start = v
			}
		}
		o.open.Store(int64(start) + 1)
		o.openHard = false
	}
	o.openHard = o.openHard || hard
}

// end closes the stall in progress at t: recovered by a success, or not
// when the step ends.
func (o *outage) end(t time.Duration, recovered bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	s := o.open.Load()
	if s == 0 || t <= time.Duration(s-1) {
		return
	}
	start := time.Duration(s - 1)
	if o.openHard && t-start > o.hard.length {
		o.hard = stall{start, t - start, recovered}
	}
	upTo := t
	if c := o.closed.Load(); c != 0 {
		upTo = min(t, time.Duration(c-1))
	}
	if upTo > start && upTo-start > o.inWindow.length {
		o.inWindow = stall{start, upTo - start, recovered && upTo == t}
	}
	o.open.Store(0)
	o.openHard = false
}

// outageEvidence is what a step's mark is decided from, besides the step
// itself: the stalls, times relative to the window's opening.
type outageEvidence struct {
	first       time.Duration // first failure, from the window's opening; < 0: none
	hard        stall
	inWindow    stall
	poolCleared int64
	stuck       stuck         // hung calls (stall.go), starts from the window's opening
	lastOK      time.Duration // the last success, from the window's opening
}

// markTargetFailed decides whether the target failed during the step and
// returns its mark, or nil: an outage (outageMark), else a freeze
// (frozenMark; not in a step that measured an election, whose calls wait
// for the new primary), else lost data (dataLostMark).
func markTargetFailed(step *results.StepResult, ev outageEvidence) *results.TargetFailed {
	f := outageMark(step, ev)
	if f == nil && step.PrimaryChange == nil {
		f = frozenMark(ev.stuck, ev.lastOK)
	}
	if f == nil {
		f = dataLostMark(step)
	}
	if f == nil {
		return nil
	}
	if ev.first >= 0 {
		f.FirstFailureS = ev.first.Seconds()
	}
	f.PoolCleared, f.ConnectionsLost, f.InFlightAtClose, f.Errors = ev.poolCleared, step.Pool.ConnectionsLost, step.InFlightAtClose, step.Errors
	if step.Server != nil {
		f.SamplerErrors = step.Server.SamplerErrors
	}
	if st := ev.stuck; st.atClose+st.inWindow > 0 {
		f.StuckCalls, f.StuckAfterMS, f.WindowP99MS = st.atClose+st.inWindow, msOf(st.need), msOf(st.ref)
	}
	if step.InFlightAtClose > 0 {
		f.OldestInFlightMS = step.OldestInFlightMS
	}
	f.NotFound, f.LoadedKeyOps = step.NotFound, step.LoadedKeyOps
	f.Reason = targetFailedReason(f)
	return f
}

// outageMark is the mark of an outage, or nil. A step is marked when a stall outlasted
// max(minStall, stallLatencies × the median call latency) and either
// the driver saw the server fail (a pool cleared, or an operation failed
// on the network) during it — the stall may then run into the drain, so
// a server killed just before the close is caught by the calls it left
// hanging — or server samples failed and the stall lasted inside the
// window. Timeouts alone never mark a step.
func outageMark(step *results.StepResult, ev outageEvidence) *results.TargetFailed {
	need := max(minStall, time.Duration(stallLatencies*step.Latency.P50*float64(time.Millisecond)))
	samplerErrors := 0
	if step.Server != nil {
		samplerErrors = step.Server.SamplerErrors
	}
	var st stall
	switch {
	case ev.hard.length >= need && (ev.poolCleared > 0 || step.Errors.Network > 0):
		st = ev.hard
	case ev.inWindow.length >= need && samplerErrors > 0:
		st = ev.inWindow
	default:
		return nil
	}
	return &results.TargetFailed{Failed: true, Cause: results.CauseOutage, StalledFromS: max(st.start, 0).Seconds(),
		StalledS: st.length.Seconds(), Recovered: st.recovered}
}

// targetFailedReason is the mark's evidence in one line: what it rests
// on (its cause), then everything else the step saw.
func targetFailedReason(f *results.TargetFailed) string {
	var b strings.Builder
	switch f.Cause {
	case results.CauseFrozen:
		frozenReason(&b, f)
	case results.CauseDataLost:
		dataLostReason(&b, f)
	default:
		fmt.Fprintf(&b, "no operation succeeded for %.1f s from %.1f s into the window", f.StalledS, f.StalledFromS)
		if !f.Recovered {
			b.WriteString(" to the end of the step")
		}
	}
	var ev []string
	if f.PoolCleared > 0 {
		ev = append(ev, fmt.Sprintf("the driver cleared its pool %d time(s) (it saw the server fail)", f.PoolCleared))
	}
	if f.ConnectionsLost > 0 {
		ev = append(ev, fmt.Sprintf("%d connection(s) lost", f.ConnectionsLost))
	}
	if f.SamplerErrors > 0 {
		ev = append(ev, fmt.Sprintf("%d server sample(s) failed", f.SamplerErrors))
	}
	if f.InFlightAtClose > 0 {
		ev = append(ev, fmt.Sprintf("%d call(s) in flight at the close, the oldest %.0f ms old", f.InFlightAtClose, f.OldestInFlightMS))
	}
	if f.StuckCalls > 0 && f.Cause != results.CauseFrozen {
		ev = append(ev, fmt.Sprintf("%d call(s) took %.1f s or more, against a window p99 of %.1f ms", f.StuckCalls, f.StuckAfterMS/1000, f.WindowP99MS))
	}
	if e := f.Errors; e.Total() > 0 {
		ev = append(ev, fmt.Sprintf("errors: %d timeout, %d network, %d server", e.Timeout, e.Network, e.Server))
	}
	if f.NotFound > 0 && f.Cause != results.CauseDataLost {
		ev = append(ev, notFoundEvidence(f.NotFound, f.LoadedKeyOps))
	}
	if len(ev) > 0 {
		b.WriteString("; " + strings.Join(ev, ", "))
	}
	return b.String()
}

// noteOutcome feeds the outcome of worker w's op, ended at end, to the
// stalls: an answer from the server (a success, or a server error) ends
// one; from the window's opening on, a timeout starts one, and a network
// error, a hard failure, starts one or hardens it.
func (r *recorder) noteOutcome(w int, end time.Duration, kind int) {
	switch kind {
	case errNone, errServer:
		r.outage.ok(w, end)
	default:
		if o := r.open.Load(); o != 0 {
			r.outage.fail(end, time.Duration(o-1), kind == errNetwork)
		}
	}
}

// poolFailed notes a failure the pool's events saw: a connection closed
// by an error, or (hard) the driver clearing a pool because it saw the
// server fail.
func (r *recorder) poolFailed(hard bool) {
	if o := r.open.Load(); o != 0 {
		r.outage.fail(r.now(), time.Duration(o-1), hard)
	}
}

// outageEvidence ends the stall in progress, if any, at the end of the
// step, and returns the stalls relative to the window's opening.
func (r *recorder) outageEvidence(poolCleared int64) outageEvidence {
	o := r.open.Load()
	if o == 0 {
		return outageEvidence{first: -1}
	}
	r.outage.end(r.now(), false)
	opened := time.Duration(o - 1)
	r.outage.mu.Lock()
	defer r.outage.mu.Unlock()
	ev := outageEvidence{first: -1, hard: r.outage.hard, inWindow: r.outage.inWindow, poolCleared: poolCleared, stuck: r.stuck}
	if f := r.outage.first; f != 0 {
		ev.first = f - 1 - opened
	}
	ev.hard.start -= opened
	ev.inWindow.start -= opened
	ev.stuck.slowLate.start -= opened
	ev.stuck.slowWindow.start -= opened
	for i := range r.outage.lastOK {
		ev.lastOK = max(ev.lastOK, time.Duration(r.outage.lastOK[i].t.Load()-1))
	}
	ev.lastOK -= opened
	return ev
}
