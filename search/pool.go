package search

import (
	"fmt"
	"math"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// poolStage is the pool search's next probe, or its conclusion. At the
// concurrency the knee analysis recommends (the knee, or the SLO level
// below it), it looks for the smallest maxPoolSize whose median
// throughput is within the plateau tolerance of the best measured there
// and whose p99 meets the SLO: halving the pool (one step down on log₂ P)
// until a size fails, then bisecting on the grid between the last good
// and the first bad size. The answer and the bad size below it get
// --trials trials.
func (p *Planner) poolStage(s series, h history, r knee.Report) (pr *probe, note string, expect int) {
	c := r.Recommendation.Concurrency
	ref := summarise(h.matchAt(c))
	kc := r.Knee.Concurrency
	if ref.n == 0 {
		return nil, fmt.Sprintf("pool: no step at concurrency %d to compare pool sizes with", c), 0
	}
	slo := p.search.SLOP99Ms
	if slo > 0 && (!ref.p99Known || ref.p99 > slo) {
		return nil, fmt.Sprintf("pool: at concurrency %d p99 is %s ms, above --slo-p99 %s ms with a pool as large as the concurrency; a smaller pool only adds waiting",
			c, textfmt.Ms(ref.p99), textfmt.Ms(slo)), 0
	}
	grid := p.poolGrid(c)
	if len(grid) == 0 {
		if p.search.PoolMin > 0 || p.search.PoolMax > 0 {
			return nil, fmt.Sprintf("pool: at concurrency %d no size below it lies within --pool %d..%d", c, p.search.PoolMin, p.search.PoolMax), 0
		}
		return nil, fmt.Sprintf("pool: at concurrency %d the pool is 1", c), 0
	}
	T := p.plan.Trials
	sums := map[int]summary{}
	best := ref.qps
	for _, ps := range grid {
		if sm := summarise(h.poolAt(c, ps)); sm.n > 0 {
			sums[ps] = sm
			best = math.Max(best, sm.qps)
		}
	}
	thr := p.opts.Plateau * best
	good := func(sm summary) bool { return sm.qps >= thr && (slo == 0 || sm.p99Known && sm.p99 <= slo) }
	// Sizes are searched from the top down; the first bad one closes the
	// bracket, and good ones below it are read as noise.
	passLow, failHigh := c, 0
	for _, ps := range grid {
		sm, ok := sums[ps]
		if !ok {
			continue
		}
		if !good(sm) {
			failHigh = ps
			break
		}
		passLow = ps
	}
	free := func(ps int) bool { _, m := sums[ps]; return !m && !h.triedAt[[2]int{c, ps}] }
	expect = max(1, p.poolFresh(c)-(h.all-len(h.match)))
	info := results.SearchInfo{Mode: results.SearchPool, Probe: h.all + 1, Knee: &kc, Confidence: r.Knee.Confidence, Bracket: []int{failHigh, passLow}}
	want := func(ps int, reason, why string) (*probe, string, int) {
		in := info
		in.Reason, in.Why = reason, why
		return &probe{conc: c, pool: ps, trial: sums[ps].n + 1, info: in}, "", expect
	}
	if failHigh == 0 {
		// Halve: the grid size nearest passLow/2 below passLow.
		target := float64(passLow) / 2
		pick, ok := 0, false
		for _, ps := range grid {
			if ps < passLow && free(ps) && (!ok || math.Abs(math.Log2(float64(ps)/target)) < math.Abs(math.Log2(float64(pick)/target))) {
				pick, ok = ps, true
			}
		}
		if ok {
			return want(pick, results.ReasonPool, fmt.Sprintf("maxPoolSize %d kept the throughput at concurrency %d: halve it", passLow, c))
		}
	} else {
		var between []int // descending sizes strictly inside the bracket
		for _, ps := range grid {
			if ps < passLow && ps > failHigh {
				between = append(between, ps)
			}
		}
		if i, ok := middleFree(between, 0, len(between)-1, free); ok {
			return want(between[i], results.ReasonPool, fmt.Sprintf("the smallest good maxPoolSize is above %d and at most %d: bisect", failHigh, passLow))
		}
	}
	// The answer rests on two verdicts, the good size and the bad one
	// below it: both get --trials trials, since one slow step on a busy
	// machine would otherwise settle it.
	if sm := sums[passLow]; passLow != c && sm.n < T {
		return want(passLow, results.ReasonRepeat, fmt.Sprintf("maxPoolSize %d is the answer so far: trial %d of %d", passLow, sm.n+1, T))
	}
	if sm := sums[failHigh]; failHigh > 0 && sm.n < T {
		return want(failHigh, results.ReasonRepeat, fmt.Sprintf("maxPoolSize %d is the first size that lost throughput: trial %d of %d", failHigh, sm.n+1, T))
	}

	keep := fmt.Sprintf("keeps %s ops/s", textfmt.Thousands(ref.qps))
	if passLow != c {
		keep = fmt.Sprintf("keeps %s ops/s, %.0f%% of the best %s", textfmt.Thousands(sums[passLow].qps), 100*sums[passLow].qps/best, textfmt.Thousands(best))
	}
	note = fmt.Sprintf("pool: at concurrency %d per client, maxPoolSize %d per host is the smallest that %s (tolerance %.0f%%)", c, passLow, keep, 100*(1-p.opts.Plateau))
	if slo > 0 {
		note += fmt.Sprintf(" with p99 within %s ms", textfmt.Ms(slo))
	}
	if failHigh > 0 {
		sm := sums[failHigh]
		note += fmt.Sprintf("; %d gave %s ops/s, p99 %s ms", failHigh, textfmt.Thousands(sm.qps), textfmt.Ms(sm.p99))
	} else {
		note += "; every smaller size tried kept it too"
	}
	return nil, note, 0
}

// poolFresh is what a pool search at concurrency c is expected to take:
// halvings and a bisection over its grid, and the trials of the answer
// and of the size below it.
func (p *Planner) poolFresh(c int) int {
	n := len(p.poolGrid(c))
	if n == 0 {
		return 0
	}
	return int(math.Ceil(math.Log2(float64(n+1)))) + 1 + 2*(p.plan.Trials-1)
}

// poolGrid is the pool sizes the search may try at concurrency c: the
// grid below c (poolLevels) within --pool MIN..MAX when given.
func (p *Planner) poolGrid(c int) []int {
	var out []int
	for _, ps := range poolLevels(c, p.search.Resolution) {
		if ps >= p.search.PoolMin && (p.search.PoolMax == 0 || ps <= p.search.PoolMax) {
			out = append(out, ps)
		}
	}
	return out
}
