package render

import (
	"fmt"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Rate is a throughput as the tables and progress lines print it: whole
// numbers below 10,000, then thousands ("12.3k", "123k").
func Rate(v float64) string {
	switch {
	case v >= 100000:
		return fmt.Sprintf("%.0fk", v/1000)
	case v >= 10000:
		return fmt.Sprintf("%.1fk", v/1000)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

// Millis is milliseconds as the tables print them ("2.33ms").
func Millis(v float64) string { return textfmt.Ms(v) + "ms" }

// orDash is s, or "-" when empty: a column with nothing to say.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// newTable starts a right-aligned table on ew with its head row (cells
// ending in tabs), after a workload column when the run has several
// mixes. The caller flushes it.
func newTable(ew *textfmt.ErrWriter, workloadColumn bool, head string) *tabwriter.Writer {
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	if workloadColumn {
		fmt.Fprint(tw, "workload\t")
	}
	fmt.Fprintln(tw, head)
	return tw
}
