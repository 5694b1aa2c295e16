package fleet

import (
	"slices"

	"github.com/poolsweep/poolsweep/analysis/knee"
)

// curve is the measured throughput (ops/s, medians over trials) against
// the calls in flight over all clients, ascending in n.
type curve struct{ n, x []float64 }

// inFlight is the calls a level held in flight over all clients: its
// concurrency per client, capped by its pool per host times the hosts
// serving when the pool was numbered.
func inFlight(concurrency, pool, clients, serving int) float64 {
	c := concurrency
	if pool > 0 {
		c = min(c, pool*serving)
	}
	return float64(c * max(clients, 1))
}

// levelPool is the maxPoolSize measured at concurrency c (0 when unknown).
func levelPool(levels []knee.Level, c int) int {
	for _, l := range levels {
		if l.Concurrency == c {
			return l.MaxPoolSize
		}
	}
	return 0
}

// newCurve builds the curve of a series' levels; levels that land on the
// same in-flight count (a numbered pool capping them) keep the highest
// throughput.
func newCurve(levels []knee.Level, clients, serving int) curve {
	type pt struct{ n, x float64 }
	var pts []pt
	for _, l := range levels {
		pts = append(pts, pt{inFlight(l.Concurrency, l.MaxPoolSize, clients, serving), l.QPS})
	}
	slices.SortStableFunc(pts, func(a, b pt) int {
		switch {
		case a.n < b.n:
			return -1
		case a.n > b.n:
			return 1
		}
		return 0
	})
	var c curve
	for _, p := range pts {
		if m := len(c.n); m > 0 && c.n[m-1] == p.n {
			c.x[m-1] = max(c.x[m-1], p.x)
			continue
		}
		c.n, c.x = append(c.n, p.n), append(c.x, p.x)
	}
	return c
}

// at is the throughput with n calls in flight: linear between measured
// levels, linear from the origin below the first, and flat at the last
// level's past it (extrapolated is then true).
func (c curve) at(n float64) (x float64, extrapolated bool) {
	m := len(c.n)
	switch {
	case m == 0 || n <= 0:
		return 0, m == 0
	case n < c.n[0]:
		return c.x[0] * n / c.n[0], false
	case n > c.n[m-1]:
		return c.x[m-1], true
	}
	i, found := slices.BinarySearch(c.n, n)
	if found {
		return c.x[i], false
	}
	lo, hi := i-1, i
	f := (n - c.n[lo]) / (c.n[hi] - c.n[lo])
	return c.x[lo] + f*(c.x[hi]-c.x[lo]), false
}
