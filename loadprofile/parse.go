package loadprofile

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Bounds of a profile. Each is checked by Parse; a caller with a tighter
// bound of its own (the run's) checks Duration() and Peak() against it.
const (
	// MaxDuration is the longest profile: a day, the longest measuring
	// window a sweep step may have (plan.MaxWindow).
	MaxDuration = 24 * time.Hour
	// MaxRate is the highest rate a phase may ask for, calls/s: the open
	// loop's bound on --rate (results.MaxRate), which one process can
	// schedule.
	MaxRate = float64(results.MaxRate)
	// MaxPhases is the most phases a profile may hold.
	MaxPhases = 64
	// MaxSpec is the longest SPEC, in bytes.
	MaxSpec = 4096
	// MinPhase is the shortest phase (and a sine's shortest period): the
	// timeline records intervals of 100 ms, and a phase much shorter than
	// one is a rate no interval can show.
	MinPhase = time.Millisecond
	// MinPeriod is a sine's shortest period: a cycle spans at least one
	// timeline interval.
	MinPeriod = 100 * time.Millisecond
)

// TraceReader reads a trace phase's file; ReadTrace is the product's.
type TraceReader func(path string) ([]Point, error)

// Parse reads a profile: comma-separated phases, idle:D, rate:R:D,
// ramp:R1:R2:D, sine:LOW:HIGH:PERIOD:D and trace:FILE (read through
// readTrace, which may be nil when no trace is allowed). Durations are
// Go durations (500ms, 30s, 1m30s), rates calls/s (decimals allowed).
// Its error is one line that begins "--profile: " and names the phase
// by number and kind (and a trace's file and line), never quoting more
// of the spec than a short token.
func Parse(spec string, readTrace TraceReader) (Profile, error) {
	p, err := parse(spec, readTrace)
	if err != nil {
		return Profile{}, fmt.Errorf("--profile: %w", err)
	}
	return p, nil
}

func parse(spec string, readTrace TraceReader) (Profile, error) {
	if strings.TrimSpace(spec) == "" {
		return Profile{}, errors.New("empty; give phases such as idle:30s,rate:2000:60s")
	}
	if len(spec) > MaxSpec {
		return Profile{}, fmt.Errorf("%d bytes, more than the %d a profile may hold", len(spec), MaxSpec)
	}
	parts := strings.Split(spec, ",")
	if len(parts) > MaxPhases {
		return Profile{}, fmt.Errorf("%d phases, more than the %d a profile may hold", len(parts), MaxPhases)
	}
	p := Profile{Spec: spec}
	var total time.Duration
	for i, part := range parts {
		part = strings.TrimSpace(part)
		kind, _, _ := strings.Cut(part, ":")
		kind = strings.TrimSpace(kind)
		ph, err := parsePhase(part, readTrace)
		if err != nil {
			if isKind(kind) {
				return Profile{}, fmt.Errorf("phase %d (%s): %w", i+1, kind, err)
			}
			return Profile{}, fmt.Errorf("phase %d: %w", i+1, err)
		}
		if total += ph.Duration; total > MaxDuration {
			return Profile{}, fmt.Errorf("phase %d (%s): the profile reaches %s, longer than the %s a profile may last", i+1, kind, total, fmtHours(MaxDuration))
		}
		p.Phases = append(p.Phases, ph)
	}
	if p.Peak() <= 0 {
		return Profile{}, errors.New("the profile never loads: every phase is idle or at rate 0")
	}
	if n := p.Calls(); n < 1 {
		return Profile{}, fmt.Errorf("the profile never loads: it asks for %s calls in all, fewer than one", strconv.FormatFloat(n, 'g', 3, 64))
	}
	return p, nil
}

func isKind(k string) bool {
	switch k {
	case KindIdle, KindRate, KindRamp, KindSine, KindTrace:
		return true
	}
	return false
}

// fmtHours is d as a person writes a bound: 24h, not 24h0m0s.
func fmtHours(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return d.String()
}

const grammar = "idle:D, rate:R:D, ramp:R1:R2:D, sine:LOW:HIGH:PERIOD:D or trace:FILE"

func parsePhase(part string, readTrace TraceReader) (Phase, error) {
	if part == "" {
		return Phase{}, errors.New("empty (two commas, or one at an end)")
	}
	kind, rest, _ := strings.Cut(part, ":")
	kind = strings.TrimSpace(kind)
	if kind == KindTrace {
		// A file's name may hold colons: all after "trace:" is the name.
		return tracePhase(strings.TrimSpace(rest), readTrace)
	}
	f := strings.Split(part, ":")
	for i := range f {
		f[i] = strings.TrimSpace(f[i]) // "rate: 2000 : 60s" is rate:2000:60s
	}
	want := map[string]int{KindIdle: 2, KindRate: 3, KindRamp: 4, KindSine: 5}[kind]
	if want == 0 {
		return Phase{}, fmt.Errorf("%s is not %s", textfmt.Token(part), grammar)
	}
	if len(f) != want {
		return Phase{}, fmt.Errorf("%d fields, not the %d of %s", len(f), want, usage(kind))
	}
	var err error
	num := func(what, s string) float64 {
		if err != nil {
			return 0
		}
		var v float64
		v, err = parseRate(what, s)
		return v
	}
	dur := func(what, s string, least time.Duration) time.Duration {
		if err != nil {
			return 0
		}
		d, e := time.ParseDuration(s)
		switch {
		case e != nil:
			err = fmt.Errorf("%s %s is not a duration such as 30s, 1m or 500ms", what, textfmt.Token(s))
		case d < least:
			err = fmt.Errorf("%s %s is shorter than %s", what, textfmt.Short(s), least)
		case d > MaxDuration:
			err = fmt.Errorf("%s %s is longer than the %s a profile may last", what, textfmt.Short(s), fmtHours(MaxDuration))
		}
		return d
	}
	var ph Phase
	switch kind {
	case KindIdle:
		ph = Phase{Kind: KindIdle, Duration: dur("D", f[1], MinPhase)}
	case KindRate:
		r := num("R", f[1])
		ph = Phase{Kind: KindRate, From: r, To: r, Duration: dur("D", f[2], MinPhase)}
	case KindRamp:
		ph = Phase{Kind: KindRamp, From: num("R1", f[1]), To: num("R2", f[2]), Duration: dur("D", f[3], MinPhase)}
	case KindSine:
		ph = Phase{Kind: KindSine, From: num("LOW", f[1]), To: num("HIGH", f[2]), Period: dur("PERIOD", f[3], MinPeriod), Duration: dur("D", f[4], MinPhase)}
		if err == nil && ph.From > ph.To {
			err = fmt.Errorf("LOW %s is above HIGH %s", rate(ph.From), rate(ph.To))
		}
	}
	return ph, err
}

func usage(kind string) string {
	switch kind {
	case KindIdle:
		return "idle:D"
	case KindRate:
		return "rate:R:D"
	case KindRamp:
		return "ramp:R1:R2:D"
	}
	return "sine:LOW:HIGH:PERIOD:D"
}

// parseRate reads a rate in calls/s: a finite decimal from 0 to MaxRate.
func parseRate(what, s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange), math.IsNaN(v), math.IsInf(v, 0) && err == nil:
		return 0, fmt.Errorf("%s %s is not a rate in calls/s (a number ≥ 0)", what, textfmt.Token(s))
	case v < 0:
		return 0, fmt.Errorf("%s %s is negative; a rate is calls/s ≥ 0", what, textfmt.Short(s))
	case v > MaxRate:
		return 0, fmt.Errorf("%s %s calls/s is above %s, the most one process issues (as --rate)", what, textfmt.Short(s), rate(MaxRate))
	}
	return v, nil
}

func tracePhase(path string, readTrace TraceReader) (Phase, error) {
	if path == "" {
		return Phase{}, errors.New("no file named: trace:FILE")
	}
	if readTrace == nil {
		return Phase{}, errors.New("a trace is not read here")
	}
	pts, err := readTrace(path)
	if err != nil {
		// A reader's error names the path as given: escaped, so that a
		// name holding a newline stays one line.
		return Phase{}, textfmt.EscapeError(err)
	}
	if err := checkTrace(pts); err != nil {
		return Phase{}, fmt.Errorf("%s: %w", textfmt.Escape(path), err)
	}
	ph := Phase{Kind: KindTrace, Source: path, Trace: pts, Duration: pts[len(pts)-1].At}
	ph.From, ph.To = math.Inf(1), 0
	if pts[0].At > 0 {
		ph.From = 0 // nothing before its first row
	}
	for _, pt := range pts[:len(pts)-1] {
		ph.From, ph.To = min(ph.From, pt.Rate), max(ph.To, pt.Rate)
	}
	ph.cum = traceCum(pts)
	return ph, nil
}

// checkTrace holds a trace from any reader to what ReadTrace holds a
// file to: at least two points, times from 0 strictly increasing up to
// MaxDuration, rates finite from 0 to MaxRate, the last at rate 0.
func checkTrace(pts []Point) error {
	if len(pts) < 2 {
		return errors.New("a trace needs at least two rows: the last row's time ends it")
	}
	for i, pt := range pts {
		switch {
		case pt.At < 0 || (i > 0 && pt.At <= pts[i-1].At):
			return fmt.Errorf("point %d: time %s is not after the one before", i+1, pt.At)
		case pt.At > MaxDuration:
			return fmt.Errorf("point %d: time %s is past the %s a profile may last", i+1, pt.At, fmtHours(MaxDuration))
		case math.IsNaN(pt.Rate) || pt.Rate < 0 || pt.Rate > MaxRate:
			return fmt.Errorf("point %d: rate %g is not between 0 and %s", i+1, pt.Rate, rate(MaxRate))
		}
	}
	if pts[len(pts)-1].Rate != 0 {
		return errors.New("the last row ends the trace: its rate must be 0")
	}
	return nil
}
