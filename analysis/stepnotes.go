package analysis

import (
	"fmt"

	"github.com/poolsweep/poolsweep/results"
)

// StepNote is something a single step's records say that its numbers do
// not: a replica set's primary changed during its window, or a secondary
// fell behind the primary's writes. The summary and the report say each
// the same way, from Text.
type StepNote struct {
	File, Target, Workload string
	Concurrency, Trial     int
	// Warning marks a condition the user should act on (a secondary that
	// could not keep up); the rest explain a step left out of the knee.
	Warning bool
	// Text is the sentence, without the step's name; it holds names read
	// from the file (hosts), which a terminal printer must escape.
	Text string
}

// Step names the note's step series: its target, and its workload when
// the step records one.
func (n StepNote) Step() string {
	if n.Workload == "" {
		return n.Target
	}
	return n.Target + " · " + n.Workload
}

// stepNotes are one step's notes, in the order the summary prints them.
func stepNotes(file string, s *results.StepResult) []StepNote {
	var out []StepNote
	note := func(warning bool, format string, args ...any) {
		out = append(out, StepNote{File: file, Target: s.Target, Workload: s.Workload, Concurrency: s.Concurrency, Trial: s.Trial,
			Warning: warning, Text: fmt.Sprintf(format, args...)})
	}
	if s.Server != nil {
		for _, m := range s.Server.Replication {
			if m.FellBehind {
				note(true, "secondary %s fell behind: replication lag %.0f ms → %.0f ms in the window (at most %.0f ms)", m.Host, m.StartMS, m.EndMS, m.MaxMS)
			}
		}
	}
	if pc := s.PrimaryChange; pc != nil {
		note(false, "the primary changed during the window (%s, %d error(s), slowest call %.1f ms): it measured an election, not the deployment, and is left out of the knee",
			pc.Text(), s.Errors.Total(), s.Latency.Max)
	}
	return out
}
