package compare

import (
	"fmt"
	"io"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// regressionMetrics are the metrics a regression is judged on, each with
// the direction that is worse: throughput falling, p99 latency rising.
var regressionMetrics = []struct {
	Name      string
	WorseUp   bool // a rise is worse
	Described string
}{
	{OpsPerS, false, "throughput"},
	{ReadP99US, true, "read p99"},
	{WriteP99US, true, "write p99"},
}

// regression is a step whose candidate is significantly worse than its
// baseline by more than the limit on one regression metric.
type regression struct {
	Step     *Step
	Metric   string
	Describe string
	DeltaPct float64
	PValue   *float64
}

// Regressions are the changes for the worse beyond limitPct percent. Only
// a metric compare calls changed counts (statusChanged: significant at
// the comparison's alpha, and at least --min-effect): noise, an
// unconfirmed step (too few trials) or a metric measured on one side
// never does. The size is the change of the medians (DeltaPct).
func (c *Comparison) Regressions(limitPct float64) []regression {
	var out []regression
	for _, s := range c.Steps {
		for _, rm := range regressionMetrics {
			m := s.Metrics[rm.Name]
			if m == nil || m.Status != statusChanged || m.DeltaPct == nil {
				continue
			}
			d := *m.DeltaPct
			if (rm.WorseUp && d > limitPct) || (!rm.WorseUp && d < -limitPct) {
				out = append(out, regression{Step: s, Metric: rm.Name, Describe: rm.Described, DeltaPct: d, PValue: m.PValue})
			}
		}
	}
	return out
}

// WriteRegressions writes one line per regression, or that there is
// none, beyond limitPct.
func WriteRegressions(w io.Writer, rs []regression, limitPct float64) error {
	ew := textfmt.NewErrWriter(w)
	if len(rs) == 0 {
		ew.Printf("no significant regression worse than %s%% on throughput or p99\n", trimFloat(limitPct))
		return ew.Err
	}
	ew.Printf("%d significant regression(s) worse than %s%% on throughput or p99:\n", len(rs), trimFloat(limitPct))
	for _, r := range rs {
		s := r.Step
		where := textfmt.Escape(s.Target)
		if s.Workload != "" {
			where += " " + textfmt.Escape(s.Workload)
		}
		if s.Rate > 0 {
			where += fmt.Sprintf(" rate=%d", s.Rate)
		} else {
			where += fmt.Sprintf(" C=%d", s.Concurrency)
		}
		where += " pool=" + textfmt.Escape(s.Pool)
		p := ""
		if r.PValue != nil {
			p = fmt.Sprintf(", p=%.3g", *r.PValue)
		}
		ew.Printf("  %s: %s %+.1f%% (%d vs %d trials%s)\n", where, r.Describe, r.DeltaPct, s.BaselineTrials, s.CandidateTrials, p)
	}
	return ew.Err
}
