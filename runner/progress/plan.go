package progress

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

// Summary is what a sweep sets out to do, for its first progress
// line and the json plan event: grid or search, why, the steps it
// expects and at most, and the wall time they take.
type Summary struct {
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

// Summarise is the plan of session about to measure pending.
func Summarise(session *sweep.Session, pending []plan.StepSpec, why string) Summary {
	p := session.Plan
	s := Summary{mode: "grid", why: why, steps: len(pending), stepsMax: len(pending), auto: p.Auto != nil}
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
func (s Summary) wall() string {
	if !s.auto || s.hi <= s.lo {
		return "about " + Wall(s.lo) + " (fixed lengths)"
	}
	return fmt.Sprintf("%s to %s (auto lengths: every step at its shortest, and at its longest)", Wall(s.lo), Wall(s.hi))
}

// WritePlanLine is the first progress line: grid or search, why, the
// steps, the wall time, and each step's lengths (and who ends them: fleet,
// in agent mode).
func WritePlanLine(w io.Writer, s Summary, p plan.Plan, fleet string) {
	line := fmt.Sprintf("plan: %s, because %s. %s; wall time %s; each step: %s%s, plus opening connections",
		s.mode, strings.TrimSuffix(s.why, "."), upperFirst(s.shape), s.wall(), StepLengths(p), fleet)
	if b := p.Search.Budget(); b > 0 {
		line += fmt.Sprintf("; budget %s", b)
	}
	fmt.Fprintln(w, line)
}

// Steps is how many steps the run expects to measure (a search, or a
// grid's trials where they pay: an estimate).
func (s Summary) Steps() int { return s.steps }

// Plan writes the plan event of session about to measure what summary
// says.
func (p *JSON) Plan(session *sweep.Session, summary Summary) {
	p.emit(EventPlan, planOf(session, summary))
}

// StepLengths says how long each step's warm-up and window are, for the
// plan line: fixed lengths, or auto with their bounds; a profile step's
// length is its profile's.
func StepLengths(p plan.Plan) string {
	if p.IsProfile() {
		return fmt.Sprintf("the profile's %s, no warm-up or window of its own", p.Profile.Duration())
	}
	a := p.Auto
	warm := fmt.Sprintf("%s warm-up", p.Warmup)
	if a != nil && a.Warmup {
		warm = fmt.Sprintf("warm-up until MSER-5 finds the end of the transient (%s to %s)", Hours(max(p.Warmup, plan.AutoWarmupMin)), Hours(seconds(a.MaxWarmupS)))
	}
	win := fmt.Sprintf("%s window", p.Duration)
	if a != nil && a.Window {
		win = fmt.Sprintf("window until the throughput is known to ±%g%% (%s to %s, %d calls or more)", a.PrecisionPct, Hours(p.Duration), Hours(seconds(a.MaxDurationS)), a.MinCalls)
	}
	return warm + " + " + win
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
