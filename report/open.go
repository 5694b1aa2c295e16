package report

import (
	"fmt"
	"github.com/poolsweep/poolsweep/analysis/openloop"
	"slices"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// openVerdicts are the open-loop reports as the report's verdicts: the
// recommendation, the rule that decided "carried", and the warnings.
func openVerdicts(reports []openloop.Report, kinds map[string]string) []verdictView {
	var out []verdictView
	for _, r := range reports {
		name := "open loop: " + r.Target
		if r.Workload != "" {
			name += " · " + r.Workload
		}
		if r.Clients > 1 {
			name += " · clients=" + strconv.Itoa(r.Clients)
		}
		if k := kinds[r.Target]; k != "" {
			name += " (" + k + ")"
		}
		var by []string
		for _, c := range r.ByRate {
			p := "none"
			if c.MaxPoolSize != nil {
				p = "≥ " + strconv.Itoa(*c.MaxPoolSize)
			}
			by = append(by, fmt.Sprintf("%d/s: %s", c.Rate, p))
		}
		out = append(out, verdictView{Name: name, Verdict: r.Recommendation,
			Summary:  "smallest maxPoolSize per rate: " + strings.Join(by, "; ") + ". " + textfmt.Capitalise(r.Rule) + ".",
			Warnings: r.Warnings})
	}
	return out
}

// openStepTable is one row per open-loop step, sorted by target, pool,
// rate and trial; empty when the run has none.
func openStepTable(r *results.Results) stepTable {
	var steps []*results.StepResult
	targets := map[string]bool{}
	for i := range r.Steps {
		if s := &r.Steps[i]; s.Mode == results.ModeOpen && s.Open != nil {
			steps = append(steps, s)
			targets[s.Target] = true
		}
	}
	if len(steps) == 0 {
		return stepTable{}
	}
	slices.SortStableFunc(steps, results.CompareOpenSteps)
	var t stepTable
	if len(targets) > 1 {
		t.Head = append(t.Head, "target")
	}
	t.Head = append(t.Head, "rate (calls/s)", "pool", "trial", "offered/s", "achieved/s", "dropped", "in flight (mean/max)",
		"p50 (ms)", "p99 (ms)", "uncorrected p99 (ms)", "pool wait", "errors", "bound")
	for _, s := range steps {
		o := s.Open
		var row []string
		if len(targets) > 1 {
			row = append(row, s.Target)
		}
		unc := "–"
		if o.Uncorrected != nil {
			unc = strconv.FormatFloat(o.Uncorrected.P99, 'f', 2, 64)
		}
		trial := strconv.Itoa(s.Trial)
		if s.Interrupted {
			trial += " (interrupted)"
		}
		if s.TargetFailed != nil {
			trial += " (target failed)"
		}
		row = append(row, strconv.Itoa(s.Rate), strconv.Itoa(s.MaxPoolSize), trial, fmt.Sprintf("%.0f", o.OfferedPerS), fmt.Sprintf("%.0f", o.AchievedPerS),
			strconv.FormatInt(o.Dropped, 10), fmt.Sprintf("%.1f / %d", o.InFlightMean, o.InFlightMax),
			strconv.FormatFloat(o.Corrected.P50, 'f', 2, 64), strconv.FormatFloat(o.Corrected.P99, 'f', 2, 64), unc,
			fmt.Sprintf("%.0f%%", 100*o.PoolWaitShare()), errorsCell(s.Errors), s.Bound)
		t.Rows = append(t.Rows, row)
	}
	return t
}

// openPlanText is an open-loop plan in words.
func openPlanText(p results.PlanInfo, steps []results.StepResult) string {
	rs := make([]string, len(p.Rate))
	for i, r := range p.Rate {
		rs[i] = strconv.Itoa(r)
	}
	s := fmt.Sprintf("open loop: rate %s calls/s (%s arrivals), at most %d calls in flight per client; pool %s; %d client(s); %d trial(s); %s, op timeout %gs; %d steps",
		strings.Join(rs, ","), p.Arrivals, p.MaxInFlight, p.Pool, max(p.Clients, 1), p.Trials, lengthsText(p, steps), p.OpTimeoutS, p.Steps)
	if p.Order != "" {
		s += "; order " + p.Order
	}
	return s
}
