package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// Summary renders the end-of-sweep table of res and what its analysis a
// (analysis.Of of res) concluded: the closed-loop steps, what the server
// and the client did in each window, the pools per host, the notes and
// warnings the counts hold, the knee of each series, the planned steps
// missing, the deployment verdict in short (deploymentsShort), the
// reader's warnings, then the open-loop steps (openSummary). A run with
// only open-loop steps gets the open-loop table alone, with the run's
// notes and warnings.
func Summary(w io.Writer, res *results.Results, a *analysis.Analysis) error {
	ew := textfmt.NewErrWriter(w)
	steps, open := splitOpen(res.Steps)
	if len(steps) == 0 {
		if len(open) > 0 || len(a.Scenarios) == 0 {
			openSummary(ew, res, a, open, true)
		}
		scenarioSummary(ew, a)
		return ew.Err
	}
	slices.SortStableFunc(steps, compareClosed)
	multiWorkload := len(res.Header.Workload.Mixes) > 1
	stepTable(ew, steps, multiWorkload)
	telemetryTable(ew, res, steps)
	hostPools(ew, steps, multiWorkload)
	routerPoolsText(ew, a.RouterPools)
	ew.Printf("\n")
	targetNotes(ew, res)
	c := a.Counts
	for _, n := range c.ShardsNotSampled {
		ew.Printf("note: %s: shards not sampled: %s; the bound was judged on what the mongos routers report\n", n.Target, textfmt.Line(n.Why))
	}
	if c.ClientBound > 0 {
		ew.Printf("WARNING: %d of %d steps were CLIENT-BOUND: this machine's CPU (poolsweep's own load or other processes), not the server, set their numbers.\n"+
			"         Run poolsweep on a quieter or larger machine, or spread it with --clients over more machines, before trusting the knee.\n", c.ClientBound, c.Steps)
	}
	for _, n := range c.Notes {
		level := "note"
		if n.Warning {
			level = "warning"
		}
		ew.Printf("%s: %s C=%d trial %d: %s\n", level, textfmt.Line(n.Step()), n.Concurrency, n.Trial, textfmt.Line(n.Text))
	}
	if c.FailedOps > 0 && c.Ops > 0 {
		ew.Printf("note: %d of %d operations failed (%.2f%%); they are counted in ops/s and latency, see errors per step\n", c.FailedOps, c.Ops, 100*c.FailedShare())
	}
	multi := slices.ContainsFunc(a.Series, func(r knee.Report) bool { return r.Workload != a.Series[0].Workload })
	for _, r := range a.Series {
		if multi { // several series per target (--mixes, --read-preference, --write-concern): say which
			r.Target += " · " + r.Workload
		}
		ew.Printf("%s\n", KneeLine(r))
	}
	for _, m := range a.Missing {
		ew.Printf("%s\n", m.Text)
	}
	_ = deploymentsShort(ew, a.Curves) // which deployment, and by how much
	_ = Replays(ew, a)                 // a replayed workload's shapes: which saturates first
	runWarnings(ew, res)
	if len(open) > 0 {
		openSummary(ew, res, a, open, false)
	}
	scenarioSummary(ew, a)
	return ew.Err
}

// scenarioSummary is a profile sweep's settings and recommendation
// (Scenarios), after a blank line; nothing without profile steps.
func scenarioSummary(ew *textfmt.ErrWriter, a *analysis.Analysis) {
	if len(a.Scenarios) > 0 {
		ew.Printf("\n")
		Scenarios(ew, a)
	}
}

// compareClosed orders closed-loop steps the way the step table lists
// them: by target, workload, concurrency, pool size and trial.
func compareClosed(a, b results.StepResult) int {
	return cmp.Or(cmp.Compare(a.Target, b.Target), cmp.Compare(a.Workload, b.Workload),
		cmp.Compare(a.Concurrency, b.Concurrency), cmp.Compare(a.MaxPoolSize, b.MaxPoolSize), cmp.Compare(a.Trial, b.Trial))
}

// stepTable prints one row per closed-loop step, with a workload column
// when the run has several mixes, and each step's marks (interrupted, a
// primary change, the target failed) after its bound.
func stepTable(ew *textfmt.ErrWriter, steps []results.StepResult, multiWorkload bool) {
	ew.Printf("\n")
	tw := newTable(ew, multiWorkload, "target\tC\tP\tK\ttrial\tconnections\tcalls/s\tops/s\tp50\tp99\terrors\tpool-wait p99\tbound\t")
	for _, s := range steps {
		if multiWorkload {
			fmt.Fprintf(tw, "%s\t", s.Workload)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", s.Target, s.Concurrency, s.MaxPoolSize, s.Clients, s.Trial, s.Connections,
			Rate(s.CallsPerS), Rate(s.OpsPerS), Millis(s.Latency.P50), Millis(s.Latency.P99), s.Errors.Total(), Millis(s.Pool.CheckoutWait.P99), orDash(s.Bound), closedMark(s))
	}
	_ = tw.Flush()
}

// closedMark is what follows a closed-loop step's bound: every mark that
// applies, interrupted, a primary change, the target failed.
func closedMark(s results.StepResult) string {
	mark := ""
	if s.Interrupted {
		mark = " (interrupted)"
	}
	if s.PrimaryChange != nil {
		mark += " (" + s.PrimaryChange.Text() + ")"
	}
	if s.TargetFailed != nil {
		mark += " (target failed)"
	}
	return mark
}

// targetNotes prints what the header says of each target (a FerretDB
// server's numbers are FerretDB's, say).
func targetNotes(ew *textfmt.ErrWriter, res *results.Results) {
	for _, h := range res.Header.Targets {
		if h.Note != "" {
			ew.Printf("note: %s: %s\n", h.Name, h.Note)
		}
	}
}

// runWarnings prints the reader's warnings, one escaped line each.
func runWarnings(ew *textfmt.ErrWriter, res *results.Results) {
	for _, warn := range res.Warnings {
		ew.Printf("warning: %s\n", textfmt.Line(warn))
	}
}

// splitOpen copies steps into the closed-loop ones and the open-loop ones.
func splitOpen(all []results.StepResult) (closed, open []results.StepResult) {
	for _, s := range all {
		if analysis.IsProfile(&s) {
			continue // a timeline, summarized by Scenarios
		}
		if analysis.IsOpen(&s) {
			open = append(open, s)
		} else {
			closed = append(closed, s)
		}
	}
	return closed, open
}
