package main

import (
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// splitOpen copies steps into the closed-loop ones and the open-loop ones.
func splitOpen(all []results.StepResult) (closed, open []results.StepResult) {
	for _, s := range all {
		if analysis.IsOpen(&s) {
			open = append(open, s)
		} else {
			closed = append(closed, s)
		}
	}
	return closed, open
}

// writeOpenSummary prints the open-loop steps and their analysis: offered
// against achieved, dropped arrivals, calls in flight, corrected and
// uncorrected latency and the share of it spent waiting for the pool.
// alone says the run has no closed-loop steps, so the run's notes and
// warnings are printed here.
func writeOpenSummary(w io.Writer, res *results.Results, a *analysis.Analysis, steps []results.StepResult, alone bool) {
	sort.SliceStable(steps, func(i, j int) bool { return results.CompareOpenSteps(&steps[i], &steps[j]) < 0 })
	fmt.Fprintln(w, "\nopen loop (latency from each call's intended start; uncorrected: from its send):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\trate/s\tP\tK\ttrial\tconnections\toffered/s\tachieved/s\tdropped\tin flight\tp50\tp99\tuncorrected p99\tpool wait\terrors\tbound\t")
	for _, s := range steps {
		o := s.Open
		unc := "-"
		if o.Uncorrected != nil {
			unc = fmtMs(o.Uncorrected.P99)
		}
		bound := s.Bound
		if bound == "" {
			bound = "-"
		}
		mark := ""
		if s.Interrupted {
			mark = " (interrupted)"
		}
		if s.TargetFailed != nil {
			mark = " (target failed)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%d\t%.1f/%d\t%s\t%s\t%s\t%.0f%%\t%d\t%s\t%s\n", s.Target, s.Rate, s.MaxPoolSize, s.Clients, s.Trial, s.Connections,
			fmtRate(o.OfferedPerS), fmtRate(o.AchievedPerS), o.Dropped, o.InFlightMean, o.InFlightMax, fmtMs(o.Corrected.P50), fmtMs(o.Corrected.P99), unc,
			100*o.PoolWaitShare(), s.Errors.Total(), bound, mark)
	}
	tw.Flush()
	fmt.Fprintln(w)
	if alone {
		for _, h := range res.Header.Targets {
			if h.Note != "" {
				fmt.Fprintf(w, "note: %s: %s\n", h.Name, h.Note)
			}
		}
	}
	if c := a.Counts; c.Behind > 0 {
		fmt.Fprintf(w, "WARNING: in %d of %d open-loop steps this machine fell behind its arrival schedule: part of their latency is the client's.\n"+
			"         Run poolsweep on more (or larger) client machines, or offer lower rates per process, before trusting them.\n", c.Behind, c.OpenSteps)
	}
	for _, r := range a.Open {
		fmt.Fprintln(w, knee.OpenSummary(r))
	}
	if alone {
		for _, warn := range res.Warnings {
			fmt.Fprintf(w, "warning: %s\n", safeLine(warn))
		}
	}
}

// levelText names a step's level: "C=64", or "rate=2000/s" for an open
// loop.
func levelText(concurrency, rate int) string {
	if rate > 0 {
		return fmt.Sprintf("rate=%d/s", rate)
	}
	return fmt.Sprintf("C=%d", concurrency)
}

// openProgress is what an open-loop step adds to its progress line.
func openProgress(s results.StepResult) string {
	if s.Open == nil {
		return ""
	}
	return fmt.Sprintf(", offered %s/s, dropped %d, p99 uncorrected %s", fmtRate(s.Open.OfferedPerS), s.Open.Dropped, uncorrectedP99(s.Open))
}

func uncorrectedP99(o *results.OpenLoopStats) string {
	if o.Uncorrected == nil {
		return "-"
	}
	return fmtMs(o.Uncorrected.P99)
}
