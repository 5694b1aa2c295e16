// Package loadprofile is load that changes over time: a profile of
// open-loop phases (idle spells, constant rates, ramps, a sinusoid, a
// recorded rate trace) given as sweep --profile SPEC, its rate at any
// moment, and the arrival times that follow it. It is pure: parsing,
// bounds and arithmetic, no I/O beyond the trace reader it is handed.
package loadprofile

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// Phase kinds.
const (
	KindIdle  = "idle"
	KindRate  = "rate"
	KindRamp  = "ramp"
	KindSine  = "sine"
	KindTrace = "trace"
)

// Phase is one phase of a profile. Rates are calls/s.
type Phase struct {
	Kind     string
	Duration time.Duration
	// From and To are the rates at the phase's start and end (equal for
	// rate, 0 for idle); for a sine, its low and high.
	From, To float64
	Period   time.Duration // sine only
	// Trace is a trace phase's points, times from the phase's start;
	// the rate between two points is the earlier point's.
	Trace []Point
	// Source names a trace phase's file, as given.
	Source string
}

// Point is one row of a rate trace: from At on, Rate calls/s.
type Point struct {
	At   time.Duration
	Rate float64
}

// Profile is a load profile: its phases, one after another.
type Profile struct {
	Spec   string
	Phases []Phase
}

// Duration is the profile's whole length.
func (p Profile) Duration() time.Duration {
	var d time.Duration
	for _, ph := range p.Phases {
		d += ph.Duration
	}
	return d
}

// RateAt is the rate the profile asks for at t from its start (0 past
// its end).
func (p Profile) RateAt(t time.Duration) float64 {
	for _, ph := range p.Phases {
		if t < ph.Duration {
			return ph.rateAt(t)
		}
		t -= ph.Duration
	}
	return 0
}

func (ph Phase) rateAt(t time.Duration) float64 {
	switch ph.Kind {
	case KindIdle:
		return 0
	case KindRate:
		return ph.From
	case KindRamp:
		return ph.From + (ph.To-ph.From)*float64(t)/float64(ph.Duration)
	case KindSine:
		mid, amp := (ph.From+ph.To)/2, (ph.To-ph.From)/2
		return mid + amp*math.Sin(2*math.Pi*float64(t)/float64(ph.Period))
	case KindTrace:
		r := 0.0
		for _, pt := range ph.Trace {
			if pt.At > t {
				break
			}
			r = pt.Rate
		}
		return r
	}
	return 0
}

// Peak is the highest rate the profile asks for.
func (p Profile) Peak() float64 {
	peak := 0.0
	for _, ph := range p.Phases {
		switch ph.Kind {
		case KindTrace:
			for _, pt := range ph.Trace {
				peak = max(peak, pt.Rate)
			}
		default:
			peak = max(peak, ph.From, ph.To)
		}
	}
	return peak
}

// Marks are the profile's phases on its own clock, for the step record.
func (p Profile) Marks() []results.ProfilePhase {
	var out []results.ProfilePhase
	var at time.Duration
	for _, ph := range p.Phases {
		out = append(out, results.ProfilePhase{Kind: ph.Kind, StartS: at.Seconds(), EndS: (at + ph.Duration).Seconds(), From: ph.From, To: ph.To})
		at += ph.Duration
	}
	return out
}

// Parse reads a profile: comma-separated phases, idle:D, rate:R:D,
// ramp:R1:R2:D, sine:LOW:HIGH:PERIOD:D and trace:FILE (read through
// readTrace, which may be nil when no trace is allowed).
//
// This is the minimal core the rest of the product builds on; the full
// grammar, bounds and the trace reader live beside it.
func Parse(spec string, readTrace func(path string) ([]Point, error)) (Profile, error) {
	p := Profile{Spec: spec}
	for i, part := range strings.Split(spec, ",") {
		f := strings.Split(strings.TrimSpace(part), ":")
		ph, err := parsePhase(f, readTrace)
		if err != nil {
			return Profile{}, fmt.Errorf("phase %d: %w", i+1, err)
		}
		p.Phases = append(p.Phases, ph)
	}
	if p.Peak() <= 0 {
		return Profile{}, errors.New("the profile never loads: every phase is idle or at rate 0")
	}
	return p, nil
}

func parsePhase(f []string, readTrace func(string) ([]Point, error)) (Phase, error) {
	num := func(s string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return 0, fmt.Errorf("%q is not a rate ≥ 0", s)
		}
		return v, nil
	}
	dur := func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("%q is not a positive duration", s)
		}
		return d, nil
	}
	switch {
	case f[0] == KindIdle && len(f) == 2:
		d, err := dur(f[1])
		return Phase{Kind: KindIdle, Duration: d}, err
	case f[0] == KindRate && len(f) == 3:
		r, err := num(f[1])
		if err != nil {
			return Phase{}, err
		}
		d, err := dur(f[2])
		return Phase{Kind: KindRate, From: r, To: r, Duration: d}, err
	case f[0] == KindRamp && len(f) == 4:
		a, err := num(f[1])
		if err != nil {
			return Phase{}, err
		}
		b, err := num(f[2])
		if err != nil {
			return Phase{}, err
		}
		d, err := dur(f[3])
		return Phase{Kind: KindRamp, From: a, To: b, Duration: d}, err
	}
	return Phase{}, fmt.Errorf("%q is not idle:D, rate:R:D, ramp:R1:R2:D, sine:LOW:HIGH:PERIOD:D or trace:FILE", strings.Join(f, ":"))
}

// Schedule gives the arrival times of a profile, in order.
type Schedule interface {
	// Next is the next arrival's due time from the profile's start, and
	// false once the profile has ended.
	Next() (time.Duration, bool)
}

// Arrivals is the schedule of one of n clients sharing the profile's
// load (each carrying rate/n): uniform arrivals are the times where the
// cumulative rate reaches each whole arrival (offset by the client's
// phase (k+1)/n so that clients interleave); seed picks a poisson stream.
func (p Profile) Arrivals(arrivals string, k, n int, seed uint64) Schedule {
	return &uniform{p: p, n: float64(n), next: float64(k+1) / float64(n)}
}

// uniform integrates the rate in small steps: the minimal core.
type uniform struct {
	p    Profile
	n    float64
	t    time.Duration
	acc  float64 // arrivals so far (cumulative rate / n)
	next float64
}

const integrationStep = 100 * time.Microsecond

func (u *uniform) Next() (time.Duration, bool) {
	end := u.p.Duration()
	for u.t < end {
		if u.acc >= u.next {
			u.next++
			return u.t, true
		}
		u.acc += u.p.RateAt(u.t) / u.n * integrationStep.Seconds()
		u.t += integrationStep
	}
	return 0, false
}
