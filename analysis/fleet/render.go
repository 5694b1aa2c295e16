package fleet

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Formats the plan renders in.
const (
	FormatText     = "text"
	FormatMarkdown = "markdown"
	FormatJSON     = "json"
)

// Write renders the plan in format (text, markdown or json).
func (p *Plan) Write(w io.Writer, format string) error {
	switch format {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(p)
	case FormatMarkdown:
		return p.write(w, true)
	case FormatText, "":
		return p.write(w, false)
	}
	return fmt.Errorf("format %q: want text, markdown or json", format)
}

// tableHead is the table's columns.
var tableHead = []string{"maxPoolSize", "conns/host", "% limit", "MiB/host", "in flight/host", "ops/s", "ms in conn", "pool queue", "pool wait ms", "note"}

func (p *Plan) write(w io.Writer, md bool) error {
	ew := textfmt.NewErrWriter(w)
	for i, s := range p.Series {
		if i > 0 {
			ew.Printf("\n")
		}
		s.write(ew, p, md)
	}
	for i, o := range p.Open {
		if i > 0 || len(p.Series) > 0 {
			ew.Printf("\n")
		}
		o.write(ew, p, md)
	}
	return ew.Err
}

func heading(w io.Writer, md bool, s string) {
	if md {
		fmt.Fprintf(w, "### %s\n\n", s)
		return
	}
	fmt.Fprintf(w, "%s\n", s)
}

func bullet(w io.Writer, md bool, s string) {
	if md {
		fmt.Fprintf(w, "- %s\n", s)
		return
	}
	fmt.Fprintf(w, "  - %s\n", strings.TrimPrefix(textfmt.Indent(textfmt.Wrap(s, 92), "    "), "    "))
}

func (s SeriesPlan) write(w io.Writer, p *Plan, md bool) {
	name := textfmt.Escape(s.Target)
	if s.Workload != "" {
		name += " (workload " + textfmt.Escape(s.Workload) + ", pool " + textfmt.Escape(s.Pool) + ")"
	}
	heading(w, md, fmt.Sprintf("fleet of %s: %s, %s", instancesText(p.Instances), name, topoText(s.Topology)))
	knee := fmt.Sprintf("knee: concurrency %d per client × %d client(s) = %.0f calls in flight, %.0f ops/s (%s confidence); %.0f per host over %d serving host(s): %s",
		s.KneeConcurrency, s.MeasuredClients, s.KneeInFlight, s.KneeOpsPerS, s.KneeConfidence, s.KneePerHost, s.Serving, textfmt.Escape(s.Why))
	bullet(w, md, knee)
	bullet(w, md, fmt.Sprintf("demand: %d callers per instance (%s); connections per host count %d monitoring connections per instance", s.Demand, s.DemandSource, MonitoringPerInstance))
	lim := "connection limit per host: unknown (" + s.Limit.Source + ")"
	if s.Limit.PerHost != nil {
		lim = fmt.Sprintf("connection limit per host: %d (%s); memory at %.3g MiB per connection", *s.Limit.PerHost, s.Limit.Source, p.ConnMemoryMiB)
	}
	bullet(w, md, lim)
	for _, rp := range s.RouterPools {
		bullet(w, md, fmt.Sprintf("mongos %s → shards at the knee (connPoolStats): %s in use, %s created in the window", textfmt.Escape(rp.Router), numText(rp.InUse), numText(rp.Created)))
	}
	fmt.Fprintln(w)
	cells := [][]string{}
	for _, r := range s.Rows {
		note := []string{}
		if r.MaxPoolSize == s.Recommended.MaxPoolSize {
			note = append(note, "recommended")
		}
		if r.PastKnee {
			note = append(note, "past the knee")
		}
		if r.OverLimit {
			note = append(note, "over the limit")
		}
		if r.Extrapolated {
			note = append(note, "beyond the measured range")
		}
		pct := "—"
		if r.LimitPct != nil {
			pct = pctText(*r.LimitPct)
		}
		cells = append(cells, []string{
			fmt.Sprint(r.MaxPoolSize), fmt.Sprint(r.ConnectionsPerHost), pct, fmt.Sprintf("%.0f", r.MemoryMiBPerHost),
			fmt.Sprintf("%.0f", r.InFlightPerHost), fmt.Sprintf("%.0f", r.OpsPerS), fmt.Sprintf("%.2f", r.ConnTimeMs),
			fmt.Sprintf("%.0f", r.PoolQueue), fmt.Sprintf("%.2f", r.PoolWaitMs), strings.Join(note, ", "),
		})
	}
	table(w, md, cells)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "recommendation: %s\n", s.Recommended.Statement)
	if md {
		fmt.Fprintln(w)
	}
	for _, r := range s.Recommended.Reasons {
		bullet(w, md, r)
	}
	for _, warn := range s.Warnings {
		bullet(w, md, "warning: "+textfmt.Escape(warn))
	}
}

func (o OpenPlan) write(w io.Writer, p *Plan, md bool) {
	name := textfmt.Escape(o.Target)
	if o.Workload != "" {
		name += " (workload " + textfmt.Escape(o.Workload) + ")"
	}
	heading(w, md, fmt.Sprintf("fleet of %s, open loop: %s, %s", instancesText(p.Instances), name, topoText(o.Topology)))
	fmt.Fprintf(w, "recommendation: %s\n", o.Recommended.Statement)
	if md {
		fmt.Fprintln(w)
	}
	for _, r := range o.Recommended.Reasons {
		bullet(w, md, r)
	}
	bullet(w, md, "serving hosts: "+textfmt.Escape(o.Why))
	for _, warn := range o.Warnings {
		bullet(w, md, "warning: "+warn)
	}
}

// table writes cells under tableHead: aligned columns, or a Markdown table.
func table(w io.Writer, md bool, cells [][]string) {
	if md {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(tableHead, " | "), strings.Repeat("---|", len(tableHead)))
		for _, c := range cells {
			fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// The note, last, is left out of the aligned columns: left-aligned.
	for _, c := range append([][]string{tableHead}, cells...) {
		line := strings.Join(c[:len(c)-1], "\t") + "\t"
		if note := c[len(c)-1]; note != "" {
			line += "  " + note
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()
}

func topoText(t string) string {
	if t == "" {
		return "topology unknown"
	}
	return t
}

func numText(v *float64) string {
	if v == nil {
		return "not reported"
	}
	return fmt.Sprintf("%.0f", *v)
}
