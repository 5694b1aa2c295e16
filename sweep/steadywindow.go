package sweep

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/poolsweep/poolsweep/analysis/steady"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// A step's warm-up and measured window, ended from the data when the plan
// says auto (the rules are analysis/steady's), or after the
// fixed lengths as before. Either way the calls completed are kept in
// base batches of plan.AutoBatch, so that every window carries its own
// batch-means interval.

// warmupOutcome is how a warm-up ended.
type warmupOutcome struct {
	auto       bool
	end        steady.End
	truncation time.Duration // MSER-5's point; meaningful when end is EndSettled
	elapsed    time.Duration
	rates      []float64 // the base batches' rates an auto warm-up read
}

// windowOutcome is how a window ended, with its interval.
type windowOutcome struct {
	auto  bool
	end   steady.End
	iv    steady.Interval // the calls' (closed loop: with batches of minSize)
	rates []float64       // the base batches' rates
	start time.Duration   // after the warm-up began
	// projected is the half-width projected at the maximum, and reason
	// the words, of a window ended as out of reach (steadyreach.go).
	projected float64
	reason    string
	// The closed loop's operations: their own batch series and its
	// interval (the one ops/s is given), the mean call time that set the
	// shortest batch (minSize base batches), and why the ops have no
	// interval (noOpsInterval) when they have none.
	ops           steady.Interval
	hasOps        bool
	callS         float64
	minSize       int
	noOpsInterval string
}

// warmUp runs the step's warm-up: a fixed length as before, or until
// MSER-5 finds the end of the transient in the rate batches (after the
// minimum; at the maximum, unsettled). False when ctx ended first. In
// agent mode a fixed warm-up ends at its length after the agreed start.
func (r *runner) warmUp(ctx context.Context, spec plan.StepSpec, agreed time.Time, rec *recorder, pool *poolRecorder) (warmupOutcome, bool) {
	start := time.Now()
	a := r.Auto
	if a == nil || !a.Warmup {
		ok := r.phase(ctx, spec, PhaseWarmup, r.fixedWarmup(agreed), rec, pool)
		return warmupOutcome{end: steady.EndWarmFixed, elapsed: time.Since(start)}, ok
	}
	rule := warmupRule(a)
	out := warmupOutcome{auto: true, end: steady.EndMaxWarmup}
	ok := r.batched(ctx, spec, PhaseWarmup, seconds(a.MaxWarmupS), rec, pool, func(xs []float64, _ int64) bool {
		return out.decide(rule, xs)
	})
	out.elapsed = time.Since(start)
	return out, ok
}

// measureWindow runs the measured window: a fixed length as before, or
// until the ops' throughput half-width is within the precision, with
// batches of several call times (after the minimum duration and calls;
// at the maximum whatever the precision). False when ctx ended first.
func (r *runner) measureWindow(ctx context.Context, spec plan.StepSpec, rec *recorder, pool *poolRecorder) (windowOutcome, bool) {
	a := r.Auto
	var last *series
	if a == nil || !a.Window {
		ok := r.batchedSeries(ctx, spec, PhaseMeasure, r.Duration, rec, pool, func(s *series) bool {
			last = s
			return false
		})
		out := windowOutcome{end: steady.EndFixed}
		out.closeOps(last, plan.AutoConfidence, nil)
		return out, ok
	}
	rule := windowRule(a)
	out := windowOutcome{auto: true, end: steady.EndMax}
	ok := r.batchedSeries(ctx, spec, PhaseMeasure, seconds(a.MaxDurationS), rec, pool, func(s *series) bool {
		last = s
		rule.MinBatchSize = s.minBatchSize()
		return out.decide(rule, s.ops, s.n)
	})
	if out.end == steady.EndOutOfReach {
		out.noteOutOfReach(rule, "throughput")
	}
	out.closeOps(last, a.Confidence, &rule)
	return out, ok
}

// closeOps sets the window's intervals from its last series s: the ops'
// (decide's, unless the window ran to its end) and the calls', both with
// batches of at least CallTimesPerBatch call times, and says why the ops
// have none when they have none. rule is the auto window's (nil: fixed).
func (o *windowOutcome) closeOps(s *series, confidence float64, rule *steady.WindowRule) {
	if s == nil {
		s = &series{}
	}
	o.hasOps, o.rates = true, s.calls
	o.callS, o.minSize = s.callTime(), s.minBatchSize()
	if rule == nil || o.end == steady.EndMax {
		o.iv = steady.BatchMeansFrom(s.ops, confidence, o.minSize)
	}
	o.ops = o.iv
	o.iv = steady.BatchMeansFrom(s.calls, confidence, o.minSize)
	o.noOpsInterval = noInterval(o.ops, o.callS, len(s.ops))
}

// noInterval says why a window of n base batches, whose mean call was
// callS seconds, gives iv no interval; "" when it gives one.
func noInterval(iv steady.Interval, callS float64, n int) string {
	batchS := plan.AutoBatch.Seconds()
	switch {
	case math.IsInf(callS, 1):
		return "no call ended in the window: there is no call time to size its batches by"
	case !iv.OK:
		return fmt.Sprintf("the window held %d batches of %s (%d call times of %s each); an interval needs %d: a window of at least %s",
			iv.Batches, fmtSeconds(float64(iv.BatchSize)*batchS), steady.CallTimesPerBatch, fmtSeconds(math.Round(callS*1000)/1000), steady.MinBatches,
			fmtSeconds(math.Ceil(float64(steady.MinBatches*iv.BatchSize)*batchS)))
	case !iv.Independent:
		return fmt.Sprintf("its batch means stayed dependent (lag-1 autocorrelation %.2f over %d batches of %s)", iv.Lag1, iv.Batches, fmtSeconds(float64(iv.BatchSize)*batchS))
	}
	return ""
}

// The decisions themselves, over a batch series from any source: this
// client's own batches here, the fleet's (every agent's, summed on the
// shared clock) when the leader of an agent run decides (fleetwindow.go).

// warmupRule is the auto warm-up's rule of the plan a.
func warmupRule(a *results.AutoPlan) steady.WarmupRule {
	return steady.WarmupRule{MinValues: batchesIn(seconds(a.MinWarmupS)), MaxValues: batchesIn(seconds(a.MaxWarmupS))}
}

// windowRule is the auto window's rule of the plan a.
func windowRule(a *results.AutoPlan) steady.WindowRule {
	return steady.WindowRule{Precision: a.PrecisionPct / 100, Confidence: a.Confidence,
		MinValues: batchesIn(seconds(a.MinDurationS)), MaxValues: batchesIn(seconds(a.MaxDurationS)), MinCalls: a.MinCalls}
}

// decide reads the warm-up's batch rates xs so far with rule: true when
// the warm-up ends, with why and MSER-5's truncation point in o.
func (o *warmupOutcome) decide(rule steady.WarmupRule, xs []float64) bool {
	o.rates = xs
	tr, end := rule.Decide(xs)
	if end == steady.EndContinue {
		return false
	}
	o.end, o.truncation = end, time.Duration(tr.Point)*plan.AutoBatch
	return true
}

// decide reads the window's batch rates xs so far, holding calls calls,
// with rule: true when the window ends, with why and its interval in o.
func (o *windowOutcome) decide(rule steady.WindowRule, xs []float64, calls int64) bool {
	iv, end := rule.Decide(xs, calls)
	if end == steady.EndContinue {
		return false
	}
	o.end, o.iv = end, iv
	return true
}

// batched waits until d has passed or done says so, keeping the calls
// completed in each base batch as a rate (calls/s) and reporting progress
// about twice a second; false when ctx ended first. done sees the batches
// so far and the calls in them.
func (r *runner) batched(ctx context.Context, spec plan.StepSpec, name string, d time.Duration, rec *recorder, pool *poolRecorder, done func(xs []float64, calls int64) bool) bool {
	return r.batchedSeries(ctx, spec, name, d, rec, pool, func(s *series) bool { return done(s.calls, s.n) })
}

// series is a phase's base batches so far: the calls' and the ops' rates,
// the calls completed, and the callers that made them.
type series struct {
	calls, ops []float64
	n          int64
	workers    int
}

// callTime is the mean call time, in seconds, over the complete batches.
func (s *series) callTime() float64 {
	var sum float64
	for _, x := range s.calls {
		sum += x
	}
	d := plan.AutoBatch.Seconds()
	return steady.CallTime(s.workers, sum*d, float64(len(s.calls))*d)
}

// minBatchSize is the fewest base batches a batch mean holds: several
// call times; with no call time yet, more than the series holds (no
// interval).
func (s *series) minBatchSize() int {
	if m := steady.MinBatchSize(s.callTime(), plan.AutoBatch.Seconds()); m > 0 {
		return m
	}
	return len(s.ops) + 1
}

// batchedSeries is batched with both series: done sees the calls' and the
// ops' base batches so far.
func (r *runner) batchedSeries(ctx context.Context, spec plan.StepSpec, name string, d time.Duration, rec *recorder, pool *poolRecorder, done func(s *series) bool) bool {
	start := time.Now()
	end := time.NewTimer(d)
	defer end.Stop()
	tick := time.NewTicker(plan.AutoBatch)
	defer tick.Stop()
	first := rec.liveCalls()
	lastN, lastOps := first, rec.liveOps()
	progN, progT := first, start
	bins, opBins := binner{start: start}, binner{start: start}
	for {
		select {
		case <-ctx.Done():
			return false
		case <-end.C:
			return true
		case <-tick.C:
			// The counts and the clock read together: on a busy host the
			// tick's own time can be well before this goroutine runs.
			n, ops, now := rec.liveCalls(), rec.liveOps(), time.Now()
			bins.add(n-lastN, now)
			opBins.add(ops-lastOps, now)
			lastN, lastOps = n, ops
			if done(&series{calls: bins.rates(), ops: opBins.rates(), n: n - first, workers: len(rec.slots)}) {
				return true
			}
			if r.Progress != nil && now.Sub(progT) >= 500*time.Millisecond {
				r.Progress(Progress{Step: spec, Phase: name, Elapsed: now.Sub(start), Total: d, CallsPerS: float64(n-progN) / now.Sub(progT).Seconds(), Open: int(pool.open.Load())})
				progN, progT = n, now
			}
		}
	}
}

// steadyRecord is the step's record of how its warm-up and window ended.
func steadyRecord(w warmupOutcome, win windowOutcome) *results.StepSteady {
	s := &results.StepSteady{WarmupMode: mode(w.auto), WarmupEnd: string(w.end), WindowMode: mode(win.auto), WindowEnd: string(win.end),
		BatchS: plan.AutoBatch.Seconds(), BatchSize: win.iv.BatchSize, Batches: win.iv.Batches, Independent: win.iv.Independent, Confidence: plan.AutoConfidence}
	if w.auto {
		settled := w.end == steady.EndSettled
		s.Settled = &settled
		if settled {
			s.TruncationS = new(w.truncation.Seconds())
		}
	}
	if win.iv.Batches >= 3 {
		s.Lag1 = new(win.iv.Lag1)
	}
	s.SetSeries(w.rates, win.rates, win.start.Seconds())
	if win.end == steady.EndOutOfReach {
		s.ProjectedHalfWidthPct, s.Reason = new(win.projected*100), win.reason
	}
	if win.iv.OK {
		s.MeanPerS, s.HalfWidthPerS = new(win.iv.Mean), new(win.iv.HalfWidth)
		if win.iv.Mean > 0 {
			s.HalfWidthPct = new(win.iv.HalfWidth / win.iv.Mean * 100)
		} else {
			s.MeanPerS, s.HalfWidthPerS = nil, nil // no calls: no interval
		}
	}
	if win.hasOps {
		s.Ops = opsRecord(win.ops)
		if !math.IsInf(win.callS, 0) {
			s.CallTimeS = new(results.Round4(win.callS))
		}
		s.NoInterval = win.noOpsInterval
	}
	return s
}

// opsRecord is the record of the ops' interval iv.
func opsRecord(iv steady.Interval) *results.OpsInterval {
	o := &results.OpsInterval{BatchSize: iv.BatchSize, Batches: iv.Batches, Independent: iv.OK && iv.Independent}
	if iv.OK && iv.Batches >= 3 {
		o.Lag1 = new(iv.Lag1)
	}
	if iv.OK && iv.Mean > 0 {
		o.MeanPerS, o.HalfWidthPerS, o.HalfWidthPct = new(iv.Mean), new(iv.HalfWidth), new(iv.HalfWidth/iv.Mean*100)
	}
	return o
}

// steadyWarnings are what a step says about a warm-up that never settled
// or a window that ended short of its precision.
func steadyWarnings(w warmupOutcome, win windowOutcome, a *results.AutoPlan) []string {
	var out []string
	if w.auto && w.end == steady.EndMaxWarmup {
		out = append(out, "the warm-up never settled within --max-warmup "+fmtSeconds(a.MaxWarmupS)+" (MSER-5 found no end of the transient): the window may hold part of it, and the knee analysis gives this step low confidence")
	}
	if win.end == steady.EndOutOfReach {
		out = append(out, win.reason)
	}
	if win.auto && win.end == steady.EndMax {
		out = append(out, "the window reached --max-duration "+fmtSeconds(a.MaxDurationS)+" before its throughput was known to --precision")
	}
	return out
}

func mode(auto bool) string {
	if auto {
		return results.WindowAuto
	}
	return results.WindowFixed
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func fmtSeconds(s float64) string { return seconds(s).String() }

// batchesIn is how many base batches fit in d.
func batchesIn(d time.Duration) int { return int(d / plan.AutoBatch) }

// binner turns counts read at irregular moments into base batches on
// exact boundaries: the calls of each interval between two reads are
// spread over it evenly and fall into the batches it overlaps, by their
// share of it. A tick the busy host delivered late thus weighs as the time
// it covers, and the batches' mean stays the calls over the time.
type binner struct {
	start time.Time
	last  time.Duration // end of what has been added, since start
	calls []float64     // per batch, the last one possibly partial
}

// add records calls completed between the last add (or start) and now.
func (b *binner) add(calls int64, now time.Time) {
	to := now.Sub(b.start)
	from := b.last
	if to <= from {
		return
	}
	rate := float64(calls) / float64(to-from)
	for t := from; t < to; {
		i := int(t / plan.AutoBatch)
		end := min(to, time.Duration(i+1)*plan.AutoBatch)
		for len(b.calls) <= i {
			b.calls = append(b.calls, 0)
		}
		b.calls[i] += rate * float64(end-t)
		t = end
	}
	b.last = to
}

// rates is the complete batches so far as calls/s.
func (b *binner) rates() []float64 {
	n := int(b.last / plan.AutoBatch)
	out := make([]float64, n)
	for i := range out {
		out[i] = b.calls[i] / plan.AutoBatch.Seconds()
	}
	return out
}
