package sweep

import (
	"context"
	"fmt"
	"time"

	"github.com/poolsweep/poolsweep/analysis/steady"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// An open-loop step's warm-up and window, ended from the data when the
// plan says auto (the rules are analysis/steady's OpenWarmupRule
// and OpenWindowRule), or after the fixed lengths as before. Beside the
// achieved rate (the calls completed in each base batch, as in the closed
// loop) it keeps the mean corrected latency of those calls, so that a
// window is known when both are, and a target that falls behind is seen
// to do so.

// openWarmupOutcome is how an open-loop warm-up ended.
type openWarmupOutcome struct {
	warmupOutcome
	overload steady.Overload // when it ended overloaded
}

// openWindowOutcome is how an open-loop window ended.
type openWindowOutcome struct {
	windowOutcome
	lat      steady.Interval // the corrected latency's, in ms
	overload steady.Overload
}

// latencyBatches turns the open recorder's live counts into the mean
// corrected latency per base batch (ms), on the same boundaries as
// batched's rates (both start when the phase does).
type latencyBatches struct {
	o                *openRecorder
	calls, lat       binner
	lastCalls, lastL int64
}

func newLatencyBatches(o *openRecorder) *latencyBatches {
	now := time.Now()
	return &latencyBatches{o: o, calls: binner{start: now}, lat: binner{start: now}, lastCalls: o.rec.liveCalls(), lastL: o.liveLatNS.Load()}
}

// read takes the counts now and returns the batches' mean latencies so far.
func (b *latencyBatches) read() []float64 {
	n, l, now := b.o.rec.liveCalls(), b.o.liveLatNS.Load(), time.Now()
	b.calls.add(n-b.lastCalls, now)
	b.lat.add(l-b.lastL, now)
	b.lastCalls, b.lastL = n, l
	ms := steady.MeanPerBatch(b.lat.rates(), b.calls.rates())
	for i := range ms {
		ms[i] /= float64(time.Millisecond)
	}
	return ms
}

// openWarmUp runs an open-loop step's warm-up: a fixed length as before,
// or until MSER-5 finds both series settled, or the target behind (after
// the minimum; at the maximum, unsettled). False when ctx ended first.
func (r *runner) openWarmUp(ctx context.Context, spec plan.StepSpec, orec *openRecorder, pool *poolRecorder) (openWarmupOutcome, bool) {
	start := time.Now()
	a := r.Auto
	if a == nil || !a.Warmup {
		ok := r.phase(ctx, spec, PhaseWarmup, r.Warmup, orec.rec, pool)
		return openWarmupOutcome{warmupOutcome: warmupOutcome{end: steady.EndWarmFixed, elapsed: time.Since(start)}}, ok
	}
	rule := steady.OpenWarmupRule{WarmupRule: steady.WarmupRule{MinValues: batchesIn(seconds(a.MinWarmupS)), MaxValues: batchesIn(seconds(a.MaxWarmupS))},
		OfferedPerS: float64(spec.Rate), BatchS: plan.AutoBatch.Seconds(), Confidence: a.Confidence}
	out := openWarmupOutcome{warmupOutcome: warmupOutcome{auto: true, end: steady.EndMaxWarmup}}
	lat := newLatencyBatches(orec)
	ok := r.batched(ctx, spec, PhaseWarmup, seconds(a.MaxWarmupS), orec.rec, pool, func(xs []float64, _ int64) bool {
		out.rates = xs
		tr, ov, end := rule.Decide(xs, lat.read())
		if end == steady.EndContinue {
			return false
		}
		out.end, out.truncation, out.overload = end, time.Duration(tr.Point)*plan.AutoBatch, ov
		return true
	})
	out.elapsed = time.Since(start)
	return out, ok
}

// openMeasureWindow runs an open-loop step's window: a fixed length as
// before, or until the achieved rate's and the corrected latency's
// half-widths are within the precision, or either is out of reach, or the
// target is behind (after the minimum duration and calls; at the minimum
// when the warm-up found it behind; at the maximum whatever the
// precision). False when ctx ended first.
func (r *runner) openMeasureWindow(ctx context.Context, spec plan.StepSpec, orec *openRecorder, pool *poolRecorder, warm openWarmupOutcome) (openWindowOutcome, bool) {
	a := r.Auto
	var xs, ys []float64
	lat := newLatencyBatches(orec)
	if a == nil || !a.Window {
		ok := r.batched(ctx, spec, PhaseMeasure, r.Duration, orec.rec, pool, func(b []float64, _ int64) bool {
			xs, ys = b, lat.read()
			return false
		})
		return openWindowOutcome{windowOutcome: windowOutcome{end: steady.EndFixed, iv: steady.BatchMeans(xs, plan.AutoConfidence), rates: xs},
			lat: steady.BatchMeans(ys, plan.AutoConfidence)}, ok
	}
	rule := steady.OpenWindowRule{WindowRule: steady.WindowRule{Precision: a.PrecisionPct / 100, Confidence: a.Confidence,
		MinValues: batchesIn(seconds(a.MinDurationS)), MaxValues: batchesIn(seconds(a.MaxDurationS)), MinCalls: a.MinCalls},
		OfferedPerS: float64(spec.Rate), BatchS: plan.AutoBatch.Seconds(), WarmupOverloaded: warm.end == steady.EndOverloaded}
	out := openWindowOutcome{windowOutcome: windowOutcome{auto: true, end: steady.EndMax}}
	ok := r.batched(ctx, spec, PhaseMeasure, seconds(a.MaxDurationS), orec.rec, pool, func(b []float64, calls int64) bool {
		xs, ys = b, lat.read()
		d := rule.Decide(xs, ys, calls)
		if d.End == steady.EndContinue {
			return false
		}
		out.end, out.iv, out.lat, out.overload = d.End, d.Rate, d.Latency, d.Overload
		return true
	})
	if out.end == steady.EndMax {
		out.iv, out.lat = steady.BatchMeans(xs, plan.AutoConfidence), steady.BatchMeans(ys, plan.AutoConfidence)
	}
	if out.end == steady.EndOutOfReach {
		// The series that is out of reach: the one whose projection is
		// the wider.
		out.noteOutOfReach(rule.WindowRule, "achieved rate")
		latOut, p := steady.OutOfReach(out.lat, rule.MaxValues, rule.Precision, rule.Confidence)
		if rateOut, _ := steady.OutOfReach(out.iv, rule.MaxValues, rule.Precision, rule.Confidence); latOut && (!rateOut || p > out.projected) {
			out.projected, out.reason = p, reachReason("corrected latency", out.lat, p, rule.WindowRule)
		}
	}
	out.rates = xs
	return out, ok
}

// openSteadyRecord is an open-loop step's steady record: the closed
// loop's, with the corrected latency's interval and, for a target that
// fell behind, why the step never settled.
func openSteadyRecord(w openWarmupOutcome, win openWindowOutcome) *results.StepSteady {
	s := steadyRecord(w.warmupOutcome, win.windowOutcome)
	if iv := win.lat; iv.OK && iv.Mean > 0 {
		s.LatencyMeanMs, s.LatencyHalfWidthMs, s.LatencyHalfWidthPct = new(iv.Mean), new(iv.HalfWidth), new(iv.HalfWidth/iv.Mean*100)
	}
	if why := overloadReason(w, win); why != "" {
		s.Reason = why
	}
	return s
}

// overloadReason says, with the numbers, that the target did not keep up
// and so the step never settles; "" when it kept up.
func overloadReason(w openWarmupOutcome, win openWindowOutcome) string {
	ov, where := w.overload, fmt.Sprintf("in the warm-up's last %s", fmtSeconds((w.elapsed/2).Round(time.Millisecond).Seconds()))
	switch {
	case w.end == steady.EndOverloaded:
	case win.end == steady.EndOverloaded:
		ov, where = win.overload, "in the window"
	default:
		return ""
	}
	return fmt.Sprintf("overloaded: the target did not keep up with the offered %.0f calls/s (%.0f achieved %s, the corrected latency rising %.0f ms a second); such a step never settles, so it ended as overloaded rather than at the maxima",
		ov.OfferedPerS, ov.AchievedPerS, where, ov.LatencySlope)
}

// openSteadyWarnings are the closed loop's, and the overload's.
func openSteadyWarnings(w openWarmupOutcome, win openWindowOutcome, a *results.AutoPlan) []string {
	out := steadyWarnings(w.warmupOutcome, win.windowOutcome, a)
	if why := overloadReason(w, win); why != "" {
		out = append(out, why)
	}
	return out
}
