package sweep

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// schedule is when the calls of one open-loop arrival stream are due, as
// offsets from the stream's start. It is a pure value: the same kind, rate,
// phase and seed give the same arrivals, whatever the clock does, so the
// runner can tell how late it is and the tests can check the schedule
// without a clock (as vegeta's pacer).
type schedule struct {
	kind     string
	interval float64 // mean gap in nanoseconds
	phase    float64 // offset of the first arrival, ns
	rng      *rand.Rand
	n        int64   // arrivals returned so far
	at       float64 // the last arrival (poisson), ns
}

// newSchedule returns the schedule of a stream of perSecond arrivals a
// second of the given kind, its first arrival at phase (uniform) or one
// exponential gap after it (poisson). seed makes a poisson stream
// reproducible.
func newSchedule(kind string, perSecond float64, phase time.Duration, seed uint64) (*schedule, error) {
	if !(perSecond > 0) || math.IsInf(perSecond, 0) {
		return nil, fmt.Errorf("rate %g is not a positive number", perSecond)
	}
	if phase < 0 {
		return nil, fmt.Errorf("phase %s is negative", phase)
	}
	s := &schedule{kind: kind, interval: 1e9 / perSecond, phase: float64(phase), at: float64(phase)}
	switch kind {
	case results.ArrivalsUniform:
	case results.ArrivalsPoisson:
		s.rng = rand.New(rand.NewPCG(seed, 0x6f70656e6c6f6f70))
	default:
		return nil, fmt.Errorf("arrivals %q is not %s or %s", kind, results.ArrivalsUniform, results.ArrivalsPoisson)
	}
	return s, nil
}

// Next returns the offset of the next arrival. Offsets never decrease.
// Uniform arrivals are computed from their index, not by adding gaps, so
// rounding never drifts the rate over a long window.
func (s *schedule) Next() time.Duration {
	s.n++
	if s.kind == results.ArrivalsUniform {
		return time.Duration(s.phase + float64(s.n-1)*s.interval)
	}
	s.at += s.rng.ExpFloat64() * s.interval
	return time.Duration(s.at)
}

// arrivalPhases spreads k streams of one total rate so that together they are
// one stream of that rate: uniform streams are offset by one total-rate
// gap each (client i's first arrival at i/rate), poisson streams need no
// offset (independent poisson streams add up to one).
func arrivalPhases(kind string, totalPerSecond float64, k int) []time.Duration {
	out := make([]time.Duration, max(k, 0))
	if kind != results.ArrivalsUniform || !(totalPerSecond > 0) {
		return out
	}
	for i := range out {
		out[i] = time.Duration(float64(i) * 1e9 / totalPerSecond)
	}
	return out
}
