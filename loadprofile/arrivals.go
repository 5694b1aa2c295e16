package loadprofile

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// Schedule gives the arrival times of a profile, in order.
type Schedule interface {
	// Next is the next arrival's due time from the profile's start, and
	// false once the profile has ended.
	Next() (time.Duration, bool)
}

// poissonStream is the PCG stream word of a profile's poisson arrivals;
// a client's is this with its index mixed in, so that clients given one
// seed draw independent streams.
const poissonStream = 0x70726f66696c6521

// Arrivals is the schedule of client k of n sharing the profile's load
// (each carrying rate/n), kind results.ArrivalsUniform or
// ArrivalsPoisson (plan checks --arrivals; another kind, or k outside
// [0, n), is a programming error and panics).
//
// Uniform: arrival j (from 0) of client k is due where Λ(t)/n, the
// cumulative rate per client, reaches j + (k+1)/n; that is where Λ
// reaches n·j + k + 1, so the n clients together give exactly the one
// stream of arrivals at Λ = 1, 2, 3, …, each client every n-th. An idle
// spell holds no arrival: Λ does not grow in it.
//
// Poisson: a non-homogeneous Poisson process of rate r(t)/n by time
// rescaling: the sums of unit exponential draws S₁ < S₂ < … are the
// arrivals on Λ/n's scale, each due where Λ(t)/n reaches it. seed and k
// pick the draws (math/rand/v2's PCG); n independent clients add up to
// one process of rate r(t).
func (p Profile) Arrivals(kind string, k, n int, seed uint64) Schedule {
	if n < 1 || k < 0 || k >= n {
		panic(fmt.Sprintf("loadprofile: client %d of %d", k, n))
	}
	// A private copy of the phases, each trace's cumulative rate filled:
	// the n clients' schedules run on n goroutines, and a profile built
	// by hand (not by Parse) would otherwise fill it as each reads it.
	own := Profile{Spec: p.Spec, Phases: slices.Clone(p.Phases)}
	for i := range own.Phases {
		if ph := &own.Phases[i]; ph.Kind == KindTrace && len(ph.cum) != len(ph.Trace) {
			ph.cum = traceCum(ph.Trace)
		}
	}
	c := &cursor{p: &own, end: own.Calls()}
	switch kind {
	case results.ArrivalsUniform:
		return &uniform{c: c, first: float64(k + 1), every: float64(n)}
	case results.ArrivalsPoisson:
		return &poisson{c: c, n: float64(n), rng: rand.New(rand.NewPCG(seed, poissonStream^uint64(k)))}
	}
	panic(fmt.Sprintf("loadprofile: arrivals %q", kind))
}

// cursor inverts Λ for values that never decrease, walking the phases
// once: each inversion costs the phase's own (constant, or a bisection),
// never a scan from the start.
type cursor struct {
	p     *Profile
	end   float64       // Λ at the profile's end
	i     int           // the phase the last value fell in
	base  float64       // Λ at that phase's start
	start time.Duration // that phase's start
	last  time.Duration // the last value's time, from that phase's start
}

// at is the first t where Λ(t) reaches c, and false past the end.
func (c *cursor) at(v float64) (time.Duration, bool) {
	if v > c.end {
		return 0, false
	}
	for c.i < len(c.p.Phases) {
		ph := &c.p.Phases[c.i]
		in := ph.cumAt(ph.Duration)
		if v <= c.base+in && in > 0 {
			c.last = ph.invert(v-c.base, c.last)
			return c.start + c.last, true
		}
		c.base += in
		c.start += ph.Duration
		c.last = 0
		c.i++
	}
	// Rounding put v a hair past the last phase's sum: the end itself.
	return c.start, true
}

// uniform is the arrivals at Λ = first, first+every, first+2·every, …
type uniform struct {
	c            *cursor
	first, every float64
	j            float64
}

func (u *uniform) Next() (time.Duration, bool) {
	v := u.first + u.j*u.every
	t, ok := u.c.at(v)
	if ok {
		u.j++
	}
	return t, ok
}

// poisson is the arrivals at Λ/n = S₁, S₂, … with unit exponential gaps.
type poisson struct {
	c   *cursor
	n   float64
	rng *rand.Rand
	s   float64
	out bool
}

func (p *poisson) Next() (time.Duration, bool) {
	if p.out {
		return 0, false
	}
	p.s += p.rng.ExpFloat64()
	t, ok := p.c.at(p.s * p.n)
	p.out = !ok
	return t, ok
}
