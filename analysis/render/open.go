package render

import (
	"fmt"
	"slices"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// openSummary prints the open-loop steps and their analysis: offered
// against achieved, dropped arrivals, calls in flight, corrected and
// uncorrected latency and the share of it spent waiting for the pool.
// alone says the run has no closed-loop steps, so the run's notes and
// warnings are printed here.
func openSummary(ew *textfmt.ErrWriter, res *results.Results, a *analysis.Analysis, steps []results.StepResult, alone bool) {
	slices.SortStableFunc(steps, func(x, y results.StepResult) int { return results.CompareOpenSteps(&x, &y) })
	ew.Printf("\nopen loop (latency from each call's intended start; uncorrected: from its send):\n")
	tw := newTable(ew, false, "target\trate/s\tP\tK\ttrial\tconnections\toffered/s\tachieved/s\tdropped\tin flight\tp50\tp99\tuncorrected p99\tpool wait\terrors\tbound\t")
	for _, s := range steps {
		o := s.Open
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%d\t%.1f/%d\t%s\t%s\t%s\t%.0f%%\t%d\t%s\t%s\n", s.Target, s.Rate, s.MaxPoolSize, s.Clients, s.Trial, s.Connections,
			Rate(o.OfferedPerS), Rate(o.AchievedPerS), o.Dropped, o.InFlightMean, o.InFlightMax, Millis(o.Corrected.P50), Millis(o.Corrected.P99), UncorrectedP99(o),
			100*o.PoolWaitShare(), s.Errors.Total(), orDash(s.Bound), openMark(s))
	}
	_ = tw.Flush()
	ew.Printf("\n")
	if alone {
		targetNotes(ew, res)
	}
	if c := a.Counts; c.Behind > 0 {
		ew.Printf("WARNING: in %d of %d open-loop steps this machine fell behind its arrival schedule: part of their latency is the client's.\n"+
			"         Run poolsweep on more (or larger) client machines, or offer lower rates per process, before trusting them.\n", c.Behind, c.OpenSteps)
	}
	for _, r := range a.Open {
		ew.Printf("%s\n", openLine(r))
	}
	if alone {
		runWarnings(ew, res)
	}
}

// openMark is what follows an open-loop step's bound: one mark, the
// target failed or else interrupted. Unlike the closed-loop table
// (closedMark) it keeps one, and an open-loop step has no primary change
// mark: the two tables have always differed so.
func openMark(s results.StepResult) string {
	switch {
	case s.TargetFailed != nil:
		return " (target failed)"
	case s.Interrupted:
		return " (interrupted)"
	}
	return ""
}

// UncorrectedP99 is an open-loop step's p99 from each call's send
// (Millis), or "-" when the step has none.
func UncorrectedP99(o *results.OpenLoopStats) string {
	if o.Uncorrected == nil {
		return "-"
	}
	return Millis(o.Uncorrected.P99)
}
