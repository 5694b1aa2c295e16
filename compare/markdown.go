package compare

import (
	"io"
	"strings"

	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// WriteMarkdown renders the verdicts, then one table in the shape of the
// study's (a row per matched step, a column per measured metric), then the
// unmatched steps and the method.
func WriteMarkdown(w io.Writer, c *Comparison) error {
	ew := textfmt.NewErrWriter(w)
	ew.Printf("## A/B comparison\n\n")
	ew.Printf("- baseline: %s\n", mdEscape(sideLine(c.Baseline)))
	ew.Printf("- candidate: %s\n", mdEscape(sideLine(c.Candidate)))
	for _, n := range c.Notes {
		ew.Printf("- note: %s\n", mdEscape(n))
	}
	ew.Printf("\n### Verdict\n\n")
	for _, v := range c.Verdicts {
		ew.Printf("- %s\n", mdEscape(v.Text))
	}
	for _, cc := range c.Curves {
		ew.Printf("- %s\n", mdEscape(cc.Verdict))
	}
	if len(c.Curves) > 0 {
		ew.Printf("\n")
		if err := render.DeploymentsMarkdown(ew, c.Curves); err != nil {
			return err
		}
	}
	if len(c.Steps) == 0 {
		return ew.Err
	}
	var cols []string
	for _, name := range metricNames {
		if measured(c, name) {
			cols = append(cols, name)
		}
	}
	ew.Printf("\n### Steps\n\n| target | workload | C | pool | clients | trials |")
	for _, name := range cols {
		ew.Printf(" %s |", mdEscape(metricDefs[name].title))
	}
	ew.Printf("\n|---|---|--:|---|--:|---|%s\n", strings.Repeat("---|", len(cols)))
	for _, s := range c.Steps {
		ew.Printf("| %s | %s | %s | %s | %d | %d+%d |", mdEscape(s.Target), mdEscape(s.Workload),
			levelCell(s.Concurrency, s.Rate), mdEscape(s.Pool), s.Clients, s.BaselineTrials, s.CandidateTrials)
		for _, name := range cols {
			cell := "-"
			if m := s.Metrics[name]; m != nil {
				cell = vsBase(m, true)
			}
			ew.Printf(" %s |", mdEscape(cell))
		}
		ew.Printf("\n")
	}
	if len(c.Unmatched) > 0 {
		ew.Printf("\n### Not compared\n\n")
		for _, u := range c.Unmatched {
			ew.Printf("- %s\n", mdEscape(unmatchedLine(u)))
		}
	}
	ew.Printf("\n### Method\n\n`~` no significant difference; **bold** a significant change with its [lo, hi] confidence interval; trials are baseline+candidate. %s.\n", mdEscape(c.Method()))
	return ew.Err
}

// mdEscape keeps table cells intact.
// Non-printing characters are escaped too.
func mdEscape(s string) string { return strings.ReplaceAll(textfmt.Escape(s), "|", `\|`) }
