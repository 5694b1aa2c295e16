// Package zipf draws zipfian ranks: the one generator behind the record
// keys a built-in workload picks and the values a replayed shape draws,
// so that both skew their picks by the same rule.
package zipf

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
)

// ExactMax is the most ranks a Dist draws from an exact table of
// cumulative weights; beyond it the method of Gray et al. (YCSB's)
// approximates, which holds only for θ < 1.
const ExactMax = 1 << 16

// Dist draws ranks in [0, n) with P(k) ∝ 1/(k+1)^θ. It is read-only once
// made, so goroutines share one, each with its own *rand.Rand.
type Dist struct {
	n int64
	// cum are the cumulative weights of the ranks, for n ≤ ExactMax.
	cum []float64
	// Gray's constants, for n > ExactMax ("Quickly Generating
	// Billion-Record Synthetic Databases"); zetan costs O(n) once.
	alpha, zetan, eta, half float64
}

// New is the distribution over n ranks with exponent theta.
func New(n int64, theta float64) *Dist {
	d := &Dist{n: n}
	switch {
	case n <= 1:
	case n <= ExactMax:
		d.cum = make([]float64, n)
		s := 0.0
		for i := range d.cum {
			s += 1 / math.Pow(float64(i+1), theta)
			d.cum[i] = s
		}
	default:
		d.zetan = zeta(n, theta)
		d.alpha = 1 / (1 - theta)
		d.eta = (1 - math.Pow(2/float64(n), 1-theta)) / (1 - zeta(2, theta)/d.zetan)
		d.half = 1 + math.Pow(0.5, theta)
	}
	return d
}

func zeta(n int64, theta float64) float64 {
	s := 0.0
	for i := int64(1); i <= n; i++ {
		s += 1 / math.Pow(float64(i), theta)
	}
	return s
}

// Rank draws one rank.
func (d *Dist) Rank(r *rand.Rand) int64 {
	if d.n <= 1 {
		return 0
	}
	if d.cum != nil {
		return int64(sort.SearchFloat64s(d.cum, r.Float64()*d.cum[len(d.cum)-1]))
	}
	u := r.Float64()
	uz := u * d.zetan
	if uz < 1 {
		return 0
	}
	if uz < d.half {
		return 1
	}
	v := int64(float64(d.n) * math.Pow(d.eta*u-d.eta+1, d.alpha))
	return min(max(v, 0), d.n-1)
}

type key struct {
	n     int64
	theta float64
}

// shared holds one Dist per (n, θ), made at its first draw.
var shared sync.Map

// Shared is the Dist over n ranks with exponent theta, made once per
// (n, θ) for callers that keep no state of their own (a replayed shape
// draws millions of times from a few distributions).
func Shared(n int64, theta float64) *Dist {
	k := key{n, theta}
	if d, ok := shared.Load(k); ok {
		return d.(*Dist)
	}
	d, _ := shared.LoadOrStore(k, New(n, theta))
	return d.(*Dist)
}
