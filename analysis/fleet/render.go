package fleet

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
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
	sec.Facts = append(sec.Facts, fmt.Sprintf("demand: %d callers per instance (%s)", s.Demand, s.DemandSource))
	sec.Facts = append(sec.Facts, fmt.Sprintf("monitors: connections per host count %d monitoring connection(s) per instance beside its pool (%s)", s.Monitors, textfmt.Escape(s.MonitorsSource)))
	sec.Facts = append(sec.Facts, limitFact(p, s.Limit, s.FitPool, s.Monitors), memoryFact(p.Memory))
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
	if c := p.CPU; c != nil {
		conns := float64(s.Recommended.ConnectionsPerHost)
		sec.Reasons = append(slices.Clip(sec.Reasons), fmt.Sprintf("idle, the %.0f connections per host cost the server %.3g ms of CPU per second (%.3g %% of a core; %.3g µs/s each, %.3g to %.3g, %s)",
			conns, conns*c.USPerS/1000, conns*c.USPerS/1e4, c.USPerS, c.Low, c.High, textfmt.Escape(c.Source)))
	}
	if h := len(s.Hosts); h > 1 {
		pool := s.Recommended.MaxPoolSize
		sec.Reasons = append(slices.Clip(sec.Reasons), fmt.Sprintf("each instance opens at most (%d + %d) × %d hosts = %d connections, the manual's (maxPoolSize + 2) × members with the monitors as measured or by version: a pool to a host it sends nothing to stays empty unless minPoolSize fills it",
			pool, s.Monitors, h, (pool+s.Monitors)*h))
	}
	sec.Setup = append(s.Setup.lines(p.Instances, s.Recommended.MaxPoolSize, s.Monitors), s.Scaling.lines()...)
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
	sec.Reasons = append(sec.Reasons, fmt.Sprintf("monitors: %d per instance per host (%s)", o.Monitors, textfmt.Escape(o.MonitorsSource)),
		limitFact(p, o.Limit, o.FitPool, o.Monitors), memoryFact(p.Memory))
	sec.Setup = o.Setup.lines(p.Instances, o.Recommended.MaxPoolSize, o.Monitors)
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

// limitFact says the limit per host, where it comes from, and the
// largest pool that fits it with the monitors counted.
func limitFact(p *Plan, l Limit, fit *int, monitors int) string {
	if l.PerHost == nil {
		return "connection limit per host: unknown (" + textfmt.Escape(l.Source) + ")"
	}
	s := fmt.Sprintf("connection limit per host: %d (%s)", *l.PerHost, textfmt.Escape(l.Source))
	switch {
	case fit == nil:
	case *fit < 1:
		s += fmt.Sprintf("; %s with %d monitoring connection(s) each do not fit it even at maxPoolSize 1", instancesText(p.Instances), monitors)
	default:
		s += fmt.Sprintf("; the largest maxPoolSize within it is %d: %d × (%d + %d monitoring) = %d connections per host", *fit, p.Instances, *fit, monitors, p.Instances*(*fit+monitors))
	}
	return s
}

// memoryFact says the memory per connection and where it comes from.
func memoryFact(m Memory) string {
	return fmt.Sprintf("memory per connection: %.3g MiB, %s", m.MiB, textfmt.Escape(m.Source))
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
