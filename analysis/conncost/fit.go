package conncost

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsweep/poolsweep/results"
)

// Confidence is the two-sided confidence of every interval Estimate gives.
const Confidence = 0.95

// minPoints is the fewest points a slope gets an interval from: a line
// through two points has no residual, so no spread to judge it by.
const minPoints = 3

// point is one step's x (connections, or clients) and y (bytes, µs/s,
// connections).
type point struct{ x, y float64 }

// slope fits y = a + b·x by least squares and returns b with its
// Confidence interval from the residuals (Student t, n−2 degrees of
// freedom); nil when fewer than minPoints points have y, or x does not
// vary.
func slope(pts []point) *results.Interval {
	n := float64(len(pts))
	if len(pts) < minPoints {
		return nil
	}
	var mx, my float64
	for _, p := range pts {
		mx += p.x
		my += p.y
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for _, p := range pts {
		sxx += (p.x - mx) * (p.x - mx)
		sxy += (p.x - mx) * (p.y - my)
	}
	if !(sxx > 0) {
		return nil
	}
	b := sxy / sxx
	a := my - b*mx
	var sse float64
	for _, p := range pts {
		r := p.y - a - b*p.x
		sse += r * r
	}
	se := math.Sqrt(sse / (n - 2) / sxx)
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 2}.Quantile(1 - (1-Confidence)/2)
	if math.IsNaN(se) || math.IsInf(se, 0) {
		return nil
	}
	return &results.Interval{Value: b, Low: b - q*se, High: b + q*se}
}
