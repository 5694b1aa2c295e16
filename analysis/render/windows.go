package render

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// telemetryTable prints what the server and the client were doing in
// each window. A value the server did not report is "n/r", and a footnote
// names the server kind, so a missing field never reads as a measured zero.
func telemetryTable(ew *textfmt.ErrWriter, res *results.Results, steps []results.StepResult) {
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
	ew.Printf("\nper window, as the server and the client saw it:\n")
	tw := newTable(ew, false, "target\tC\tP\ttrial\tserver CPU%\tserver RSS MB\tserver read µs\tserver write µs\tqueued\ttickets used/free\tserver conns\tclient CPU%\tsampler errors\t")
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
	_ = tw.Flush()
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
		ew.Printf("n/r = %s: %s (a window with no reads or writes also has no latency)\n", notReported(k), strings.Join(fields, ", "))
	}
}

// notReported is the wording for a field the server did not report, e.g.
// "not reported by ferretdb". serverKind is TargetHeader.ServerKind.
func notReported(serverKind string) string {
	if serverKind == "" {
		serverKind = "this server"
	}
	return "not reported by " + serverKind
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

// clientCPU is the load host's CPU in the window, or "-" when not sampled.
func clientCPU(s results.StepResult) string {
	if s.Client == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f", s.Client.CPUPct)
}

// hostPools prints the steps' pools per server when the clients kept
// pools to several (a replica set's members, mongos): maxPoolSize bounds
// each, so what each server took is what sizing needs.
func hostPools(ew *textfmt.ErrWriter, steps []results.StepResult, multiWorkload bool) {
	if !slices.ContainsFunc(steps, func(s results.StepResult) bool { return len(s.Pool.Hosts) > 1 }) {
		return
	}
	ew.Printf("\npools per host (maxPoolSize is per client per host; role and open at window start, most in use and checkouts in the window):\n")
	tw := newTable(ew, multiWorkload, "target\tC\tP\ttrial\thost\trole\topen\tin use\tcheckouts\tpool-wait p99\tfailed\tlost\t")
	for _, s := range steps {
		for _, h := range s.Pool.Hosts {
			if multiWorkload {
				fmt.Fprintf(tw, "%s\t", s.Workload)
			}
			fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%s\t%s\t%d\t%d\t%d\t%s\t%d\t%d\t\n", s.Target, s.Concurrency, s.MaxPoolSize, s.Trial,
				textfmt.Escape(h.Host), cmp.Or(h.Role, "-"), h.ConnectionsOpen, h.InUseMax, h.Checkouts, Millis(h.CheckoutWait.P99), h.CheckoutFailed, h.ConnectionsLost)
		}
	}
	_ = tw.Flush()
}
