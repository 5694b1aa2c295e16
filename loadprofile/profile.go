// Package loadprofile is load that changes over time: a profile of
// open-loop phases (idle spells, constant rates, ramps, a sinusoid, a
// recorded rate trace) given as sweep --profile SPEC, its rate at any
// moment, its cumulative rate, and the arrival times that follow it.
// Parsing, bounds and arithmetic are pure; the one I/O is the trace
// reader (ReadTrace), which Parse is handed so that tests and callers
// choose where a trace comes from.
//
// Docs: docs/profiles.md.
package loadprofile

import (
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
	// rate, 0 for idle); for a sine, its low and high; for a trace, its
	// lowest and highest rate.
	From, To float64
	Period   time.Duration // sine only
	// Trace is a trace phase's points, times from the phase's start;
	// the rate between two points is the earlier point's, and the last
	// point ends the trace (its time is Duration, its rate 0).
	Trace []Point
	// Source names a trace phase's file, as given.
	Source string

	// cum is a trace's cumulative rate at each point (calls), filled by
	// Parse: cum[i] is the calls due before Trace[i].At.
	cum []float64
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
	if t < 0 {
		return 0
	}
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
	case KindRate:
		return ph.From
	case KindRamp:
		return ph.From + (ph.To-ph.From)*float64(t)/float64(ph.Duration)
	case KindSine:
		mid, amp := (ph.From+ph.To)/2, (ph.To-ph.From)/2
		return max(0, mid+amp*math.Sin(2*math.Pi*float64(t)/float64(ph.Period)))
	case KindTrace:
		if i := ph.traceIndex(t); i >= 0 {
			return ph.Trace[i].Rate
		}
	}
	return 0
}

// traceIndex is the index of the trace point in effect at t (the last
// with At ≤ t), or -1 before the first.
func (ph Phase) traceIndex(t time.Duration) int {
	lo, hi := 0, len(ph.Trace) // the first point after t is in [lo, hi]
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ph.Trace[m].At <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
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
// A sine's From and To are its low and high. A trace is marked in parts:
// each spell of its rows at rate 0 is an idle mark, and each run of
// loaded rows between them a trace mark whose From and To are that run's
// lowest and highest rate. So a recorded trace's quiet spells are idle
// spells of the step like any other: the bursts after them, the
// connections the pool kept through them and the maxIdleTimeMS they call
// for are read from the marks alone.
func (p Profile) Marks() []results.ProfilePhase {
	var out []results.ProfilePhase
	var at time.Duration
	for _, ph := range p.Phases {
		if ph.Kind == KindTrace {
			out = append(out, traceMarks(ph, at)...)
		} else {
			out = append(out, results.ProfilePhase{Kind: ph.Kind, StartS: at.Seconds(), EndS: (at + ph.Duration).Seconds(), From: ph.From, To: ph.To})
		}
		at += ph.Duration
	}
	return out
}

// traceMarks marks a trace phase that starts at at: its idle spells and
// the loaded runs between them (time before the first row is idle).
func traceMarks(ph Phase, at time.Duration) []results.ProfilePhase {
	var out []results.ProfilePhase
	add := func(from, to time.Duration, r float64) {
		idle := r == 0
		if n := len(out); n > 0 && (out[n-1].Kind == KindIdle) == idle {
			out[n-1].EndS = (at + to).Seconds()
			if !idle {
				out[n-1].From, out[n-1].To = min(out[n-1].From, r), max(out[n-1].To, r)
			}
			return
		}
		m := results.ProfilePhase{Kind: KindTrace, StartS: (at + from).Seconds(), EndS: (at + to).Seconds(), From: r, To: r}
		if idle {
			m.Kind = KindIdle
		}
		out = append(out, m)
	}
	prev, rate := time.Duration(0), 0.0
	for _, pt := range ph.Trace {
		if pt.At > prev {
			add(prev, pt.At, rate)
		}
		prev, rate = pt.At, pt.Rate
	}
	if ph.Duration > prev {
		add(prev, ph.Duration, rate)
	}
	return out
}

// String is the profile in its canonical form: the phases as Parse
// reads them, durations as Go writes them (1m0s), rates in plain
// decimals, a trace by its file's name. Parse of String gives the same
// phases.
func (p Profile) String() string {
	parts := make([]string, len(p.Phases))
	for i, ph := range p.Phases {
		switch ph.Kind {
		case KindIdle:
			parts[i] = "idle:" + ph.Duration.String()
		case KindRate:
			parts[i] = "rate:" + rate(ph.From) + ":" + ph.Duration.String()
		case KindRamp:
			parts[i] = "ramp:" + rate(ph.From) + ":" + rate(ph.To) + ":" + ph.Duration.String()
		case KindSine:
			parts[i] = "sine:" + rate(ph.From) + ":" + rate(ph.To) + ":" + ph.Period.String() + ":" + ph.Duration.String()
		case KindTrace:
			parts[i] = "trace:" + ph.Source
		}
	}
	return strings.Join(parts, ",")
}

func rate(r float64) string { return strconv.FormatFloat(r, 'f', -1, 64) }

// Gap is a spell of the profile at rate 0: from Start, Length long.
type Gap struct {
	Start, Length time.Duration
}

// IdleSpells are the profile's spells at rate 0, each as long as it
// lasts across phases: idle phases, rate 0, a ramp from 0 to 0, a
// trace's rows at 0. A ramp or sine that only touches 0 has no spell.
// The first spell may start at 0 and the last may end with the profile:
// a spell a burst follows is one with Start+Length before Duration().
// These are what connections sit idle through (maxIdleTimeMS).
func (p Profile) IdleSpells() []Gap {
	var out []Gap
	add := func(start, end time.Duration) {
		if end <= start {
			return
		}
		if n := len(out); n > 0 && out[n-1].Start+out[n-1].Length == start {
			out[n-1].Length += end - start
			return
		}
		out = append(out, Gap{Start: start, Length: end - start})
	}
	var at time.Duration
	for _, ph := range p.Phases {
		switch ph.Kind {
		case KindIdle:
			add(at, at+ph.Duration)
		case KindRate, KindRamp:
			if ph.From == 0 && ph.To == 0 {
				add(at, at+ph.Duration)
			}
		case KindSine:
			if ph.To == 0 {
				add(at, at+ph.Duration)
			}
		case KindTrace:
			if len(ph.Trace) > 0 && ph.Trace[0].At > 0 {
				add(at, at+ph.Trace[0].At) // before the first row: nothing
			}
			for i := 0; i+1 < len(ph.Trace); i++ {
				if ph.Trace[i].Rate == 0 {
					add(at+ph.Trace[i].At, at+ph.Trace[i+1].At)
				}
			}
		}
		at += ph.Duration
	}
	return out
}

// Rise is a step up of the rate: at At, from From to To calls/s.
type Rise struct {
	At       time.Duration
	From, To float64
}

// Rises are the moments where the rate steps up at once: the start of
// the profile when it starts loaded, a phase that starts above where the
// one before it ended, a trace's row above the row before. These are
// bursts' starts; a ramp or sine climbs without a step and has none
// inside it. From says what the burst rose from (0 after an idle spell).
func (p Profile) Rises() []Rise {
	var out []Rise
	prev := 0.0 // the rate just before at
	var at time.Duration
	step := func(t time.Duration, r float64) {
		if r > prev {
			out = append(out, Rise{At: t, From: prev, To: r})
		}
		prev = r
	}
	for _, ph := range p.Phases {
		switch ph.Kind {
		case KindIdle:
			prev = 0
		case KindRate, KindRamp:
			step(at, ph.From)
			prev = ph.To
		case KindSine:
			step(at, (ph.From+ph.To)/2)
			prev = ph.rateAt(ph.Duration)
		case KindTrace:
			if len(ph.Trace) > 0 && ph.Trace[0].At > 0 {
				prev = 0
			}
			for i := 0; i+1 < len(ph.Trace); i++ {
				step(at+ph.Trace[i].At, ph.Trace[i].Rate)
			}
		}
		at += ph.Duration
	}
	return out
}
