package loadprofile

import (
	"math"
	"time"
)

// The cumulative rate Λ(t) is the calls due from a profile's start to t:
// the integral of its rate. Arrivals are where Λ reaches given values,
// so Λ is computed in closed form per phase and inverted exactly (in
// closed form for rate, ramp and trace; by bisection on the nanosecond
// for a sine, at most 47 steps for a day).

// Calls is the calls the whole profile asks for: Λ at its end.
func (p Profile) Calls() float64 {
	total := 0.0
	for _, ph := range p.Phases {
		total += ph.cumAt(ph.Duration)
	}
	return total
}

// CallsBetween is the calls due in [from, to): Λ(to) − Λ(from).
func (p Profile) CallsBetween(from, to time.Duration) float64 {
	return p.cumAt(to) - p.cumAt(from)
}

// cumAt is Λ(t), clamped to the profile.
func (p Profile) cumAt(t time.Duration) float64 {
	total := 0.0
	for _, ph := range p.Phases {
		if t <= 0 {
			break
		}
		total += ph.cumAt(min(t, ph.Duration))
		t -= ph.Duration
	}
	return total
}

// cumAt is the phase's Λ at t from its start, 0 ≤ t ≤ Duration.
func (ph *Phase) cumAt(t time.Duration) float64 {
	s := t.Seconds()
	switch ph.Kind {
	case KindRate:
		return ph.From * s
	case KindRamp:
		return ph.From*s + (ph.To-ph.From)*s*s/(2*ph.Duration.Seconds())
	case KindSine:
		mid, amp := (ph.From+ph.To)/2, (ph.To-ph.From)/2
		w := 2 * math.Pi / ph.Period.Seconds()
		// ∫ mid + amp·sin(w·u) du from 0 to s. LOW ≥ 0 keeps the rate ≥ 0,
		// so this never decreases.
		return mid*s + amp*(1-math.Cos(w*s))/w
	case KindTrace:
		i := ph.traceIndex(t)
		if i < 0 {
			return 0
		}
		cum := ph.traceCum()
		return cum[i] + ph.Trace[i].Rate*(t-ph.Trace[i].At).Seconds()
	}
	return 0
}

func (ph *Phase) traceCum() []float64 {
	if len(ph.cum) != len(ph.Trace) {
		ph.cum = traceCum(ph.Trace)
	}
	return ph.cum
}

// traceCum is the calls due before each point of a trace.
func traceCum(pts []Point) []float64 {
	cum := make([]float64, len(pts))
	for i := 1; i < len(pts); i++ {
		cum[i] = cum[i-1] + pts[i-1].Rate*(pts[i].At-pts[i-1].At).Seconds()
	}
	return cum
}

// invert is the first t in [0, Duration] where the phase's Λ reaches
// c, for 0 < c ≤ cumAt(Duration): where the calls due reach c. after is
// a time known to be no later (the arrival before, or 0), where a sine's
// search starts.
func (ph *Phase) invert(c float64, after time.Duration) time.Duration {
	d := ph.Duration
	secs := func(s float64) time.Duration {
		// To the nearest nanosecond: rounding up would put an exact
		// arrival (67/2000 s) a nanosecond late from the float's last bit.
		t := time.Duration(math.Round(s * 1e9))
		return min(max(t, 0), d)
	}
	switch ph.Kind {
	case KindRate:
		return secs(c / ph.From)
	case KindRamp:
		a, k := ph.From, (ph.To-ph.From)/(2*d.Seconds())
		if k == 0 {
			return secs(c / a)
		}
		// k·s² + a·s − c = 0, in the form that keeps its precision when a
		// is large against k·s (and is a+√… > 0 for every c this holds).
		disc := max(a*a+4*k*c, 0)
		return secs(2 * c / (a + math.Sqrt(disc)))
	case KindTrace:
		cum := ph.traceCum()
		// The first segment whose end reaches c.
		lo, hi := 0, len(ph.Trace)-1
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if cum[m+1] >= c {
				hi = m
			} else {
				lo = m + 1
			}
		}
		pt := ph.Trace[lo]
		if lo+1 < len(ph.Trace) && pt.Rate > 0 {
			t := pt.At + time.Duration(math.Round((c-cum[lo])/pt.Rate*1e9))
			return min(max(t, pt.At), ph.Trace[lo+1].At)
		}
		return pt.At
	case KindSine:
		return ph.invertSine(c, after.Seconds())
	}
	return 0
}

// invertSine is invert for a sine, which has no closed-form inverse:
// whole periods first (each holds mid·PERIOD calls), then Newton's
// method from the arrival before, kept inside a shrinking bracket and
// bisecting where a step would leave it (the rate is 0 at the troughs of
// a sine from 0). Arrivals close together converge in a step or two; 100
// steps is a bound the bisection alone meets (2 periods to 0.5 ns).
func (ph *Phase) invertSine(c, after float64) time.Duration {
	d, p := ph.Duration.Seconds(), ph.Period.Seconds()
	mid, amp := (ph.From+ph.To)/2, (ph.To-ph.From)/2
	w := 2 * math.Pi / p
	lam := func(s float64) float64 { return mid*s + amp*(1-math.Cos(w*s))/w }
	lo := min(math.Floor(c/(mid*p))*p, d)
	hi := min(lo+p, d)
	lo = max(lo-p, 0, min(after, hi)) // a period back: a float's last bit may put c just before lo
	x := lo
	if r := mid + amp*math.Sin(w*lo); r > 0 {
		x = min(lo+(c-lam(lo))/r, hi)
	}
	for range 100 {
		f := lam(x) - c
		if f >= 0 {
			hi = x
		} else {
			lo = x
		}
		if hi-lo < 0.5e-9 || f == 0 {
			break
		}
		nx := x - f/(mid+amp*math.Sin(w*x))
		if !(nx > lo && nx < hi) {
			nx = lo + (hi-lo)/2
		}
		if math.Abs(nx-x) < 1e-10 {
			x = nx
			break
		}
		x = nx
	}
	// The first nanosecond where Λ reaches c, whichever way the search
	// came: the same arrival for every client and hint.
	at := func(ns int64) float64 { return lam(float64(ns) / 1e9) }
	t := int64(math.Floor(x * 1e9))
	for i := 0; i < 16 && t > 0 && at(t-1) >= c; i++ {
		t--
	}
	for i := 0; i < 16 && at(t) < c; i++ {
		t++
	}
	return min(max(time.Duration(t), 0), ph.Duration)
}
