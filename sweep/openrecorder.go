package sweep

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// trendBuckets is how many parts of the window latency_trend_ms has.
const trendBuckets = 10

// trendFine is how many parts of the planned window (with an auto
// window, its maximum) the trend is gathered in; summary folds the ones
// the window covered into trendBuckets.
const trendFine = 600

// openSlot is what one in-flight open-loop call is doing beyond what the
// recorder's slot holds (whose call start is the intended start): when it
// really started, when its first and current operations were sent, and
// its time on the wire so far. Times are recorder clock + 1; 0 is unset.
type openSlot struct {
	start  atomic.Int64
	sent   atomic.Int64
	sendAt atomic.Int64
	svc    atomic.Int64 // ns
	_      [32]byte
}

type openStripe struct {
	mu                      sync.Mutex
	uncorr, lag, wait, serv *hdr.Histogram
	_                       [64]byte
}

// openRecorder is the recorder's sibling for an open-loop step. The
// recorder keeps what both loops share (ops, calls, errors, the window
// and the seal), with each call's start taken at its intended time, so
// its call latency is the corrected one; this adds the uncorrected
// latency, the split of each call's time, the arrivals (offered, dropped,
// not issued) and the calls in flight.
type openRecorder struct {
	rec    *recorder
	window time.Duration // planned, for the trend's tenths
	slots  []openSlot
	s      [stripes]openStripe

	offered, dropped, notIssued atomic.Int64
	inFlight, inFlightMax       atomic.Int64
	inFlightNS                  atomic.Int64 // ∫ in flight dt over the window
	trendUS, trendN             [trendFine]atomic.Int64
	// liveLatNS is the corrected latency of every call completed so far,
	// in any phase, summed: with the recorder's live count, the mean an
	// auto warm-up and window read per batch (openwindow.go).
	liveLatNS atomic.Int64
}

// slotKey carries an open-loop call's slot in its operations' contexts,
// so that the command monitor can tell whose operation it sees.
type slotKey struct{}

func newOpenRecorder(rec *recorder, window time.Duration) *openRecorder {
	o := &openRecorder{rec: rec, window: window, slots: make([]openSlot, len(rec.slots))}
	for i := range o.s {
		o.s[i].uncorr = hdr.New(1, rec.highest, 3)
		o.s[i].lag = hdr.New(1, rec.highest, 3)
		o.s[i].wait = hdr.New(1, rec.highest, 3)
		o.s[i].serv = hdr.New(1, rec.highest, 3)
	}
	return o
}

// inWindow says whether an arrival due at at belongs to the window.
func (o *openRecorder) inWindow(at time.Duration) bool {
	op := o.rec.open.Load()
	if op == 0 || at < time.Duration(op-1) {
		return false
	}
	c := o.rec.close.Load()
	return c == 0 || at < time.Duration(c-1)
}

// measuring says whether the window is open now.
func (o *openRecorder) measuring() bool { return o.rec.open.Load() != 0 && o.rec.close.Load() == 0 }

// arrival counts an arrival due at at: offered when it is due in the
// window, and dropped or not issued as the dispatcher says.
func (o *openRecorder) arrival(at time.Duration, dropped, notIssued bool) {
	if !o.inWindow(at) {
		return
	}
	o.offered.Add(1)
	switch {
	case dropped:
		o.dropped.Add(1)
	case notIssued:
		o.notIssued.Add(1)
	}
}

func (o *openRecorder) noteMax(n int64) {
	for {
		m := o.inFlightMax.Load()
		if n <= m || o.inFlightMax.CompareAndSwap(m, n) {
			return
		}
	}
}

// overlap adds the part of [s, e] inside the window to the in-flight
// integral.
func (o *openRecorder) overlap(s, e time.Duration) {
	op := o.rec.open.Load()
	if op == 0 {
		return
	}
	lo, hi := max(s, time.Duration(op-1)), e
	if c := o.rec.close.Load(); c != 0 {
		hi = min(hi, time.Duration(c-1))
	}
	if hi > lo {
		o.inFlightNS.Add(int64(hi - lo))
	}
}

// start marks slot w's call, due at intended, starting now.
func (o *openRecorder) start(w int, intended time.Duration) {
	now := o.rec.now()
	sl := &o.slots[w]
	sl.sent.Store(0)
	sl.sendAt.Store(0)
	sl.svc.Store(0)
	sl.start.Store(int64(now) + 1)
	o.rec.slots[w].call.Store(int64(intended) + 1)
	n := o.inFlight.Add(1)
	if o.measuring() {
		o.noteMax(n) // the count before the first change in the window is the count at its start
	}
}

// end records slot w's call, due at intended; record false drops it (the
// step was interrupted). It returns the call's corrected latency, and
// false when the call was not recorded (dropped, or sealed already).
func (o *openRecorder) end(w int, intended time.Duration, record bool) (time.Duration, bool) {
	now := o.rec.now()
	sl := &o.slots[w]
	started := sl.start.Swap(0)
	if started != 0 {
		o.overlap(time.Duration(started-1), now)
	}
	n := o.inFlight.Add(-1)
	if o.measuring() {
		o.noteMax(n + 1)
	}
	if !o.rec.slots[w].call.CompareAndSwap(int64(intended)+1, 0) || !record {
		return 0, false // sealed: recorded as a timeout already
	}
	o.rec.countLive(w)
	o.liveLatNS.Add(int64(now - intended))
	counts, late := o.rec.measured(intended, now)
	if !counts {
		return 0, false
	}
	o.rec.recordCall(w, intended, now-intended, late)
	if started != 0 { // 0: the seal took the split already
		o.recordSplit(w, intended, time.Duration(started-1), now, sl)
	}
	return now - intended, !late
}

// recordSplit records a call's uncorrected latency, its split and its
// tenth of the window's trend.
func (o *openRecorder) recordSplit(w int, intended, started, now time.Duration, sl *openSlot) {
	svc := time.Duration(sl.svc.Load())
	if at := sl.sendAt.Load(); at != 0 { // an operation still on the wire (seal)
		svc += now - time.Duration(at-1)
	}
	wait := max(now-started-svc, 0)
	s := &o.s[w%stripes]
	s.mu.Lock()
	if sent := sl.sent.Load(); sent != 0 {
		s.uncorr.RecordValue(o.rec.clamp(now - time.Duration(sent-1)))
	}
	s.lag.RecordValue(o.rec.clamp(started - intended))
	s.wait.RecordValue(o.rec.clamp(wait))
	s.serv.RecordValue(o.rec.clamp(svc))
	s.mu.Unlock()
	if op := o.rec.open.Load(); op != 0 && o.window > 0 {
		b := int((intended - time.Duration(op-1)) * trendFine / o.window)
		if b >= 0 && b < trendFine {
			o.trendUS[b].Add(int64((now - intended) / time.Microsecond))
			o.trendN[b].Add(1)
		}
	}
}

// seal takes the split of every call still running that the recorder's
// seal is about to record as a timeout: call it just before rec.seal().
func (o *openRecorder) seal() {
	now := o.rec.now()
	c := o.rec.close.Load()
	if o.rec.open.Load() == 0 || c == 0 {
		return
	}
	for w := range o.slots {
		due := o.rec.slots[w].call.Load()
		if due == 0 || time.Duration(due-1) >= time.Duration(c-1) {
			continue
		}
		sl := &o.slots[w]
		if started := sl.start.Swap(0); started != 0 {
			o.overlap(time.Duration(started-1), now)
			o.recordSplit(w, time.Duration(due-1), time.Duration(started-1), now, sl)
		}
	}
}

// commandMonitor times each open-loop operation on the wire: from the
// command's send (after it got a connection) to its reply. Operations of
// other goroutines (pre-warm pings) carry no slot and are ignored.
func (o *openRecorder) commandMonitor() *event.CommandMonitor {
	slot := func(ctx context.Context) *openSlot {
		if w, ok := ctx.Value(slotKey{}).(int); ok && w >= 0 && w < len(o.slots) {
			return &o.slots[w]
		}
		return nil
	}
	finished := func(ctx context.Context) {
		if sl := slot(ctx); sl != nil {
			if at := sl.sendAt.Swap(0); at != 0 {
				sl.svc.Add(int64(o.rec.now() - time.Duration(at-1)))
			}
		}
	}
	return &event.CommandMonitor{
		Started: func(ctx context.Context, _ *event.CommandStartedEvent) {
			if sl := slot(ctx); sl != nil {
				now := int64(o.rec.now()) + 1
				sl.sent.CompareAndSwap(0, now)
				sl.sendAt.Store(now)
			}
		},
		Succeeded: func(ctx context.Context, _ *event.CommandSucceededEvent) { finished(ctx) },
		Failed:    func(ctx context.Context, _ *event.CommandFailedEvent) { finished(ctx) },
	}
}

// summary fills the step's open-loop numbers; call it after rec.summary.
func (o *openRecorder) summary(step *results.StepResult, window time.Duration, spec plan.StepSpec, behind time.Duration, host0, host1 hostSample) {
	merged := func(get func(*openStripe) *hdr.Histogram) *hdr.Histogram {
		h := hdr.New(1, o.rec.highest, 3)
		for i := range o.s {
			o.s[i].mu.Lock()
			h.Merge(get(&o.s[i]))
			o.s[i].mu.Unlock()
		}
		return h
	}
	st := &results.OpenLoopStats{Arrivals: spec.Arrivals, MaxInFlight: spec.Concurrency, Offered: o.offered.Load(), Dropped: o.dropped.Load(),
		NotIssued: o.notIssued.Load(), InFlightMax: int(o.inFlightMax.Load()), Corrected: step.Latency,
		AchievedPerS: step.CallsPerS, BehindAtCloseMs: float64(behind) / float64(time.Millisecond)}
	hw := host1.since(host0)
	st.ClientBusy, st.SchedLatencyP99Ms, st.RunQueueWaitPct, st.RunQueueMeanWaitMs = hw.busy, hw.schedP99Ms, hw.runQueuePct, hw.runQueueMeanWaitMs
	if secs := window.Seconds(); secs > 0 {
		st.OfferedPerS = float64(st.Offered) / secs
		st.InFlightMean = float64(o.inFlightNS.Load()) / float64(window)
	}
	if u := merged(func(s *openStripe) *hdr.Histogram { return s.uncorr }); u.TotalCount() > 0 {
		l := results.NewLatencySummary(u)
		st.Uncorrected = &l
	}
	st.StartLag = quantiles(merged(func(s *openStripe) *hdr.Histogram { return s.lag }))
	st.PoolWait = quantiles(merged(func(s *openStripe) *hdr.Histogram { return s.wait }))
	st.Service = quantiles(merged(func(s *openStripe) *hdr.Histogram { return s.serv }))
	st.LatencyTrend = o.trend(window)
	if why := clientBehind(st); why != "" {
		st.ClientBehind = true
		step.Warnings = append(step.Warnings, why)
	}
	step.Open = st
}

// trend is the mean corrected latency (ms) of the calls due in each tenth
// of a window that lasted window: the fine parts it covered, folded into
// tenths (all of them for a window of the planned length); nil for a
// tenth in which no call was due.
func (o *openRecorder) trend(window time.Duration) []*float64 {
	out := make([]*float64, trendBuckets)
	covered := trendFine
	if o.window > 0 && window < o.window {
		covered = max(1, int((window*trendFine+o.window-1)/o.window))
	}
	var us, n [trendBuckets]int64
	for f := range covered {
		b := f * trendBuckets / covered
		us[b] += o.trendUS[f].Load()
		n[b] += o.trendN[f].Load()
	}
	for b := range out {
		if n[b] > 0 {
			out[b] = new(float64(us[b]) / float64(n[b]) / 1000)
		}
	}
	return out
}

func quantiles(h *hdr.Histogram) results.Quantiles {
	if h.TotalCount() == 0 {
		return results.Quantiles{}
	}
	return results.Quantiles{Mean: h.Mean() / 1000, P50: float64(h.ValueAtQuantile(50)) / 1000, P99: float64(h.ValueAtQuantile(99)) / 1000, Max: float64(h.Max()) / 1000}
}

// Thresholds of clientBehind.
const (
	// lagFloor: start lags below this are the scheduler's ordinary
	// jitter on a loaded host, whatever the latency.
	lagFloor = time.Millisecond
	// lagShare: a p99 start lag of at least this share of the corrected
	// p99 is a large part of the latency that the target did not cause.
	lagShare = 0.5
	// behindFloor: a schedule this far behind at the close had stopped
	// keeping up.
	behindFloor = 10 * time.Millisecond
	// busyShare: a client whose cores were busy this share of the window
	// had no time to spare; its own work paced the calls.
	busyShare = 0.9
	// schedShare: goroutines that waited to run, at p99, this share of
	// the typical send-to-reply time held connections idle long enough to
	// slow the calls down: the client's scheduling, not the server.
	schedShare = 0.5
	// runQueueShare: our threads waited in the kernel's run queue at
	// least this share of the time they were runnable, so other processes
	// held the cores; with start lags past lagFloor it set the schedule
	// back. Measured on the 2-core VM in open-loop steps at 2,000–6,000/s:
	// 39–44% quiet, 63–72% beside two busy loops (whose start lag p99 was
	// 4–28 ms, against 1.2–1.5 ms quiet). Go's scheduler numbers stay low
	// there (p99 0.4 ms): a thread that holds a P waits for the OS
	// unseen by the runtime.
	runQueueShare = 60.0
)

// clientBehind says, with its numbers, when the load host rather than the
// target set part of an open-loop step's latency: arrivals it never
// issued, a schedule far behind at the close, or start lags that are a
// large part of the corrected p99. "" when it kept up.
func clientBehind(st *results.OpenLoopStats) string {
	ms := float64(time.Millisecond)
	switch {
	case st.NotIssued > 0:
		return fmt.Sprintf("the client fell behind its arrival schedule: %d of %d arrivals due in the window were never issued; the load host, not the target, limited this step",
			st.NotIssued, st.Offered)
	case st.BehindAtCloseMs*ms >= float64(behindFloor):
		return fmt.Sprintf("the client fell behind its arrival schedule: %.0f ms behind when the window closed; the load host, not the target, set part of this step's latency",
			st.BehindAtCloseMs)
	case st.ClientBusy != nil && *st.ClientBusy >= busyShare:
		why := fmt.Sprintf("the client's cores were %.0f%% busy over the window", 100**st.ClientBusy)
		if st.SchedLatencyP99Ms != nil {
			why += fmt.Sprintf(" (runnable goroutines waited up to %.2f ms at p99)", *st.SchedLatencyP99Ms)
		}
		return why + "; the load host, not the target, limited this step"
	case st.SchedLatencyP99Ms != nil && st.Uncorrected != nil && *st.SchedLatencyP99Ms*ms >= float64(lagFloor) &&
		*st.SchedLatencyP99Ms >= schedShare*st.Uncorrected.P50:
		return fmt.Sprintf("the client's goroutines waited %.2f ms to run at p99, as long as half the server's typical %.2f ms reply: the load host, not the target, set part of this step's numbers",
			*st.SchedLatencyP99Ms, st.Uncorrected.P50)
	case st.RunQueueWaitPct != nil && *st.RunQueueWaitPct >= runQueueShare && st.StartLag.P99*ms >= float64(lagFloor):
		why := fmt.Sprintf("the client's threads waited for a CPU %.0f%% of the time they were runnable", *st.RunQueueWaitPct)
		if st.RunQueueMeanWaitMs != nil {
			why += fmt.Sprintf(" (%.2f ms each time on average)", *st.RunQueueMeanWaitMs)
		}
		return why + fmt.Sprintf(" and started calls up to %.2f ms late (p99): other processes held the load host's cores, and set part of this step's latency", st.StartLag.P99)
	case st.StartLag.P99*ms >= float64(lagFloor) && st.StartLag.P99 >= lagShare*st.Corrected.P99:
		return fmt.Sprintf("the client started calls late: start lag p99 %.2f ms is %.0f%% of the corrected p99 %.2f ms; the load host, not the target, set part of this step's latency",
			st.StartLag.P99, 100*st.StartLag.P99/max(st.Corrected.P99, 1e-9), st.Corrected.P99)
	}
	return ""
}
