package knee

import (
	"fmt"
	"math"
	"sort"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// estimate is what the curve methods say about one medians curve; indices
// point into the levels, -1 means "no answer".
type estimate struct {
	peak, plateau, kneedle, marginal int
	serverInFlight                   int  // the server in-flight knee, -1 when none or not run
	knee                             int  // consensus, -1 when none
	rising                           bool // still gaining ≥ MinGain per doubling at the top
	topGain                          float64
	plateauNote                      string
	kneedleNote                      string
	marginalNote                     string
}

// estimateKnee runs the plateau, Kneedle and marginal-gain methods on a
// medians curve (lx = log2 concurrency) and forms their consensus with the
// server in-flight answer sif (an index, -1 for none), which comes from
// another curve and is computed once by the caller. notes says whether to
// build the explanatory strings (the bootstrap calls this thousands of
// times and needs only the indices).
func estimateKnee(lx, ys []float64, sif int, o Options, notes bool) estimate {
	n := len(ys)
	e := estimate{peak: -1, plateau: -1, kneedle: -1, marginal: -1, serverInFlight: sif, knee: -1}
	if n == 0 {
		return e
	}
	e.peak = peakIndex(ys)
	if ys[e.peak] <= 0 {
		if notes {
			e.plateauNote, e.kneedleNote, e.marginalNote = "no throughput", "no throughput", "no throughput"
		}
		return e
	}

	e.plateau = plateauIndex(ys, e.peak, o.Plateau)
	if notes {
		e.plateauNote = fmt.Sprintf("first level reaching %.0f%% of the peak", o.Plateau*100)
	}

	// Kneedle on the running maximum over log2 concurrency: the method wants
	// a monotone concave curve, and the running maximum turns a retrograde
	// tail into a flat one instead of a second shape.
	switch {
	case n < 3:
		if notes {
			e.kneedleNote = "needs at least 3 levels"
		}
	case lx[n-1] == lx[0]:
	default:
		best, bestD := -1, math.Inf(-1)
		runMax := ys[0]
		for _, y := range ys {
			runMax = max(runMax, y)
		}
		if span := runMax - ys[0]; span > 0 {
			run := ys[0]
			for i := 1; i < n-1; i++ {
				run = max(run, ys[i])
				d := (run-ys[0])/span - (lx[i]-lx[0])/(lx[n-1]-lx[0])
				if d > bestD {
					best, bestD = i, d
				}
			}
		}
		if bestD < kneedleMinDiff {
			best = -1
		}
		e.kneedle = best
		if notes {
			if best < 0 {
				e.kneedleNote = "the curve is not concave on log2 concurrency: no knee"
			} else {
				e.kneedleNote = fmt.Sprintf("largest distance above the chord: %.2f of the range", bestD)
			}
		}
	}

	if n >= 2 {
		e.marginal, e.topGain = marginalIndex(lx, ys, o.MinGain)
		e.rising = e.peak == n-1 && e.topGain >= o.MinGain
		if notes {
			if e.marginal < 0 {
				e.marginalNote = fmt.Sprintf("the last doubling still added %.0f%%", e.topGain*100)
			} else {
				e.marginalNote = fmt.Sprintf("from here on each doubling adds less than %.0f%%", o.MinGain*100)
			}
		}
	} else if notes {
		e.marginalNote = "needs at least 2 levels"
	}

	if n < 2 || e.rising {
		return e
	}
	// Consensus: the median answer. With an even count take the higher of
	// the middle two, because by the lower one's neighbour's measure the
	// curve has not saturated yet.
	var ans [4]int
	k := 0
	for _, a := range []int{e.plateau, e.kneedle, e.marginal, e.serverInFlight} {
		if a >= 0 {
			ans[k] = a
			k++
		}
	}
	if k == 0 {
		return e
	}
	s := ans[:k]
	sort.Ints(s)
	e.knee = s[k/2]
	return e
}

// peakIndex is the index of the first largest value.
func peakIndex(ys []float64) int {
	p := 0
	for i, y := range ys {
		if y > ys[p] {
			p = i
		}
	}
	return p
}

// plateauIndex is the first level, up to the peak, within frac of it; -1
// when the peak is not positive.
func plateauIndex(ys []float64, peak int, frac float64) int {
	if ys[peak] <= 0 {
		return -1
	}
	for i := 0; i <= peak; i++ {
		if ys[i] >= frac*ys[peak] {
			return i
		}
	}
	return -1
}

// marginalIndex is the first level from which no later doubling gains
// minGain, and the gain per doubling of the last step (-1 when the curve
// still gains at the top).
//
// Gains are measured against the best level so far so that a noisy dip is
// not followed by a false "gain". Grids that do not double are compared per
// log2 step: gain^(1/log2(C2/C1)). For a concave curve the answer is the
// first doubling that adds less than minGain; it skips a flat start that
// the curve later climbs out of.
func marginalIndex(lx, ys []float64, minGain float64) (idx int, topGain float64) {
	n := len(ys)
	idx = -1
	if n < 2 {
		return idx, 0
	}
	best := ys[0]
	for j := 0; j < n-1; j++ {
		g := perDoubling(best, ys[j+1], lx[j+1]-lx[j])
		if j == n-2 {
			topGain = g
		}
		if g >= minGain {
			idx = -1
		} else if idx < 0 {
			idx = j
		}
		best = max(best, ys[j+1])
	}
	return idx, topGain
}

// perDoubling is the relative throughput gain per doubling of concurrency
// over a step of dlog2 doublings.
func perDoubling(from, to, dlog2 float64) float64 {
	if from <= 0 {
		if to > 0 {
			return math.Inf(1)
		}
		return 0
	}
	if dlog2 <= 0 {
		return 0
	}
	return math.Pow(to/from, 1/dlog2) - 1
}

// method turns an index answer into a Method.
func method(xs []int, idx int, note string) Method {
	m := Method{Note: note}
	if idx >= 0 {
		c := xs[idx]
		m.Concurrency = &c
	}
	return m
}

func emptyMethods(note string) Methods {
	return Methods{
		Plateau:        Method{Note: note},
		Kneedle:        Method{Note: note},
		Marginal:       Method{Note: note},
		SLO:            Method{Note: note},
		ServerInFlight: Method{Note: note},
		USL:            USL{Skipped: note},
	}
}

// sloKnee is the highest-throughput level whose median p99 meets the SLO.
func sloKnee(levels []Level, o Options) Method {
	if o.SLOP99 <= 0 {
		return Method{Note: "no p99 SLO given"}
	}
	slo := float64(o.SLOP99) / 1e6
	best := -1
	known := 0
	lowest := -1
	for i, l := range levels {
		if l.P99Ms == nil {
			continue
		}
		known++
		if lowest < 0 || *l.P99Ms < *levels[lowest].P99Ms {
			lowest = i
		}
		if *l.P99Ms <= slo && (best < 0 || l.QPS > levels[best].QPS) {
			best = i
		}
	}
	switch {
	case known == 0:
		return Method{Note: "no p99 latency in the data"}
	case best < 0:
		return Method{Note: fmt.Sprintf("no level met p99 ≤ %s (lowest p99 %s ms at concurrency %d)",
			o.SLOP99, textfmt.Ms(*levels[lowest].P99Ms), levels[lowest].Concurrency)}
	}
	c := levels[best].Concurrency
	return Method{Concurrency: &c, Note: fmt.Sprintf("highest throughput with p99 ≤ %s (p99 %s ms)", o.SLOP99, textfmt.Ms(*levels[best].P99Ms))}
}
