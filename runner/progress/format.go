package progress

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// Level names a step's level: "C=64", or "rate=2000/s" for an open loop.
func Level(concurrency, rate int) string {
	if rate > 0 {
		return fmt.Sprintf("rate=%d/s", rate)
	}
	return fmt.Sprintf("C=%d", concurrency)
}

// specLevel names a running step's level: a profile step's is its peak
// (the plan's rate of such a step), since its rate changes.
func specLevel(s plan.StepSpec) string {
	if s.Profile != nil {
		return fmt.Sprintf("profile peak=%d/s", s.Rate)
	}
	return Level(s.Concurrency, s.Rate)
}

// profileLine is a finished profile step's line: its averages over the
// whole profile (idle spells included) would say little, so it gives
// what the profile offered and carried, the p99 over the profile and
// the worst interval's, and what the pools did.
func profileLine(n, of int, s results.StepResult) string {
	ps := s.Profile
	worst := ""
	if w := ps.Summary.WorstP99MS; w != nil {
		worst = ", worst interval p99 " + render.Millis(*w)
	}
	o := results.OpenLoopStats{}
	if s.Open != nil {
		o = *s.Open
	}
	return fmt.Sprintf("[%d/%d] %s %s profile peak=%d/s P=%s K=%d trial %d: %d calls of %d offered, dropped %d, p99 %s over the profile%s, errors %d, connections %d at the start, up to %d (%d created, %d closed)",
		n, of, s.Target, s.Workload, s.Rate, s.PoolSetting, s.Clients, s.Trial, s.Calls, o.Offered, o.Dropped, render.Millis(s.Latency.P99), worst,
		s.Errors.Total(), s.Connections, s.Pool.ConnectionsMax, ps.Summary.ConnectionsCreated, ps.Summary.ConnectionsClosed)
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
