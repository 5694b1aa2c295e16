package search

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// kneeStage is the knee search's next probe for one series, or, when it
// needs none, its conclusion (note). rep is the final analysis when a
// knee was located, for the pool search that may follow. expect estimates
// the knee search's steps still to come.
//
// The stages, in order: coarse probes; bisection of the bracket between
// the last level measured below the knee and the knee, until they are
// neighbours on the grid; a second trial of the knee and the grid level
// above it; --trials trials on the levels that decide the knee (the knee,
// the levels either side, the peak: what the analysis needs for its
// confidence); the peak's neighbours when the curve falls past it; then
// more trials only while the knee's interval overlaps the level below's.
// With no knee, the top gap is bisected and the top levels repeated
// before the search concludes there is none in the range.
func (p *Planner) kneeStage(s series, h history) (pr *probe, note string, expect int, rep *knee.Report) {
	grid := p.search.Levels
	T := p.repeat
	n := trials(h.match)
	free := func(c int) bool { return n[c] == 0 && !h.tried[c] }
	last := 0 // the level measured last
	if len(h.match) > 0 {
		last = h.match[len(h.match)-1].Concurrency
	}
	expect = max(1, p.kneeFresh()-h.all)
	info := results.SearchInfo{Mode: results.SearchKnee, Probe: h.all + 1}
	want := func(c int, reason, why string) (*probe, string, int, *knee.Report) {
		in := info
		in.Reason, in.Why = reason, why
		return &probe{conc: c, trial: n[c] + 1, info: in}, "", expect, nil
	}

	cs := coarse(grid)
	for j, i := range cs {
		if c := grid[i]; free(c) {
			return want(c, results.ReasonCoarse, fmt.Sprintf("coarse probe %d of %d across %d–%d", j+1, len(cs), grid[0], grid[len(grid)-1]))
		}
	}
	r, ok := s.analyze(h.match, p.opts)
	if !ok {
		return nil, "no step of the knee search could be measured", 0, nil
	}
	k := r.Knee
	info.Confidence = k.Confidence
	ms := levelsOf(n)
	if !k.Found {
		// No knee between sparse probes may only mean the probes are far
		// apart (a rise over four doublings looks like "still rising"):
		// bisect the top gap when the peak is at the top, else the widest
		// gap, before concluding.
		gap := ms
		if len(ms) >= 2 && r.Peak.Concurrency == ms[len(ms)-1] {
			gap = ms[len(ms)-2:] // still rising: only the top gap matters
		}
		if lo, hi, ok := widestGap(grid, gap, free); ok {
			info.Bracket = []int{lo, hi}
			if i, ok := middleFree(grid, indexOf(grid, lo)+1, indexOf(grid, hi)-1, free); ok {
				return want(grid[i], results.ReasonBisect, fmt.Sprintf("no knee yet (%s): bisect %d–%d", k.Statement, lo, hi))
			}
		}
		// One noisy step can fake a last gain: the top two levels get
		// their trials first, and more while their intervals overlap.
		top := ms[max(0, len(ms)-2):]
		if c, ok := fewest(top, n, T, top[len(top)-1], last); ok {
			return want(c, results.ReasonRepeat, fmt.Sprintf("no knee yet (%s); trial %d of %d at the top before concluding", k.Statement, n[c]+1, T))
		}
		if c, other, ok := needsTrial(r, n, p.maxTrials, last); ok && p.intervals() {
			return want(c, results.ReasonRepeat, fmt.Sprintf("no knee yet, but the intervals of %d and %d overlap: trial %d", c, other, n[c]+1))
		}
		return nil, fmt.Sprintf("search: no knee located in %s (the full grid at ×%s: %d)", plural(len(h.match), "step"), trimFloat(p.search.Resolution), p.gridSteps()), 0, nil
	}
	kc := k.Concurrency
	info.Knee = &kc

	// The bracket: the knee is above the last level measured below it.
	iK := indexOf(grid, kc)
	ib := -1
	if j := sort.SearchInts(ms, kc) - 1; j >= 0 {
		ib = indexOf(grid, ms[j])
	}
	lowEdge := kc
	if ib >= 0 {
		lowEdge = grid[ib]
	}
	info.Bracket = []int{lowEdge, kc}
	if i, ok := middleFree(grid, ib+1, iK-1, free); ok {
		why := fmt.Sprintf("the knee is above %d and at most %d: bisect", lowEdge, kc)
		if j, ok := aimedFree(grid, ib, iK, r, free); ok {
			i = j
			why += fmt.Sprintf(" where %d's throughput per worker would reach 95%% of the peak", lowEdge)
		}
		return want(grid[i], results.ReasonBisect, why)
	}
	// A knee that a single trial put here may be noise: a second trial
	// before measuring past it (the rest come with its neighbours', so
	// that one slow spell of the machine does not take all of a level's).
	if n[kc] < min(2, T) {
		return want(kc, results.ReasonRepeat, fmt.Sprintf("the knee at %d rests on 1 trial: a second before measuring past it", kc))
	}
	if iK+1 < len(grid) && free(grid[iK+1]) {
		return want(grid[iK+1], results.ReasonRefine, fmt.Sprintf("the grid level above the knee at %d, which its marginal gain is measured against", kc))
	}

	// The levels that decide the knee, as the analysis counts them: the
	// knee and its neighbours (near), and the peak.
	near := []int{kc}
	if j := sort.SearchInts(ms, kc); j > 0 {
		near = append(near, ms[j-1])
	}
	if j := sort.SearchInts(ms, kc+1); j < len(ms) {
		near = append(near, ms[j])
	}
	slices.Sort(near)
	window := append(slices.Clone(near), r.Peak.Concurrency)
	slices.Sort(window)
	window = slices.Compact(window)
	if c, ok := fewest(window, n, T, kc, last); ok {
		return want(c, results.ReasonRepeat, fmt.Sprintf("the levels that decide the knee (%s) get %d trials each; %d has %d", joinInts(window), T, c, n[c]))
	}

	if c, why, ok := peakProbe(r, grid, free); ok {
		return want(c, results.ReasonPeak, why)
	}

	done := p.kneeNote(r, len(h.match), lowEdge)
	switch {
	case k.Confidence == "high" || k.Confidence == "medium":
		return nil, done, 0, &r
	case len(k.LoadHostLimited) > 0:
		return nil, done + "; more trials would not help: the load host limited the levels that decide it", 0, &r
	case !p.intervals():
		return nil, done + fmt.Sprintf("; with --trials %d the analysis gives no interval (3 or more give one)", p.plan.Trials), 0, &r
	}
	if c, other, ok := needsTrial(r, n, p.maxTrials, last); ok {
		return want(c, results.ReasonRepeat, fmt.Sprintf("the intervals of %d and %d overlap: trial %d", c, other, n[c]+1))
	}
	return nil, done + fmt.Sprintf("; its confidence stayed %s with up to %d trials where the knee and the level below it overlap", k.Confidence, p.maxTrials), 0, &r
}

// needsTrial is the one rule for trials beyond the first that a search
// and a grid with auto windows (Trials) share: the level, with fewer
// than maxTrials trials, whose throughput interval overlaps its
// neighbour's where the knee is decided, and that neighbour. The knee is
// the first level of the plateau: it should stand clear of the measured
// level below it; past it the levels are level by nature, so an overlap
// there says nothing more trials would settle. With no knee, the top two
// levels: a last gain that is noise hides a knee. A knee of high or
// medium confidence, or one the load host limited (more trials of a
// starved level would not help), wants none. n is the measured trials of
// each level; last, the level measured last (not repeated back to back
// on a tie).
func needsTrial(r knee.Report, n map[int]int, maxTrials, last int) (c, other int, ok bool) {
	ms := levelsOf(n)
	if len(ms) < 2 {
		return 0, 0, false
	}
	k := r.Knee
	if !k.Found {
		top := ms[len(ms)-2:]
		return overlapping(top, r.Levels, n, maxTrials, top[1], last)
	}
	if k.Confidence == "high" || k.Confidence == "medium" || len(k.LoadHostLimited) > 0 {
		return 0, 0, false
	}
	j := sort.SearchInts(ms, k.Concurrency)
	if j == 0 || j >= len(ms) || ms[j] != k.Concurrency {
		return 0, 0, false
	}
	return overlapping([]int{ms[j-1], k.Concurrency}, r.Levels, n, maxTrials, k.Concurrency, last)
}

// widestGap is the widest stretch of the grid between two measured
// levels with a free level inside, the top one on a tie.
func widestGap(grid, ms []int, free func(int) bool) (lo, hi int, ok bool) {
	best := 1
	for j := 1; j < len(ms); j++ {
		a, b := indexOf(grid, ms[j-1]), indexOf(grid, ms[j])
		if b-a >= best && b-a > 1 {
			if _, found := middleFree(grid, a+1, b-1, free); found {
				best, lo, hi, ok = b-a, ms[j-1], ms[j], true
			}
		}
	}
	return lo, hi, ok
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// kneeNote is what the search did to locate the knee, in one line: the
// knee, the steps it took against the full grid's, and the search's
// bracket (the measured grid level below the knee, with none free
// between). The verdict itself — confidence, range, peak — is the
// analysis's, which every reader of the run prints (analyze, the sweep's
// summary, the report); the note does not say it a second time, so that
// the two can never disagree.
func (p *Planner) kneeNote(r knee.Report, steps, below int) string {
	k := r.Knee
	bracket := ""
	if below < k.Concurrency {
		bracket = fmt.Sprintf(", bracketed by its probes between %d and %d", below, k.Concurrency)
	}
	return fmt.Sprintf("search: knee at concurrency %d located in %s (the full grid at ×%s: %d)%s",
		k.Concurrency, plural(steps, "step"), trimFloat(p.search.Resolution), p.gridSteps(), bracket)
}

// peakProbe locates the peak when the analysis says throughput falls past
// it (retrograde, beyond the noise; after the peak has its trials): the grid levels beside the measured
// peak, and the one nearest the USL fit's peak when that fit puts it
// inside the range. A USL peak alone is no evidence: the law fits a flat
// plateau with a finite peak too.
func peakProbe(r knee.Report, grid []int, free func(int) bool) (int, string, bool) {
	if r.Retrograde == nil {
		return 0, "", false
	}
	for _, l := range r.Levels {
		if l.Concurrency == r.Peak.Concurrency && l.Trials < 2 {
			return 0, "", false // one trial cannot tell a fall from noise
		}
	}
	ip := indexOf(grid, r.Peak.Concurrency)
	for _, i := range []int{ip - 1, ip + 1} {
		if i >= 0 && i < len(grid) && free(grid[i]) {
			return grid[i], fmt.Sprintf("throughput falls %.0f%% past the peak at %d: the grid level beside it", r.Retrograde.DropPct, r.Peak.Concurrency), true
		}
	}
	u := r.Methods.USL
	if u.Accepted() && u.NStar != nil && *u.NStar >= float64(grid[0]) && *u.NStar <= float64(grid[len(grid)-1]) {
		i := indexOf(grid, int(math.Round(*u.NStar)))
		for _, j := range []int{i - 1, i} {
			if j >= 0 && j < len(grid) && free(grid[j]) && dist(grid[j], int(math.Round(*u.NStar))) < 0.5 {
				return grid[j], fmt.Sprintf("throughput falls past the peak; the USL fit puts it at %.0f", *u.NStar), true
			}
		}
	}
	return 0, "", false
}

// aimedFree aims a bisection of the bracket (grid[lo], grid[hi]] where
// the knee's plateau level would be if throughput grew in proportion to
// concurrency from grid[lo], as it does in a closed loop below
// saturation: the level reaching 95% of the peak. Contention makes the
// curve bend earlier, so the aim falls short and the next one starts
// closer; the pick is kept inside the middle half of a bracket wider
// than three steps, so the bracket shrinks at least as fast as by
// quarters.
func aimedFree(grid []int, lo, hi int, r knee.Report, free func(int) bool) (int, bool) {
	if lo < 0 {
		return 0, false
	}
	var xlo float64
	for _, l := range r.Levels {
		if l.Concurrency == grid[lo] {
			xlo = l.QPS
		}
	}
	if xlo <= 0 || r.Peak.QPS <= 0 {
		return 0, false
	}
	aim := float64(grid[lo]) * 0.95 * r.Peak.QPS / xlo
	from, to := lo+1, hi-1
	if w := hi - lo; w > 3 {
		from, to = lo+w/4, hi-w/4
	}
	best, ok := 0, false
	for i := from; i <= to; i++ {
		if free(grid[i]) && (!ok || math.Abs(math.Log2(float64(grid[i])/aim)) < math.Abs(math.Log2(float64(grid[best])/aim))) {
			best, ok = i, true
		}
	}
	return best, ok
}

// levelsOf is the measured levels, ascending.
func levelsOf(n map[int]int) []int {
	var out []int
	for c, t := range n {
		if t > 0 {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// middleFree is the free grid index in [lo, hi] nearest their middle
// (the lower one on a tie).
func middleFree(grid []int, lo, hi int, free func(int) bool) (int, bool) {
	best, ok := 0, false
	mid := float64(lo+hi) / 2
	for i := max(lo, 0); i <= hi && i < len(grid); i++ {
		if free(grid[i]) && (!ok || math.Abs(float64(i)-mid) < math.Abs(float64(best)-mid)) {
			best, ok = i, true
		}
	}
	return best, ok
}

// fewest is the level of window with the fewest trials below want; on a
// tie, not the level measured last (trials of one level back to back
// would share one slow spell of the machine), then the nearest the knee.
func fewest(window []int, n map[int]int, want, kneeC, last int) (int, bool) {
	best, ok := 0, false
	better := func(c int) bool {
		switch {
		case n[c] != n[best]:
			return n[c] < n[best]
		case (c == last) != (best == last):
			return best == last
		}
		return dist(c, kneeC) < dist(best, kneeC)
	}
	for _, c := range window {
		if n[c] < want && (!ok || better(c)) {
			best, ok = c, true
		}
	}
	return best, ok
}

// overlapping is a level of window whose interval overlaps its
// neighbour's and that can take another trial: the one with fewer trials,
// nearest the knee.
func overlapping(window []int, levels []knee.Level, n map[int]int, maxTrials, kneeC, last int) (c, other int, ok bool) {
	by := map[int]knee.Level{}
	for _, l := range levels {
		by[l.Concurrency] = l
	}
	var cands []int
	partner := map[int]int{}
	for i := 0; i+1 < len(window); i++ {
		a, b := by[window[i]], by[window[i+1]]
		if a.QPSHigh >= b.QPSLow && b.QPSHigh >= a.QPSLow {
			for _, x := range [][2]int{{a.Concurrency, b.Concurrency}, {b.Concurrency, a.Concurrency}} {
				if n[x[0]] < maxTrials {
					cands = append(cands, x[0])
					if _, seen := partner[x[0]]; !seen {
						partner[x[0]] = x[1]
					}
				}
			}
		}
	}
	if c, ok = fewest(cands, n, maxTrials, kneeC, last); ok {
		return c, partner[c], true
	}
	return 0, 0, false
}

// dist is how far apart two levels are on a log scale.
func dist(a, b int) float64 { return math.Abs(math.Log2(float64(a) / float64(b))) }

// kneeFresh is what a knee search is expected to take: the coarse probes,
// a bisection of the widest gap between them, the level above the knee,
// and --trials on about four levels that decide it.
func (p *Planner) kneeFresh() int {
	cs := coarse(p.search.Levels)
	gap := 1
	for i := 1; i < len(cs); i++ {
		gap = max(gap, cs[i]-cs[i-1])
	}
	extra := 4 * (p.repeat - 1) // the levels that decide the knee, repeated
	if p.repeat == 1 {
		extra = p.maxTrials - 1 // one pair that overlaps, typically
	}
	return len(cs) + int(math.Ceil(math.Log2(float64(gap)))) + 1 + extra
}

// trimFloat prints a resolution briefly: 1.41, 2.
func trimFloat(v float64) string { return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64) }
