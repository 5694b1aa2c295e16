package compare

import (
	"fmt"
	"math"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// trialsNote says which sweep to run, and about how long it takes, when
// some step's throughput could not be decided: unconfirmed (no interval of
// its own), or inside the between-run noise floor although its windows
// alone would decide it. Trials are what measure the noise between them:
// each side run again with fixed windows as long as this comparison's
// longest and 3 trials, which compare then tests on the trials. Empty when
// every step was decided.
type trialsNote struct {
	// Steps is how many matched steps were left undecided.
	Steps int `json:"steps"`
	// Flags is what to add to each side's sweep.
	Flags string `json:"flags"`
	// BaselineS and CandidateS are each side's estimated wall time with
	// those flags, in seconds, from its own steps' phases.
	BaselineS  float64 `json:"baseline_s"`
	CandidateS float64 `json:"candidate_s"`
	Text       string  `json:"text"`
}

// trialsAdvice builds the advice from the undecided steps; nil when there
// are none.
func trialsAdvice(c *Comparison, b, cand *side) *trialsNote {
	n := 0
	for _, s := range c.Steps {
		if m := s.Metrics[OpsPerS]; m != nil && (m.Status == StatusUnconfirmed || m.NeedsTrials) {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	window := math.Max(longestWindow(b), longestWindow(cand))
	if window <= 0 {
		return nil
	}
	w := time.Duration(math.Ceil(window)) * time.Second
	a := &trialsNote{Steps: n, Flags: fmt.Sprintf("--duration %s --trials %d", w, minTrials)}
	a.BaselineS = trialsTime(b, w.Seconds())
	a.CandidateS = trialsTime(cand, w.Seconds())
	a.Text = fmt.Sprintf("%d step(s) undecided: run each side's sweep again with %s (fixed %s windows, %d trials a level), about %s for the baseline and %s for the candidate",
		n, a.Flags, w, minTrials, roughDuration(a.BaselineS), roughDuration(a.CandidateS))
	return a
}

// longestWindow is the longest measured window among a side's steps.
func longestWindow(s *side) float64 {
	longest := 0.0
	for _, steps := range s.steps {
		for _, st := range steps {
			longest = math.Max(longest, st.DurationS)
		}
	}
	return longest
}

// trialsTime estimates a side's sweep with minTrials trials of fixed
// windows: each level's slowest trial, its window replaced by window.
func trialsTime(s *side, window float64) float64 {
	total := 0.0
	for _, steps := range s.steps {
		worst := 0.0
		for _, st := range steps {
			worst = math.Max(worst, stepOverhead(st)+window)
		}
		total += worst * minTrials
	}
	return total
}

// stepOverhead is a step's wall time besides its window.
func stepOverhead(st *results.StepResult) float64 {
	if st.Phases == nil {
		return 0
	}
	return st.Phases.Total() - st.Phases.Window
}

// roughDuration words seconds as "40 s", "3 min" or "1.5 h".
func roughDuration(s float64) string {
	switch {
	case s < 90:
		return fmt.Sprintf("%.0f s", s)
	case s < 90*60:
		return fmt.Sprintf("%.0f min", s/60)
	}
	return fmt.Sprintf("%.1f h", s/3600)
}
