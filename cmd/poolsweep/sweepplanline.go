package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

// planSummary is what a sweep sets out to do, for its first progress
// line and the json plan event: grid or search, why, the steps it
// expects and at most, and the wall time they take.
type planSummary struct {
	mode     string // "grid" or "search"
	why      string
	steps    int // expected in this run (a search, trials where they pay: an estimate)
	stepsMax int // at most: a search's full grid, a grid's every trial
	// lo and hi bound the wall time of the expected steps: equal with
	// fixed lengths; with auto ones, every step at its shortest and at its
	// longest.
	lo, hi time.Duration
	auto   bool
	shape  string // what the steps are, in a phrase
}

// summarisePlan is the plan of session about to measure pending.
func summarisePlan(session *sweep.Session, pending []plan.StepSpec, c planChoice) planSummary {
	p := session.Plan
	s := planSummary{mode: "grid", why: c.why, steps: len(pending), stepsMax: len(pending), auto: p.Auto != nil}
	s.lo, s.hi = session.EstimateRange(pending)
	if session.Planner == nil {
		s.shape = plural(len(pending), "step")
		return s
	}
	var earlier []results.StepResult
	if prev := session.Previous; prev != nil {
		for _, st := range prev.Steps {
			if st.Measured() {
				earlier = append(earlier, st)
			}
		}
	}
	s.steps = session.Planner.Remaining(earlier)
	if sp := p.Search; sp != nil {
		s.mode = "search"
		mid := sp.Levels[len(sp.Levels)/2]
		lo, hi := session.EstimateRange([]plan.StepSpec{{Concurrency: mid, MaxPoolSize: mid, Clients: p.Clients}})
		s.lo, s.hi = time.Duration(s.steps)*lo, time.Duration(s.steps)*hi
		s.stepsMax = len(session.Steps())
		s.shape = fmt.Sprintf("%s over C=%d..%d (%d levels at ×%s): about %s, at most %d (the full grid)",
			sp.Mode, sp.Levels[0], sp.Levels[len(sp.Levels)-1], len(sp.Levels), strconv.FormatFloat(math.Round(sp.Resolution*100)/100, 'f', -1, 64),
			plural(s.steps, "step"), s.stepsMax)
		return s
	}
	// A grid whose trials are a maximum: each level once, then extra
	// trials where they pay.
	if n := len(pending); n > 0 {
		s.lo, s.hi = s.lo*time.Duration(s.steps)/time.Duration(n), s.hi*time.Duration(s.steps)/time.Duration(n)
	}
	once := 0
	for _, sp := range pending {
		if sp.Trial == 1 {
			once++
		}
	}
	s.shape = fmt.Sprintf("%s once each, then up to %d trials of a level where its interval overlaps its neighbour's near the knee: about %s, at most %d",
		plural(once, "step"), p.Trials, plural(s.steps, "step"), s.stepsMax)
	return s
}

// wall says the estimated wall time: about so long with fixed lengths,
// a range with auto ones.
func (s planSummary) wall() string {
	if !s.auto || s.hi <= s.lo {
		return "about " + fmtWall(s.lo) + " (fixed lengths)"
	}
	return fmt.Sprintf("%s to %s (auto lengths: every step at its shortest, and at its longest)", fmtWall(s.lo), fmtWall(s.hi))
}

// writePlanLine is the first progress line: grid or search, why, the
// steps, the wall time, and each step's lengths (and who ends them: fleet,
// in agent mode).
func writePlanLine(w io.Writer, s planSummary, p plan.Plan, fleet string) {
	line := fmt.Sprintf("plan: %s, because %s. %s; wall time %s; each step: %s%s, plus opening connections",
		s.mode, strings.TrimSuffix(s.why, "."), upperFirst(s.shape), s.wall(), stepLengths(p), fleet)
	if b := p.Search.Budget(); b > 0 {
		line += fmt.Sprintf("; budget %s", b)
	}
	fmt.Fprintln(w, line)
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
