package render

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/analysis/curves"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Deployments renders the deployment verdicts for people, as analyze
// and compare print them: per comparison its peaks, ratios, knees,
// latency at matched throughput, the crossover, the seeds' table and the
// verdict.
func Deployments(w io.Writer, cs []*curves.Comparison) error {
	ew := textfmt.NewErrWriter(w)
	for i, c := range cs {
		if i > 0 {
			ew.Printf("\n")
		}
		writeDeployment(ew, c)
	}
	return ew.Err
}

// writeDeployment prints one comparison in full (Deployments).
func writeDeployment(ew *textfmt.ErrWriter, c *curves.Comparison) {
	b, cn := textfmt.Escape(c.Base.Name), textfmt.Escape(c.Cand.Name)
	ew.Printf("deployments: %s\n", c.Title())
	ew.Printf("  peak:       %s %s; %s %s\n", b, peakText(c.BasePeak, c.Base.Deployment), cn, peakText(c.CandPeak, c.Cand.Deployment))
	ew.Printf("  ratio:      %s %s/%s", intervalText(c.PeakRatio), cn, b)
	if c.PerNodeRatio.Value > 0 {
		ew.Printf("; per node %s (%d against %d)", intervalText(c.PerNodeRatio), c.Cand.Deployment.Nodes, c.Base.Deployment.Nodes)
	}
	ew.Printf("\n  knee:       %s %s; %s %s", b, kneeText(c.BaseKnee, c.Base.Deployment), cn, kneeText(c.CandKnee, c.Cand.Deployment))
	if c.KneeConnRatio > 0 {
		ew.Printf("; connections per host ×%s", curves.Ratio(c.KneeConnRatio))
	}
	ew.Printf("\n")
	if len(c.Matched) > 0 {
		ew.Printf("  latency at matched throughput (p50 / p99 ms, p99 range):\n")
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintf(tw, "    ops/s\t%s\t%s\tfaster\t\n", b, cn)
		for _, m := range c.Matched {
			fmt.Fprintf(tw, "    %s\t%s\t%s\t%s\t\n", textfmt.Thousands(m.OpsPerS), latText(m.Base), latText(m.Cand), orTilde(textfmt.Escape(m.Better)))
		}
		_ = tw.Flush()
	}
	ew.Printf("  crossover:  %s\n", crossText(c))
	writeSeedTable(ew, c, "  ")
	for _, n := range c.Notes {
		ew.Printf("  note: %s\n", textfmt.Escape(n))
	}
	ew.Printf("  verdict: %s\n", c.Verdict)
}

// writeSeedTable prints the seeds' table: connections per client × clients,
// then each side's ops/s and calls/s.
func writeSeedTable(ew *textfmt.ErrWriter, c *curves.Comparison, indent string) {
	if len(c.Table) == 0 {
		return
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%sconnections\t%s ops/s\tcalls/s\t%s ops/s\tcalls/s\t\n", indent, textfmt.Escape(c.Base.Name), textfmt.Escape(c.Cand.Name))
	for _, r := range c.Table {
		fmt.Fprintf(tw, "%s%d (×%d)\t%s\t%s\t\n", indent, r.PerClient, r.Clients, cellText(r.Base), cellText(r.Cand))
	}
	_ = tw.Flush()
}

func cellText(c *curves.Cell) string {
	if c == nil {
		return "-\t-"
	}
	calls := "-"
	if c.CallsPerS > 0 {
		calls = textfmt.Thousands(c.CallsPerS)
	}
	return textfmt.Thousands(c.OpsPerS) + "\t" + calls
}

func peakText(p curves.Peak, d curves.Deployment) string {
	return fmt.Sprintf("%s ops/s at C=%d (%s)", intervalOps(p.OpsPerS), p.Concurrency, curves.Describe(d))
}

func intervalOps(i curves.Interval) string {
	s := textfmt.Thousands(i.Value)
	if i.Has() {
		s += " [" + textfmt.Thousands(*i.Low) + ", " + textfmt.Thousands(*i.High) + "]"
	}
	return s
}

func intervalText(i curves.Interval) string {
	s := curves.Ratio(i.Value) + "×"
	if i.Has() {
		s += " [" + curves.Ratio(*i.Low) + ", " + curves.Ratio(*i.High) + "]"
	} else {
		s += " (no interval)"
	}
	return s
}

func kneeText(k curves.KneeAt, d curves.Deployment) string {
	if !k.Found {
		return "no knee within the tested range"
	}
	s := fmt.Sprintf("C=%d (%s confidence", k.Concurrency, k.Confidence)
	if k.PerHost > 0 {
		s += fmt.Sprintf(", %d connections per %s", k.PerHost, curves.HostWord(d))
	}
	return s + ", server CPU " + cpuText(k.CPUPerOpUS) + ")"
}

func cpuText(v *float64) string {
	if v == nil {
		return "per op not reported"
	}
	return strconv.FormatFloat(*v, 'f', 0, 64) + " µs/op"
}

func latText(l curves.Latency) string {
	if l.P99Low == 0 && math.IsInf(l.P99High, 1) {
		return fmt.Sprintf("%s / %s (no interval)", textfmt.Ms(l.P50Ms), textfmt.Ms(l.P99Ms))
	}
	return fmt.Sprintf("%s / %s [%s, %s]", textfmt.Ms(l.P50Ms), textfmt.Ms(l.P99Ms), textfmt.Ms(l.P99Low), msOrInf(l.P99High))
}

func msOrInf(v float64) string {
	if math.IsInf(v, 1) {
		return "∞"
	}
	return textfmt.Ms(v)
}

func orTilde(s string) string {
	if s == "" {
		return "~"
	}
	return s
}

func crossText(c *curves.Comparison) string {
	x := c.Crossover
	switch {
	case x == nil && len(c.Matched) == 0:
		return "not tested: no throughput lies on both sides' measured rising curves (from each side's lowest level to its peak)"
	case x == nil:
		return "none: neither is significantly faster at matched throughput, nor carries significantly more"
	case x.Everywhere:
		return textfmt.Escape(x.Better) + " is significantly faster at every matched throughput"
	case x.AtPeak:
		return fmt.Sprintf("beyond %s ops/s (the other's peak) only %s carries the load; below, neither is significantly faster throughout", textfmt.Thousands(x.OpsPerS), textfmt.Escape(x.Better))
	}
	return fmt.Sprintf("from %s ops/s on %s is significantly better", textfmt.Thousands(x.OpsPerS), textfmt.Escape(x.Better))
}

// DeploymentsMarkdown renders the deployment verdicts as Markdown
// sections, as compare --format markdown prints them: the verdict, the
// figures, the latency at matched throughput and the seeds' table.
func DeploymentsMarkdown(w io.Writer, cs []*curves.Comparison) error {
	ew := textfmt.NewErrWriter(w)
	for _, c := range cs {
		b, cn := md(c.Base.Name), md(c.Cand.Name)
		ew.Printf("### Deployments: %s\n\n%s\n\n", md(c.Title()), md(c.Verdict))
		ew.Printf("| | %s | %s |\n|---|--:|--:|\n", b, cn)
		ew.Printf("| deployment | %s | %s |\n", md(curves.Describe(c.Base.Deployment)), md(curves.Describe(c.Cand.Deployment)))
		ew.Printf("| peak ops/s | %s at C=%d | %s at C=%d |\n", intervalOps(c.BasePeak.OpsPerS), c.BasePeak.Concurrency, intervalOps(c.CandPeak.OpsPerS), c.CandPeak.Concurrency)
		ew.Printf("| knee | %s | %s |\n\n", md(kneeText(c.BaseKnee, c.Base.Deployment)), md(kneeText(c.CandKnee, c.Cand.Deployment)))
		ew.Printf("Peak ratio %s/%s: %s", cn, b, intervalText(c.PeakRatio))
		if c.PerNodeRatio.Value > 0 {
			ew.Printf("; per node %s", intervalText(c.PerNodeRatio))
		}
		ew.Printf(". Crossover: %s.\n", md(crossText(c)))
		if len(c.Matched) > 0 {
			ew.Printf("\n| ops/s | %s p50 / p99 ms | %s p50 / p99 ms | faster |\n|--:|--:|--:|---|\n", b, cn)
			for _, m := range c.Matched {
				ew.Printf("| %s | %s | %s | %s |\n", textfmt.Thousands(m.OpsPerS), latText(m.Base), latText(m.Cand), md(orTilde(m.Better)))
			}
		}
		if len(c.Table) > 0 {
			ew.Printf("\n| connections | %s ops/s | calls/s | %s ops/s | calls/s |\n|--:|--:|--:|--:|--:|\n", b, cn)
			for _, r := range c.Table {
				ew.Printf("| %d (×%d) | %s |\n", r.PerClient, r.Clients, strings.ReplaceAll(cellText(r.Base)+"\t"+cellText(r.Cand), "\t", " | "))
			}
		}
		for _, n := range c.Notes {
			ew.Printf("\n- note: %s\n", md(n))
		}
		ew.Printf("\n")
	}
	return ew.Err
}

func md(s string) string { return strings.ReplaceAll(textfmt.Escape(s), "|", `\|`) }

// DeploymentFacts are a comparison's figures as label and value, for a
// report's table: each side's deployment, peak and knee, the ratios and
// the crossover.
func DeploymentFacts(c *curves.Comparison) [][2]string {
	b, cn := c.Base.Name, c.Cand.Name
	f := [][2]string{
		{"peak: " + b, peakText(c.BasePeak, c.Base.Deployment)},
		{"peak: " + cn, peakText(c.CandPeak, c.Cand.Deployment)},
		{"peak ratio " + cn + "/" + b, intervalText(c.PeakRatio)},
	}
	if c.PerNodeRatio.Value > 0 {
		f = append(f, [2]string{"per node", intervalText(c.PerNodeRatio)})
	}
	f = append(f, [2]string{"knee: " + b, kneeText(c.BaseKnee, c.Base.Deployment)}, [2]string{"knee: " + cn, kneeText(c.CandKnee, c.Cand.Deployment)})
	if c.KneeConnRatio > 0 {
		f = append(f, [2]string{"connections per host at the knees", "×" + curves.Ratio(c.KneeConnRatio)})
	}
	return append(f, [2]string{"crossover", crossText(c)})
}

// MatchedTable is a comparison's latency at matched throughput as a head
// and rows of cells.
func MatchedTable(c *curves.Comparison) ([]string, [][]string) {
	head := []string{"ops/s", c.Base.Name + " p50 / p99 ms", c.Cand.Name + " p50 / p99 ms", "faster"}
	var rows [][]string
	for _, m := range c.Matched {
		rows = append(rows, []string{textfmt.Thousands(m.OpsPerS), latText(m.Base), latText(m.Cand), orTilde(m.Better)})
	}
	return head, rows
}

// SeedTable is a comparison's seeds' table (connections per client ×
// clients, each side's ops/s and calls/s) as a head and rows of cells.
func SeedTable(c *curves.Comparison) ([]string, [][]string) {
	head := []string{"connections", c.Base.Name + " ops/s", "calls/s", c.Cand.Name + " ops/s", "calls/s"}
	var rows [][]string
	for _, r := range c.Table {
		cells := strings.Split(cellText(r.Base)+"\t"+cellText(r.Cand), "\t")
		rows = append(rows, append([]string{fmt.Sprintf("%d (×%d)", r.PerClient, r.Clients)}, cells...))
	}
	return head, rows
}

// deploymentsShort is the deployment verdicts in short, for a sweep's
// summary: per comparison its title, the seeds' table and the verdict.
func deploymentsShort(w io.Writer, cs []*curves.Comparison) error {
	ew := textfmt.NewErrWriter(w)
	for _, c := range cs {
		ew.Printf("\ndeployments: %s\n", c.Title())
		writeSeedTable(ew, c, "  ")
		ew.Printf("  verdict: %s\n", c.Verdict)
	}
	return ew.Err
}
