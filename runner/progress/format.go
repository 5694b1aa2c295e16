package progress

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// MaxLineBytes bounds every line Line makes, whatever it was given.
const MaxLineBytes = 1024

// Line makes s fit for one line of a terminal: only its first line, with
// every control character written as a visible Go escape, so that text
// from files, servers or flags cannot drive the terminal; and no longer
// than MaxLineBytes.
func Line(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	s = textfmt.Escape(s)
	if len(s) <= MaxLineBytes {
		return s
	}
	cut := MaxLineBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

// Rate prints a rate per second as the step lines do ("12.3k").
func Rate(v float64) string {
	switch {
	case v >= 100000:
		return fmt.Sprintf("%.0fk", v/1000)
	case v >= 10000:
		return fmt.Sprintf("%.1fk", v/1000)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// Ms is milliseconds as the tables print them ("2.33ms").
func Ms(v float64) string { return textfmt.Ms(v) + "ms" }

// Level names a step's level: "C=64", or "rate=2000/s" for an open loop.
func Level(concurrency, rate int) string {
	if rate > 0 {
		return fmt.Sprintf("rate=%d/s", rate)
	}
	return fmt.Sprintf("C=%d", concurrency)
}

// openStep is what an open-loop step adds to its line.
func openStep(s results.StepResult) string {
	if s.Open == nil {
		return ""
	}
	unc := "-"
	if s.Open.Uncorrected != nil {
		unc = Ms(s.Open.Uncorrected.P99)
	}
	return fmt.Sprintf(", offered %s/s, dropped %d, p99 uncorrected %s", Rate(s.Open.OfferedPerS), s.Open.Dropped, unc)
}

// Wall prints a duration to the precision a person reads it at.
func Wall(d time.Duration) string {
	switch {
	case d >= time.Hour:
		return d.Round(time.Minute).String()
	case d >= time.Minute:
		return d.Round(time.Second).String()
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	default:
		return d.Round(10 * time.Millisecond).String()
	}
}

// Hours prints whole hours briefly ("168h").
func Hours(d time.Duration) string {
	if d%time.Hour == 0 {
		return strconv.Itoa(int(d/time.Hour)) + "h"
	}
	return d.String()
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
