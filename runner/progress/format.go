package progress

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/results"
)

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
	return fmt.Sprintf(", offered %s/s, dropped %d, p99 uncorrected %s", render.Rate(s.Open.OfferedPerS), s.Open.Dropped, render.UncorrectedP99(s.Open))
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
