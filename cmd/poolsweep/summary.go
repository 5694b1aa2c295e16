package main

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/compare/curves"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plot"
	"github.com/poolsweep/poolsweep/report"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/telemetry"
)

// writeSummary prints the end-of-sweep table of res and what its analysis
// a (analysis.Of of res) concluded: the counts, the knee of each series.
func writeSummary(w io.Writer, res *results.Results, a *analysis.Analysis) {
	steps, open := splitOpen(res.Steps)
	if len(steps) == 0 {
		writeOpenSummary(w, res, a, open, true) // an open-loop run (opensummary.go)
		return
	}
	sort.SliceStable(steps, func(i, j int) bool {
		a, b := steps[i], steps[j]
		if a.Target != b.Target {
			return a.Target < b.Target
		}
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		if a.Concurrency != b.Concurrency {
			return a.Concurrency < b.Concurrency
		}
		if a.MaxPoolSize != b.MaxPoolSize {
			return a.MaxPoolSize < b.MaxPoolSize
		}
		return a.Trial < b.Trial
	})
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	multiWorkload := len(res.Header.Workload.Mixes) > 1
	if multiWorkload {
		fmt.Fprint(tw, "workload\t")
	}
	fmt.Fprintln(tw, "target\tC\tP\tK\ttrial\tconnections\tcalls/s\tops/s\tp50\tp99\terrors\tpool-wait p99\tbound\t")
	for _, s := range steps {
		if multiWorkload {
			fmt.Fprintf(tw, "%s\t", s.Workload)
		}
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
		bound := s.Bound
		if bound == "" {
			bound = "-"
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", s.Target, s.Concurrency, s.MaxPoolSize, s.Clients, s.Trial, s.Connections,
			fmtRate(s.CallsPerS), fmtRate(s.OpsPerS), fmtMs(s.Latency.P50), fmtMs(s.Latency.P99), s.Errors.Total(), fmtMs(s.Pool.CheckoutWait.P99), bound, mark)
	}
	tw.Flush()
	writeTelemetryTable(w, res, steps)
	writeHostPools(w, steps, multiWorkload)
	fmt.Fprintln(w)
	for _, h := range res.Header.Targets {
		if h.Note != "" {
			fmt.Fprintf(w, "note: %s: %s\n", h.Name, h.Note)
		}
	}
	c := a.Counts
	for _, n := range c.ShardsNotSampled {
		fmt.Fprintf(w, "note: %s: shards not sampled: %s; the bound was judged on what the mongos routers report\n", n.Target, safeLine(n.Why))
	}
	if c.ClientBound > 0 {
		fmt.Fprintf(w, "WARNING: %d of %d steps were CLIENT-BOUND: this machine's CPU (poolsweep's own load or other processes), not the server, set their numbers.\n"+
			"         Run poolsweep on a quieter or larger machine, or spread it with --clients over more machines, before trusting the knee.\n", c.ClientBound, c.Steps)
	}
	for _, n := range c.Notes {
		level := "note"
		if n.Warning {
			level = "warning"
		}
		fmt.Fprintf(w, "%s: %s C=%d trial %d: %s\n", level, safeLine(n.Step()), n.Concurrency, n.Trial, safeLine(n.Text))
	}
	if c.FailedOps > 0 && c.Ops > 0 {
		fmt.Fprintf(w, "note: %d of %d operations failed (%.2f%%); they are counted in ops/s and latency, see errors per step\n", c.FailedOps, c.Ops, 100*c.FailedShare())
	}
	multi := slices.ContainsFunc(a.Series, func(r knee.Report) bool { return r.Workload != a.Series[0].Workload })
	for _, r := range a.Series {
		if multi { // several series per target (--mixes, --read-preference, --write-concern): say which
			r.Target += " · " + r.Workload
		}
		fmt.Fprintln(w, knee.Summary(r))
	}
	for _, m := range a.Missing {
		fmt.Fprintln(w, m.Text)
	}
	_ = curves.WriteSummary(w, a.Curves) // which deployment, and by how much
	for _, warn := range res.Warnings {
		fmt.Fprintf(w, "warning: %s\n", safeLine(warn))
	}
	if len(open) > 0 {
		writeOpenSummary(w, res, a, open, false)
	}
}

// writeArtifacts draws every applicable figure of res and its analysis a
// into dir, and report.html (with the fleet's plan when not nil).
func writeArtifacts(dir string, res *results.Results, a *analysis.Analysis, plan *fleet.Plan) error {
	r, _, err := report.New([]*results.Results{res}, a, nil)
	if err != nil {
		return err
	}
	r.Fleet = plan
	if _, err := plot.WriteFiles(dir, r.Figures); err != nil {
		return err
	}
	return r.Write(filepath.Join(dir, "report.html"), report.HTML)
}

// writeTelemetryTable prints what the server and the client were doing in
// each window. A value the server did not report is "n/r", and a footnote
// names the server kind, so a missing field never reads as a measured zero.
func writeTelemetryTable(w io.Writer, res *results.Results, steps []results.StepResult) {
	sampled := false
	for _, s := range steps {
		sampled = sampled || s.Server != nil || s.Client != nil
	}
	if !sampled {
		return
	}
	kinds := map[string]string{}
	for _, h := range res.Header.Targets {
		kinds[h.Name] = h.ServerKind
	}
	missing := map[string]map[string]bool{} // server kind → fields it did not report
	miss := func(target, field string) string {
		k := kinds[target]
		if missing[k] == nil {
			missing[k] = map[string]bool{}
		}
		missing[k][field] = true
		return "n/r"
	}
	num := func(target, field string, v *float64, format string) string {
		if v == nil {
			return miss(target, field)
		}
		return fmt.Sprintf(format, *v)
	}
	fmt.Fprintln(w, "\nper window, as the server and the client saw it:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "target\tC\tP\ttrial\tserver CPU%\tserver RSS MB\tserver read µs\tserver write µs\tqueued\ttickets used/free\tserver conns\tclient CPU%\tsampler errors\t")
	multiWorkload := len(res.Header.Workload.Mixes) > 1
	for _, s := range steps {
		t := s.Target
		if multiWorkload { // which series: the step table's workload column
			t += " · " + s.Workload
		}
		if s.Server == nil {
			// The sampler never ran: nothing to blame on the server.
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t, s.Concurrency, s.MaxPoolSize, s.Trial,
				"not sampled", "-", "-", "-", "-", "-", "-", clientCPU(s), "-")
			continue
		}
		errs := fmt.Sprint(s.Server.SamplerErrors)
		tot := s.Server.Total
		if tot == nil {
			tot = &results.ServerSample{}
		}
		// A cluster's queues and tickets are its shards': the routers have none.
		shardsOrHosts := tot
		if s.Server.ShardTotal != nil {
			shardsOrHosts = s.Server.ShardTotal
		}
		queued := "n/r"
		if q := shardsOrHosts.Queued(); q != nil {
			queued = fmt.Sprintf("%.1f", *q)
		}
		tickets := ticketsText(shardsOrHosts.Tickets)
		conns := "n/r"
		if c := tot.Connections; c != nil && c.Current != nil {
			conns = fmt.Sprintf("%.0f", *c.Current)
		}
		for field, v := range map[string]string{"queue": queued, "tickets": tickets, "connections": conns} {
			if v == "n/r" {
				miss(t, field)
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", t, s.Concurrency, s.MaxPoolSize, s.Trial,
			num(t, "CPU", tot.CPUPct, "%.0f"), num(t, "RSS", tot.RSSMB, "%.0f"),
			num(t, "read latency", tot.ReadLatencyUS, "%.0f"), num(t, "write latency", tot.WriteLatencyUS, "%.0f"),
			queued, tickets, conns, clientCPU(s), errs)
	}
	tw.Flush()
	kindNames := make([]string, 0, len(missing))
	for k := range missing {
		kindNames = append(kindNames, k)
	}
	sort.Strings(kindNames)
	for _, k := range kindNames {
		var fields []string
		for f := range missing[k] {
			fields = append(fields, f)
		}
		if len(fields) == 0 {
			continue
		}
		sort.Strings(fields)
		fmt.Fprintf(w, "n/r = %s: %s (a window with no reads or writes also has no latency)\n", telemetry.NotReported(k), strings.Join(fields, ", "))
	}
}

// ticketsText is the tickets in use and free per side ("r 3.0/5.0 w
// 8.0/0.0"), or "n/r"; the sides are separate pools and are never added.
func ticketsText(tk *results.TicketCounts) string {
	var parts []string
	for _, side := range []struct {
		name string
		ts   *results.TicketSide
	}{{"r", tk.Side(true)}, {"w", tk.Side(false)}} {
		if side.ts != nil && side.ts.InUse != nil && side.ts.Available != nil {
			parts = append(parts, fmt.Sprintf("%s %.1f/%.1f", side.name, *side.ts.InUse, *side.ts.Available))
		}
	}
	if len(parts) == 0 {
		if tk != nil && tk.InUse != nil && tk.Available != nil {
			return fmt.Sprintf("%.1f/%.1f", *tk.InUse, *tk.Available) // a file from before per-side tickets
		}
		return "n/r"
	}
	return strings.Join(parts, " ")
}

func clientCPU(s results.StepResult) string {
	if s.Client == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", s.Client.CPUPct)
}

// writeHostPools prints the steps' pools per server when the clients kept
// pools to several (a replica set's members, mongos): maxPoolSize bounds
// each, so what each server took is what sizing needs.
func writeHostPools(w io.Writer, steps []results.StepResult, multiWorkload bool) {
	if !slices.ContainsFunc(steps, func(s results.StepResult) bool { return len(s.Pool.Hosts) > 1 }) {
		return
	}
	fmt.Fprintln(w, "\npools per host (maxPoolSize is per client per host; role and open at window start, most in use and checkouts in the window):")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	if multiWorkload {
		fmt.Fprint(tw, "workload\t")
	}
	fmt.Fprintln(tw, "target\tC\tP\ttrial\thost\trole\topen\tin use\tcheckouts\tpool-wait p99\tfailed\tlost\t")
	for _, s := range steps {
		for _, h := range s.Pool.Hosts {
			if multiWorkload {
				fmt.Fprintf(tw, "%s\t", s.Workload)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t\n", s.Target, s.Concurrency, s.MaxPoolSize, s.Trial,
				textfmt.Escape(h.Host), cmp.Or(h.Role, "-"), h.ConnectionsOpen, h.InUseMax, h.Checkouts, fmtMs(h.CheckoutWait.P99), h.CheckoutFailed, h.ConnectionsLost)
		}
	}
	tw.Flush()
}
