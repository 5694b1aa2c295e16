// Package search chooses a sweep's steps adaptively: it locates the knee
// of throughput against concurrency on a log₂ grid with a fraction of the
// grid's steps (--search knee), then the smallest maxPoolSize that keeps
// the knee's throughput (--search pool), within a wall-time budget. It is
// a plan.Planner that drives the engine's Session: a pure function of the
// steps measured so far (results records), so a resumed run picks up where
// it stopped. Every decision rests on the analysis `poolsweep analyze`
// gives (analysis/knee), never on a knee of its own.
package search

import (
	"fmt"
	"math"
	"sort"
)

// Resolution bounds: a grid finer than ×1.05 asks for more levels than a
// knee can be told apart on; one coarser than ×4 cannot place a knee.
const (
	MinResolution = 1.05
	MaxResolution = 4.0
)

// Levels is the grid a search places its probes on: lo, lo·r, lo·r², …
// rounded and de-duplicated, ending with hi. A level within √r of hi is
// replaced by hi, so the top step is never a sliver.
func Levels(lo, hi int, r float64) ([]int, error) {
	switch {
	case lo < 1 || hi <= lo:
		return nil, fmt.Errorf("a search needs a range of at least two levels (got %d..%d)", lo, hi)
	case !(r >= MinResolution && r <= MaxResolution):
		return nil, fmt.Errorf("%g is not between %g and %g", r, MinResolution, MaxResolution)
	}
	out := []int{lo}
	for v := float64(lo) * r; v*math.Sqrt(r) < float64(hi); v *= r {
		c := int(math.Round(v))
		if len(out) == 0 || c > out[len(out)-1] {
			out = append(out, c)
		}
	}
	if out[len(out)-1] < hi {
		out = append(out, hi)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("%d..%d holds fewer than two levels at ×%g", lo, hi, r)
	}
	return out, nil
}

// coarse is the indices of the first probes into a grid: both ends and
// one every four doublings or so between them (at least the middle), so
// the curve's shape is known before any bisection. The middle index is
// rounded down: a knee sits in the lower half of a log₂ range more often
// than the upper.
func coarse(levels []int) []int {
	n := len(levels)
	if n <= 3 {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	doublings := math.Log2(float64(levels[n-1]) / float64(levels[0]))
	m := min(n, max(3, 1+int(math.Ceil(doublings/4))))
	var idx []int
	for j := range m {
		i := j * (n - 1) / (m - 1)
		if len(idx) == 0 || i > idx[len(idx)-1] {
			idx = append(idx, i)
		}
	}
	return idx
}

// indexOf is c's position in the grid, or where it would be inserted.
func indexOf(levels []int, c int) int { return sort.SearchInts(levels, c) }

// poolLevels is the maxPoolSize grid below the knee concurrency c: c/r,
// c/r², … rounded and de-duplicated, down to 1, largest first.
func poolLevels(c int, r float64) []int {
	var out []int
	for v := float64(c) / r; ; v /= r {
		p := max(1, int(math.Round(v)))
		if p < c && (len(out) == 0 || p < out[len(out)-1]) {
			out = append(out, p)
		}
		if p == 1 {
			return out
		}
	}
}
