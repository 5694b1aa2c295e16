package knee

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/optimize"
)

// uslData is the sufficient statistic of the trial points for a least
// squares fit: the sum of squared errors over all points equals the
// within-level sum of squares plus Σ nᵢ(meanᵢ − X(Nᵢ))², so fitting the
// level means weighted by their trial counts is fitting every point, at a
// cost independent of the number of trials.
type uslData struct {
	n, w, mean []float64 // concurrency, trials, mean QPS per level
	within     float64   // Σ (y − meanᵢ)² over all points
	sst        float64   // Σ (y − grand mean)² over all points
	points     int
	scale      float64 // concurrency scale for the κ parameter
}

// fitUSL fits X(N) = λN / (1 + σ(N−1) + κN(N−1)) with σ, κ ≥ 0.
//
// λ enters linearly, so for given σ, κ its least-squares value is closed
// form (variable projection) and the search is over two parameters only:
// σ = s² and κ = (k/scale)², which keeps both non-negative without bounds
// and gives k an order of magnitude near 1. Nelder–Mead runs from a grid
// of starts; the boundary models (κ = 0, σ = 0, both 0) are fitted too and
// preferred when they fit as well, so an Amdahl-shaped curve reports κ = 0
// exactly rather than a tiny κ with a meaningless N*.
func fitUSL(levels []level) USL {
	if len(levels) < minUSLLevels {
		return USL{Skipped: fmt.Sprintf("%d distinct concurrency levels; the fit needs at least %d", len(levels), minUSLLevels)}
	}
	d := uslData{}
	total, count := 0.0, 0
	peakQ, peakN := -1.0, 1.0
	for _, l := range levels {
		m := l.QPSMean
		d.n = append(d.n, float64(l.Concurrency))
		d.w = append(d.w, float64(l.Trials))
		d.mean = append(d.mean, m)
		for _, v := range l.vals {
			d.within += (v - m) * (v - m)
			total += v
			count++
		}
		if m > peakQ {
			peakQ, peakN = m, float64(l.Concurrency)
		}
	}
	grand := total / float64(count)
	for _, l := range levels {
		for _, v := range l.vals {
			d.sst += (v - grand) * (v - grand)
		}
	}
	d.points = count
	d.scale = peakN
	if !(d.sst > 0) {
		return USL{Skipped: "throughput is the same at every level: nothing to fit"}
	}

	type cand struct {
		sigma, kappa, f float64
		dof             int // free shape parameters; fewer wins ties
	}
	var cands []cand
	add := func(sigma, kappa float64, dof int) {
		f := d.loss(sigma, kappa)
		if !math.IsNaN(f) {
			cands = append(cands, cand{sigma, kappa, f, dof})
		}
	}
	// A coarse grid over σ and κ (their zero edges included) finds the
	// basin; Nelder–Mead then refines from the best grid point of each
	// model. One refinement per model instead of many random starts keeps a
	// fit well under a millisecond: gonum's optimiser costs a goroutine
	// hand-off per evaluation.
	sGrid := logspace(0.003, 1.5, 24) // s = √σ: σ from 1e-5 to 2.25
	kGrid := logspace(0.01, 30, 24)   // k = κ^½·scale: N* from ~scale/30 to 100·scale
	type start struct {
		s, k, f float64
	}
	bestOf := [3]start{{f: math.Inf(1)}, {f: math.Inf(1)}, {f: math.Inf(1)}} // κ=0, σ=0, both free
	for i := -1; i < len(sGrid); i++ {
		for j := -1; j < len(kGrid); j++ {
			sv, kv := 0.0, 0.0
			if i >= 0 {
				sv = sGrid[i]
			}
			if j >= 0 {
				kv = kGrid[j]
			}
			f := d.loss(sv*sv, d.kappa(kv))
			m := 2
			switch {
			case i < 0 && j < 0:
				add(0, 0, 0)
				continue
			case j < 0:
				m = 0
			case i < 0:
				m = 1
			}
			if f < bestOf[m].f {
				bestOf[m] = start{sv, kv, f}
			}
		}
	}
	x := minimise(func(p []float64) float64 { return d.loss(p[0]*p[0], 0) }, []float64{bestOf[0].s})
	add(x[0]*x[0], 0, 1)
	x = minimise(func(p []float64) float64 { return d.loss(0, d.kappa(p[0])) }, []float64{bestOf[1].k})
	add(0, d.kappa(x[0]), 1)
	x = minimise(func(p []float64) float64 { return d.loss(p[0]*p[0], d.kappa(p[1])) }, []float64{bestOf[2].s, bestOf[2].k})
	add(x[0]*x[0], d.kappa(x[1]), 2)
	if len(cands) == 0 {
		return USL{Skipped: "the fit did not converge"}
	}
	bestF := math.Inf(1)
	for _, c := range cands {
		bestF = min(bestF, c.f)
	}
	// Prefer the simplest model within a hair of the best fit.
	tol := bestF*1e-6 + 1e-12
	var best *cand
	for i := range cands {
		c := &cands[i]
		if c.f > bestF+tol {
			continue
		}
		if best == nil || c.dof < best.dof || (c.dof == best.dof && c.f < best.f) {
			best = c
		}
	}

	u := USL{Fitted: true, Sigma: best.sigma, Kappa: best.kappa, Points: d.points}
	u.Lambda = d.lambda(best.sigma, best.kappa)
	u.R2 = 1 - best.f
	if u.R2 < MinUSLR2 {
		u.Rejected = fmt.Sprintf("R² %.3f is below %g: the law does not describe this curve", u.R2, MinUSLR2)
		return u
	}
	switch {
	case u.Sigma >= 1:
		one := 1.0 // throughput falls from the first worker on
		u.NStar = &one
	case u.Kappa > 0:
		ns := math.Sqrt((1 - u.Sigma) / u.Kappa)
		u.NStar = &ns
	}
	switch {
	case u.NStar != nil:
		u.PeakQPS = u.Eval(*u.NStar)
	case u.Sigma > 0:
		u.PeakQPS = u.Lambda / u.Sigma // the asymptote, never reached
	}
	// Which term limits throughput over the tested range: compare the two
	// denominators at the largest concurrency tested.
	top := d.n[len(d.n)-1]
	cont, coh := u.Sigma*(top-1), u.Kappa*top*(top-1)
	switch {
	case cont+coh < 0.1:
		u.Bound = "linear"
	case coh > cont:
		u.Bound = "coherency"
	default:
		u.Bound = "contention"
	}
	return u
}

// logspace is n values from lo to hi, evenly spaced in log.
func logspace(lo, hi float64, n int) []float64 {
	out := make([]float64, n)
	r := math.Log(hi / lo)
	for i := range out {
		out[i] = lo * math.Exp(r*float64(i)/float64(n-1))
	}
	return out
}

func (d *uslData) kappa(k float64) float64 { return (k / d.scale) * (k / d.scale) }

// lambda is the least-squares λ for fixed σ, κ.
func (d *uslData) lambda(sigma, kappa float64) float64 {
	num, den := 0.0, 0.0
	for i, n := range d.n {
		g := n / (1 + sigma*(n-1) + kappa*n*(n-1))
		num += d.w[i] * d.mean[i] * g
		den += d.w[i] * g * g
	}
	if den == 0 {
		return 0
	}
	return num / den
}

// loss is the sum of squared errors over all points divided by the total
// sum of squares (1 − R²), so convergence tolerances are scale-free.
func (d *uslData) loss(sigma, kappa float64) float64 {
	lam := d.lambda(sigma, kappa)
	sse := d.within
	for i, n := range d.n {
		r := d.mean[i] - lam*n/(1+sigma*(n-1)+kappa*n*(n-1))
		sse += d.w[i] * r * r
	}
	return sse / d.sst
}

// minimise runs a bounded Nelder–Mead from x0 and returns the best point
// it saw; a failed run returns x0, whose loss the caller compares anyway.
func minimise(f func([]float64) float64, x0 []float64) []float64 {
	res, err := optimize.Minimize(optimize.Problem{Func: f}, x0, &optimize.Settings{
		FuncEvaluations: 4000,
		Converger:       &optimize.FunctionConverge{Absolute: 1e-13, Relative: 1e-11, Iterations: 25},
	}, &optimize.NelderMead{SimplexSize: 0.1})
	if err != nil && (res == nil || res.X == nil) {
		return x0
	}
	return res.X
}
