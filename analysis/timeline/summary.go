// Package timeline turns a profile step's timeline into its summary: the
// time its pool took to fill, the worst interval's p99, the time until
// throughput and p99 were back within the steady state's interval, the
// churn, and what the pool still held after the load fell. It is pure: a
// function of the step record's timeline and phases, computed once as the
// step is recorded, in a few passes over the intervals.
package timeline

import (
	"fmt"
	"math"

	"github.com/poolsweep/poolsweep/analysis/steady"
	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/results"
)

// Need is what the load could ask of the pool at most, the cap of the
// fill target: maxPoolSize × clients × hosts connections (a zero
// MaxPoolSize: no cap; zero Clients or Hosts count as one).
type Need struct {
	MaxPoolSize int
	Clients     int
	Hosts       int
}

// steadyTolerance widens the steady state's interval, as a share of its
// value on each side, for time to steady: a 1-s rolling mean of interval
// values wanders a little beyond the interval of the batch means' mean
// even once settled, and a band as narrow as that interval would call a
// settled step unsettled.
const steadyTolerance = 0.10

// rollingS is the span of the rolling means that time to steady smooths
// the intervals with.
const rollingS = 1.0

// heldDelaysS are the delays after the load last fell at which the
// summary reports the connections still open (those the timeline covers).
var heldDelaysS = []float64{1, 5, 10, 30}

// Summarize computes ps's summary from its timeline and phases.
//
// The figures, each absent (nil) with a note where the step gives no
// evidence for it:
//   - A rise is the start of a loaded phase whose starting rate is above
//     the rate the previous phase ended at (or which follows an idle spell,
//     or opens the profile). Each rise starts a burst that lasts until the
//     next rise or the timeline's end.
//   - The steady part of a burst is the second half of its last loaded
//     phase of constant rate; the step's is its last burst's. SteadyPerS
//     and SteadyP99MS are the batch means (analysis/steady) of the
//     intervals' calls/s and p99 there, with their 95 % interval. A ramp,
//     sine or trace phase has no steady part.
//   - The fill target is the mean of connections in use over the steady
//     part, rounded up, at least 1, capped by need. TimeToFillS is from
//     the interval of the first rise until the end of the first interval
//     whose open connections reach that target (0 when the pool held it
//     already as the load rose).
//   - WorstP99MS is the highest interval p99 of the step;
//     FirstSecondP99MS the highest interval p99 in the first second after
//     the first rise: the intervals keep their p50 and p99 only, so the
//     second's own p99 is bounded above by the worst of them, and that
//     bound is what is reported.
//   - TimeToSteadyS is from the rise of the step's last burst until the
//     start of the first trailing 1-s window after which every window up
//     to its steady phase's end holds a mean of calls/s no lower, and of
//     interval p99 no higher, than the steady band (where one window of
//     the steady state falls, 95 %) widened by steadyTolerance of its
//     value.
//   - The churn sums every interval's created, closed and clears.
//   - Held is the connections open heldDelaysS after the end of the last
//     loaded phase, for the delays the timeline covers.
//   - Bursts repeat the figures for each rise, each against its own steady
//     part (a burst without one has no fill or steady time).
func Summarize(ps *results.ProfileStats, need Need) results.ProfileSummary {
	var s results.ProfileSummary
	ivs := ps.Timeline.Intervals
	for _, iv := range ivs {
		s.ConnectionsCreated += iv.Created
		s.ConnectionsClosed += iv.Closed
		s.PoolClears += iv.Clears
	}
	t := view{ivs: ivs, dt: ps.Timeline.IntervalS}
	if len(ivs) == 0 || !(t.dt > 0) {
		s.Notes = append(s.Notes, "the timeline holds no intervals: only the churn is summarized")
		return s
	}
	s.WorstP99MS = t.worstP99(0, len(ivs))
	if s.WorstP99MS == nil {
		s.Notes = append(s.Notes, "no interval recorded a p99: no call completed")
	}
	rs := rises(ps.Phases)
	if len(rs) == 0 {
		s.Notes = append(s.Notes, "the profile's phases hold no rise of the load: no fill, first second or steady state")
		return s
	}
	var last part
	for k, r := range rs {
		end := len(ivs)
		if k+1 < len(rs) {
			end = min(t.index(ps.Phases[rs[k+1]].StartS), len(ivs))
		}
		p := t.part(ps.Phases, r, end, need)
		s.Bursts = append(s.Bursts, p.burst)
		for _, n := range p.notes {
			s.Notes = append(s.Notes, fmt.Sprintf("burst %d at %s s: %s", k+1, num(p.burst.StartS), n))
		}
		last = p
	}
	first := s.Bursts[0]
	s.FirstSecondP99MS = first.FirstSecondP99MS
	s.SteadyPerS, s.SteadyP99MS, s.TimeToSteadyS = last.perS, last.p99, last.burst.TimeToSteadyS
	if last.target > 0 {
		s.TimeToFillS = t.fill(first.StartS, last.target, len(ivs))
		if s.TimeToFillS == nil {
			s.Notes = append(s.Notes, fmt.Sprintf("open connections never reached the %d the steady part held in use", last.target))
		}
	} else {
		s.Notes = append(s.Notes, "no steady part: no fill target")
	}
	s.Held = t.held(ps.Phases)
	if len(s.Held) == 0 {
		s.Notes = append(s.Notes, "the timeline ends before 1 s after the load last fell: no connections held after it")
	}
	return s
}

// view is a timeline with its interval length.
type view struct {
	ivs []results.TimelineInterval
	dt  float64
}

// index is the interval holding time t (seconds on the timeline's clock),
// not clamped to the timeline.
func (t view) index(at float64) int {
	return int(math.Floor(at/t.dt + 1e-9))
}

// openBefore is the connections open as interval i began.
func (t view) openBefore(i int) int {
	if i > 0 {
		return t.ivs[i-1].Open
	}
	return max(0, t.ivs[0].Open-int(t.ivs[0].Created)+int(t.ivs[0].Closed))
}

// worstP99 is the highest p99 of intervals [from, to); nil when none has
// one.
func (t view) worstP99(from, to int) *float64 {
	var w *float64
	for i := max(from, 0); i < min(to, len(t.ivs)); i++ {
		if p := t.ivs[i].P99MS; p != nil && (w == nil || *p > *w) {
			w = ptr(*p)
		}
	}
	return w
}

// fill is the time from at until the end of the first interval before
// end whose open connections reach target; 0 when they did as at's
// interval began; nil when none did.
func (t view) fill(at float64, target, end int) *float64 {
	i0 := t.index(at)
	if i0 < 0 || i0 >= len(t.ivs) {
		return nil
	}
	if t.openBefore(i0) >= target {
		return ptr(0)
	}
	for i := i0; i < min(end, len(t.ivs)); i++ {
		if t.ivs[i].Open >= target {
			return ptr(round(float64(i+1)*t.dt - at))
		}
	}
	return nil
}

// part is one burst's figures and what the step's summary takes from
// them.
type part struct {
	burst  results.BurstSummary
	perS   *results.Interval
	p99    *results.Interval
	target int // the fill target; 0 without a steady part
	notes  []string
}

// part summarizes the burst that rises at phases[r] and lasts until
// interval end.
func (t view) part(phases []results.ProfilePhase, r, end int, need Need) part {
	at := phases[r].StartS
	i0 := t.index(at)
	p := part{burst: results.BurstSummary{StartS: at}}
	if i0 < 0 || i0 >= len(t.ivs) || end <= i0 {
		p.notes = append(p.notes, "the timeline does not cover it")
		return p
	}
	p.burst.OpenAtStart = t.openBefore(i0)
	for i := i0; i < end; i++ {
		p.burst.Created += t.ivs[i].Created
	}
	p.burst.WorstP99MS = t.worstP99(i0, end)
	p.burst.FirstSecondP99MS = t.worstP99(i0, t.index(at+1))
	if p.burst.FirstSecondP99MS == nil {
		p.notes = append(p.notes, "no call completed in its first second")
	}
	settled := -1
	for j := r; j < len(phases) && t.index(phases[j].StartS) < end; j++ {
		if loaded(phases[j]) {
			settled = j
		}
	}
	if settled < 0 || !constant(phases[settled]) {
		p.notes = append(p.notes, "its last loaded phase is not of constant rate: no steady part, fill or time to steady")
		return p
	}
	ph := phases[settled]
	// The intervals that start in the phase's second half and end by its
	// end.
	from := int(math.Ceil((ph.StartS+ph.EndS)/2/t.dt - 1e-9))
	to := min(t.index(ph.EndS), end, len(t.ivs))
	st := t.steady(from, to)
	p.perS, p.p99 = st.perS, st.p99
	if p.perS == nil || p.p99 == nil {
		p.notes = append(p.notes, "the second half of its last loaded phase "+st.short())
		return p
	}
	p.target = fillTarget(st.inUse, need)
	p.burst.TimeToFillS = t.fill(at, p.target, end)
	if p.burst.TimeToFillS == nil {
		p.notes = append(p.notes, fmt.Sprintf("open connections never reached the %d its steady part held in use", p.target))
	}
	p.burst.TimeToSteadyS = t.toSteady(at, min(t.index(ph.EndS), end, len(t.ivs)), st.perSBand, st.p99Band)
	if p.burst.TimeToSteadyS == nil {
		p.notes = append(p.notes, "throughput or p99 was still outside the steady interval as its last loaded phase ended")
	}
	return p
}

// fillTarget is what a pool fills to: the mean of a steady part's
// connections in use, rounded up, at least 1, capped by need.
func fillTarget(inUse []float64, need Need) int {
	n := max(1, int(math.Ceil(stats.Mean(inUse)-1e-9)))
	if need.MaxPoolSize > 0 {
		n = min(n, need.MaxPoolSize*max(need.Clients, 1)*max(need.Hosts, 1))
	}
	return n
}

// toSteady is the time from at until the start of the first trailing
// 1-s window (of the intervals from at to end) after which no window's
// mean of calls/s lies below, or of p99 above, the widened steady bands
// (where a window of the steady state falls: batchInterval); 0
// when none does; nil when the last one does (it never settled within the
// phase). A window starts no earlier than at: the first ones are shorter.
func (t view) toSteady(at float64, end int, perS, p99 results.Interval) *float64 {
	i0 := t.index(at)
	k := max(1, int(math.Round(rollingS/t.dt)))
	// A window is out when it is worse than the steady state: fewer
	// calls/s, or a higher p99. One better than it (a quieter spell of a
	// noisy host) is not a load still recovering.
	w := func(iv results.Interval) float64 { return steadyTolerance * math.Abs(iv.Value) }
	lastOut := -1
	for i := i0; i < end; i++ {
		var calls float64
		var p99Sum float64
		var p99N int
		for j := max(i0, i-k+1); j <= i; j++ {
			calls += float64(t.ivs[j].Calls)
			if p := t.ivs[j].P99MS; p != nil {
				p99Sum += *p
				p99N++
			}
		}
		n := float64(i - max(i0, i-k+1) + 1)
		if calls/n/t.dt < perS.Low-w(perS) || p99N == 0 || p99Sum/float64(p99N) > p99.High+w(p99) {
			lastOut = i
		}
	}
	switch {
	case lastOut < 0:
		return ptr(0)
	case lastOut == end-1:
		return nil
	}
	// The windows after lastOut are all within the band; the first of them
	// starts k−1 intervals before it ends (not before the rise).
	first := max(i0, lastOut+2-k)
	return ptr(round(max(0, float64(first)*t.dt-at)))
}

// steadyState is a steady part's figures: the batch means of its
// intervals' calls/s and p99 with their intervals (nil with too few
// intervals), and its connections in use, interval by interval.
type steadyState struct {
	perS, p99 *results.Interval
	// perSBand and p99Band are where one rolling window's mean of the
	// steady part falls (windowBand), set with perS and p99.
	perSBand, p99Band results.Interval
	inUse             []float64
	nPerS, nP99       int
}

// steady is the steady state of intervals [from, to).
func (t view) steady(from, to int) steadyState {
	var perS, p99s []float64
	var st steadyState
	for i := max(from, 0); i < min(to, len(t.ivs)); i++ {
		iv := t.ivs[i]
		perS = append(perS, float64(iv.Calls)/t.dt)
		st.inUse = append(st.inUse, float64(iv.InUse))
		if iv.P99MS != nil {
			p99s = append(p99s, *iv.P99MS)
		}
	}
	st.perS, st.perSBand = t.batchInterval(perS)
	st.p99, st.p99Band = t.batchInterval(p99s)
	st.nPerS, st.nP99 = len(perS), len(p99s)
	return st
}

// short says why a steady part has no steady state.
func (st steadyState) short() string {
	return fmt.Sprintf("holds %d intervals with calls and %d with a p99: %d of each are needed for a steady state",
		st.nPerS, st.nP99, steady.MinBatches)
}

// held is the connections open heldDelaysS after the last loaded phase
// ended, for the delays the timeline covers.
func (t view) held(phases []results.ProfilePhase) []results.HeldAfter {
	fell := -1.0
	for _, ph := range phases {
		if loaded(ph) {
			fell = ph.EndS
		}
	}
	if fell < 0 {
		return nil
	}
	var out []results.HeldAfter
	for _, d := range heldDelaysS {
		i := int(math.Round((fell+d)/t.dt)) - 1 // the interval ending then
		if i < 0 || i >= len(t.ivs) {
			break
		}
		out = append(out, results.HeldAfter{AfterS: d, Connections: t.ivs[i].Open})
	}
	return out
}

// rises are the indexes of the phases at which the load rises: loaded
// phases that open the profile, follow an idle spell, or start above the
// rate the previous phase ended at.
func rises(phases []results.ProfilePhase) []int {
	var out []int
	prevEnd := 0.0
	for i, ph := range phases {
		start, end := ph.From, ph.To
		if ph.Kind == "sine" {
			start, end = (ph.From+ph.To)/2, (ph.From+ph.To)/2
		}
		if loaded(ph) && (prevEnd == 0 || start > prevEnd) {
			out = append(out, i)
		}
		prevEnd = end
	}
	return out
}

// loaded says the phase asks for calls.
func loaded(ph results.ProfilePhase) bool { return max(ph.From, ph.To) > 0 }

// constant says the phase holds one rate throughout: a steady state can
// settle in it.
func constant(ph results.ProfilePhase) bool {
	return ph.Kind != "sine" && ph.Kind != "trace" && ph.From == ph.To && ph.From > 0
}

// batchInterval is the batch-means mean of xs with its 95 % interval (nil
// with fewer than steady.MinBatches values; its values are rates and
// latencies, never below 0, and so is the interval's low end, which a t
// interval over few spread batches would put below it), and the band where the mean
// of one rolling window (rollingS) of the same steady state falls.
//
// The interval is the mean's: it narrows as the steady part lengthens.
// One window's mean varies as much as the part's batches say: with n
// batches of b intervals whose means have variance v, a mean of k
// intervals has variance about v·b/k, so a new window falls within the
// mean ± q·√(v·b/k + v/n) (the prediction interval, q the t quantile of
// the half-width q·√(v/n)): the half-width × √(1 + n·b/k). Judged
// against the mean's interval instead, a quarter of a steady state's own
// windows fall outside it, and a recovery that must keep every later
// window inside is put off to the phase's end.
func (t view) batchInterval(xs []float64) (*results.Interval, results.Interval) {
	bm := steady.BatchMeans(xs, stats.DefaultConfidence)
	if !bm.OK {
		return nil, results.Interval{}
	}
	k := max(1, math.Round(rollingS/t.dt))
	w := bm.HalfWidth * math.Sqrt(1+float64(bm.Batches*bm.BatchSize)/k)
	return &results.Interval{Value: bm.Mean, Low: max(bm.Mean-bm.HalfWidth, 0), High: bm.Mean + bm.HalfWidth},
		results.Interval{Value: bm.Mean, Low: max(bm.Mean-w, 0), High: bm.Mean + w}
}

// round keeps a time to the microsecond: interval arithmetic leaves
// float noise (0.30000000000000004) that a record should not carry.
func round(s float64) float64 { return math.Round(s*1e6) / 1e6 }

func num(v float64) string { return fmt.Sprintf("%g", round(v)) }

func ptr(v float64) *float64 { return &v }
