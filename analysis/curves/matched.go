package curves

import "math"

// Latency at matched throughput: each side's p50 and p99 interpolated
// linearly in throughput between its measured levels, on the rising part
// of its curve (the levels up to its peak, in order of throughput). A
// level's throughput is only known within its interval, so the p99 at a
// throughput x lies between the curve's p99 at x·(1 − r) and at x·(1 + r)
// (r its relative half-width there), widened by the trials' range of
// p99 (each trial's own: the order statistics' interval of its p99 from
// its number of calls, p99Band) and past a side's peak the upper end is
// unbounded. A level without an interval of its throughput gives no band
// (0 to unbounded): nothing is called faster there. One side is
// significantly faster at x when its upper end is below the other's
// lower end.

// matchedLevels are the fractions of the lower peak at which latency is
// shown.
var matchedLevels = []float64{0.25, 0.5, 0.75, 0.9, 1}

// crossoverGrid is how many throughputs between the lowest both sides
// measured and the lower peak the crossover is looked for at.
const crossoverGrid = 64

// point is one level on the rising part of a curve.
type point struct {
	x, rel                 float64 // ops/s and its relative half-width (0: none)
	p50, p99, p99lo, p99hi float64
}

// rising is the side's levels up to its peak that have latency, in order
// of throughput, each above the one before (a level that carried less
// than a lower concurrency did is noise on the rising part and left out).
func rising(s Side, alpha float64) []point {
	var ps []point
	for _, lv := range s.Levels {
		if lv.Concurrency > s.Report.Peak.Concurrency || !lv.HasLatency {
			continue
		}
		p := point{x: lv.OpsPerS, p50: lv.P50Ms, p99: lv.P99Ms, p99lo: lv.P99Lo, p99hi: lv.P99Hi, rel: math.NaN()}
		if lv.HasSE {
			p.rel = math.Expm1(tQuantile(lv.DF, alpha) * lv.LogSE)
		}
		ps = append(ps, p)
	}
	// In order of concurrency, as measured.
	var out []point
	for _, p := range ps {
		if len(out) == 0 || p.x > out[len(out)-1].x {
			out = append(out, p)
		}
	}
	return out
}

// at interpolates field f of the curve at x; ok is false outside the
// measured range.
func at(ps []point, x float64, f func(point) float64) (float64, bool) {
	if len(ps) == 0 || x < ps[0].x || x > ps[len(ps)-1].x {
		return 0, false
	}
	for i := 1; i < len(ps); i++ {
		if x <= ps[i].x {
			a, b := ps[i-1], ps[i]
			t := (x - a.x) / (b.x - a.x)
			return f(a) + t*(f(b)-f(a)), true
		}
	}
	return f(ps[0]), true // one point, x equal to it
}

// relAt is the larger relative half-width of the levels around x; NaN
// when one of them has none.
func relAt(ps []point, x float64) float64 {
	for i := range ps {
		if x <= ps[i].x {
			if i == 0 {
				return ps[0].rel
			}
			if math.IsNaN(ps[i-1].rel) || math.IsNaN(ps[i].rel) {
				return math.NaN()
			}
			return max(ps[i-1].rel, ps[i].rel)
		}
	}
	return ps[len(ps)-1].rel
}

// latencyAt is the side's latency at x with its p99 band; ok is false
// when x is outside its measured rising curve.
func latencyAt(ps []point, x float64) (Latency, bool) {
	p50, ok := at(ps, x, func(p point) float64 { return p.p50 })
	if !ok {
		return Latency{}, false
	}
	p99, _ := at(ps, x, func(p point) float64 { return p.p99 })
	r := relAt(ps, x)
	if math.IsNaN(r) { // no interval of the throughput: no band, no test
		return Latency{P50Ms: p50, P99Ms: p99, P99Low: 0, P99High: math.Inf(1)}, true
	}
	lo, ok := at(ps, max(x*(1-r), ps[0].x), func(p point) float64 { return p.p99lo })
	if !ok {
		lo = ps[0].p99lo
	}
	hi, ok := at(ps, x*(1+r), func(p point) float64 { return p.p99hi })
	if !ok {
		hi = math.Inf(1)
	}
	return Latency{P50Ms: p50, P99Ms: p99, P99Low: min(lo, p99), P99High: max(hi, p99)}, true
}

// better names the side with the significantly lower p99, "" for none.
func better(b, c Latency, bn, cn string) string {
	switch {
	case b.P99High < c.P99Low:
		return bn
	case c.P99High < b.P99Low:
		return cn
	}
	return ""
}

// matchLatency interpolates both sides at the shown levels and finds the
// crossover.
func matchLatency(c *Comparison, alpha float64) ([]Matched, *Crossover) {
	bp, cp := rising(c.Base, alpha), rising(c.Cand, alpha)
	if len(bp) == 0 || len(cp) == 0 {
		return nil, nil
	}
	lowPeak := min(bp[len(bp)-1].x, cp[len(cp)-1].x)
	from := max(bp[0].x, cp[0].x)
	if from > lowPeak {
		return nil, nil
	}
	match := func(x float64) (Matched, bool) {
		bl, ok1 := latencyAt(bp, x)
		cl, ok2 := latencyAt(cp, x)
		if !ok1 || !ok2 {
			return Matched{}, false
		}
		return Matched{OpsPerS: x, Base: bl, Cand: cl, Better: better(bl, cl, c.Base.Name, c.Cand.Name)}, true
	}
	var shown []Matched
	for _, f := range matchedLevels {
		x := roundDown2(f * lowPeak)
		if f == 1 {
			x = lowPeak
		}
		if x < from || (len(shown) > 0 && x <= shown[len(shown)-1].OpsPerS) {
			continue
		}
		if m, ok := match(x); ok {
			shown = append(shown, m)
		}
	}
	var grid []Matched
	for i := range crossoverGrid + 1 {
		x := from + (lowPeak-from)*float64(i)/crossoverGrid
		if m, ok := match(x); ok {
			grid = append(grid, m)
		}
	}
	return shown, crossover(c, grid)
}

// crossover is the lowest throughput from which one side is
// significantly better through to the top: the side with the
// significantly higher peak (the only one that carries more than the
// other's peak), or, when the peaks do not differ, a side faster at
// every matched throughput from some level on up to the lower peak.
func crossover(c *Comparison, grid []Matched) *Crossover {
	if len(grid) == 0 {
		return nil
	}
	winner, byPeak := "", true
	switch {
	case c.PeakRatio.Has() && *c.PeakRatio.Low > 1:
		winner = c.Cand.Name
	case c.PeakRatio.Has() && *c.PeakRatio.High < 1:
		winner = c.Base.Name
	default:
		winner, byPeak = grid[len(grid)-1].Better, false
	}
	if winner == "" {
		return nil
	}
	// With the significantly higher peak, the winner is also better
	// where the other may be past its peak (its band unbounded) and the
	// winner is not: only the winner is known to carry that load.
	wins := func(m Matched) bool {
		if m.Better == winner {
			return true
		}
		w, l := m.Base, m.Cand
		if winner != c.Base.Name {
			w, l = l, w
		}
		return byPeak && m.Better == "" && math.IsInf(l.P99High, 1) && !math.IsInf(w.P99High, 1)
	}
	i := len(grid)
	for i > 0 && wins(grid[i-1]) {
		i--
	}
	x := &Crossover{Better: winner, Everywhere: i == 0}
	if i == len(grid) {
		x.OpsPerS, x.AtPeak = grid[len(grid)-1].OpsPerS, true // only beyond the other's peak
	} else {
		x.OpsPerS = grid[i].OpsPerS
	}
	for j := i - 1; j >= 0; j-- {
		if b := grid[j].Better; b != "" && b != winner {
			m := grid[j]
			x.Below = &m
			break
		}
	}
	return x
}

// roundDown2 rounds v down to two significant digits (2,849 → 2,800), so
// that matched throughputs read as round numbers and stay at or below the
// lower peak.
func roundDown2(v float64) float64 {
	if v <= 0 {
		return v
	}
	p := math.Pow(10, math.Floor(math.Log10(v))-1)
	return math.Floor(v/p) * p
}
