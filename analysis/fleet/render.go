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

// TableHead is the columns of a series' table.
var TableHead = []string{"maxPoolSize", "conns/host", "% limit", "MiB/host", "in flight/host", "ops/s", "ms in conn", "pool queue", "pool wait ms", "note"}

// Section is one part of the plan as every rendering shows it (text and
// Markdown here, the report's HTML and Markdown): a heading, the facts the
// plan starts from, the table (TableHead; none for the rate form), the
// recommendation with its reasons, the connection setup a storm run adds,
// and the warnings. Names from the results are escaped for a terminal.
type Section struct {
	Heading        string
	Facts          []string
	Rows           [][]string
	Recommendation string
	Reasons        []string
	Setup          []string
	Warnings       []string
}

// Sections are the plan's parts, series first, then the rate forms.
func (p *Plan) Sections() []Section {
	var out []Section
	for _, s := range p.Series {
		out = append(out, s.section(p))
	}
	for _, o := range p.Open {
		out = append(out, o.section(p))
	}
	return out
}

func (p *Plan) write(w io.Writer, md bool) error {
	ew := textfmt.NewErrWriter(w)
	for i, s := range p.Sections() {
		if i > 0 {
			ew.Printf("\n")
		}
		s.write(ew, md)
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

// write renders a section as text or Markdown.
func (s Section) write(w io.Writer, md bool) {
	heading(w, md, s.Heading)
	for _, f := range s.Facts {
		bullet(w, md, f)
	}
	switch {
	case len(s.Rows) > 0:
		fmt.Fprintln(w)
		table(w, md, s.Rows)
		fmt.Fprintln(w)
	case len(s.Facts) > 0:
		fmt.Fprintln(w) // the recommendation is not the last fact's continuation
	}
	fmt.Fprintf(w, "recommendation: %s\n", s.Recommendation)
	if md {
		fmt.Fprintln(w)
	}
	for _, r := range s.Reasons {
		bullet(w, md, r)
	}
	for _, r := range s.Setup {
		bullet(w, md, r)
	}
	for _, warn := range s.Warnings {
		bullet(w, md, "warning: "+warn)
	}
}

func (s SeriesPlan) section(p *Plan) Section {
	name := textfmt.Escape(s.Target)
	if s.Workload != "" {
		name += " (workload " + textfmt.Escape(s.Workload) + ", pool " + textfmt.Escape(s.Pool) + ")"
	}
	sec := Section{Heading: fmt.Sprintf("fleet of %s: %s, %s", instancesText(p.Instances), name, topoText(s.Topology))}
	sec.Facts = append(sec.Facts, fmt.Sprintf("knee: concurrency %d per client × %d client(s) = %.0f calls in flight, %.0f ops/s (%s confidence); %.0f per host over %d serving host(s): %s",
		s.KneeConcurrency, s.MeasuredClients, s.KneeInFlight, s.KneeOpsPerS, s.KneeConfidence, s.KneePerHost, s.Serving, textfmt.Escape(s.Why)))
	sec.Facts = append(sec.Facts, s.Setup.facts()...)
	sec.Facts = append(sec.Facts, fmt.Sprintf("demand: %d callers per instance (%s); connections per host count %d monitoring connections per instance", s.Demand, s.DemandSource, monitoringPerInstance))
	lim := "connection limit per host: unknown (" + s.Limit.Source + ")"
	if s.Limit.PerHost != nil {
		lim = fmt.Sprintf("connection limit per host: %d (%s); memory at %.3g MiB per connection", *s.Limit.PerHost, s.Limit.Source, p.ConnMemoryMiB)
	}
	sec.Facts = append(sec.Facts, lim)
	for _, rp := range s.RouterPools {
		sec.Facts = append(sec.Facts, fmt.Sprintf("mongos %s → shards at the knee (connPoolStats): %s in use, %s created in the window", textfmt.Escape(rp.Router), numText(rp.InUse), numText(rp.Created)))
	}
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
		sec.Rows = append(sec.Rows, []string{
			fmt.Sprint(r.MaxPoolSize), fmt.Sprint(r.ConnectionsPerHost), pct, fmt.Sprintf("%.0f", r.MemoryMiBPerHost),
			fmt.Sprintf("%.0f", r.InFlightPerHost), fmt.Sprintf("%.0f", r.OpsPerS), fmt.Sprintf("%.2f", r.ConnTimeMs),
			fmt.Sprintf("%.0f", r.PoolQueue), fmt.Sprintf("%.2f", r.PoolWaitMs), strings.Join(note, ", "),
		})
	}
	sec.Recommendation, sec.Reasons = s.Recommended.Statement, s.Recommended.Reasons
	sec.Setup = s.Setup.lines(p.Instances, s.Recommended.MaxPoolSize)
	for _, warn := range s.Warnings {
		sec.Warnings = append(sec.Warnings, textfmt.Escape(warn))
	}
	return sec
}

func (o OpenPlan) section(p *Plan) Section {
	name := textfmt.Escape(o.Target)
	if o.Workload != "" {
		name += " (workload " + textfmt.Escape(o.Workload) + ")"
	}
	sec := Section{Heading: fmt.Sprintf("fleet of %s, open loop: %s, %s", instancesText(p.Instances), name, topoText(o.Topology)),
		Facts: o.Setup.facts(), Recommendation: o.Recommended.Statement}
	sec.Reasons = append(append(sec.Reasons, o.Recommended.Reasons...), "serving hosts: "+textfmt.Escape(o.Why))
	sec.Setup = o.Setup.lines(p.Instances, o.Recommended.MaxPoolSize)
	sec.Warnings = o.Warnings
	return sec
}

// table writes cells under TableHead: aligned columns, or a Markdown table.
func table(w io.Writer, md bool, cells [][]string) {
	if md {
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(TableHead, " | "), strings.Repeat("---|", len(TableHead)))
		for _, c := range cells {
			fmt.Fprintf(w, "| %s |\n", strings.Join(c, " | "))
		}
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// The note, last, is left out of the aligned columns: left-aligned.
	for _, c := range append([][]string{TableHead}, cells...) {
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
