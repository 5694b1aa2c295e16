package compare

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Method describes the statistics for output footers and the JSON header.
func (c *Comparison) Method() string {
	floor := "within one run, no between-run noise floor is added"
	if !c.WithinRun {
		floor = fmt.Sprintf("across two runs each side's variance also holds a between-run noise floor of %s%% (one standard deviation, taken as known)", trimFloat(c.RunNoisePct))
	}
	return fmt.Sprintf("Centers are medians across trials; significance: two-sided Mann–Whitney U at alpha=%g with a "+
		"Hodges–Lehmann interval at confidence >= %s%%; when %d trials per side are too few for a rank test to reach "+
		"p<alpha, Welch's t-test instead (marked t; assumes roughly log-normal noise); with fewer than %d trials per side, "+
		"throughput is tested by Welch's t-test on the steps' batch means (marked bm: each window's own interval, log scale; %s) "+
		"where every step has a batch-means interval, and other deltas are unconfirmed; "+
		"intervals of positive metrics are for candidate/baseline-1, computed on log values",
		c.Alpha, trimFloat((1-c.Alpha)*100), minTrials, minTrials, floor)
}

// labeler builds row labels that show only the dimensions that vary.
type labeler struct{ target, pool, clients bool }

func newLabeler(steps []*Step) labeler {
	var ts, ps []string
	var ks []int
	for _, s := range steps {
		if !slices.Contains(ts, s.Target) {
			ts = append(ts, s.Target)
		}
		if !slices.Contains(ps, s.Pool) {
			ps = append(ps, s.Pool)
		}
		if !slices.Contains(ks, s.Clients) {
			ks = append(ks, s.Clients)
		}
	}
	return labeler{target: len(ts) > 1, pool: len(ps) > 1, clients: len(ks) > 1}
}

func (l labeler) label(s *Step) string {
	var parts []string
	if l.target {
		parts = append(parts, textfmt.Escape(s.Target))
	}
	parts = append(parts, textfmt.Escape(s.Workload), levelLabel(s.Concurrency, s.Rate))
	if l.pool {
		parts = append(parts, "pool="+textfmt.Escape(s.Pool))
	}
	if l.clients {
		parts = append(parts, "clients="+strconv.Itoa(s.Clients))
	}
	return strings.Join(parts, " ")
}

// constant describes the dimensions that do not vary, for a header line.
func (l labeler) constant(steps []*Step) string {
	var parts []string
	if !l.target {
		parts = append(parts, "target "+textfmt.Escape(steps[0].Target))
	}
	if !l.pool {
		parts = append(parts, "pool="+textfmt.Escape(steps[0].Pool))
	}
	if !l.clients {
		parts = append(parts, "clients="+strconv.Itoa(steps[0].Clients))
	}
	return strings.Join(parts, ", ")
}

// Label names a step as the text table does, with every dimension.
func Label(s *Step) string {
	return labeler{true, true, true}.label(s)
}

func sideLine(s sideInputs) string {
	run := ""
	if len(s.RunIDs) > 0 {
		run = "run " + shown(s.RunIDs) + "; "
	}
	series := ""
	if s.Series != "" {
		series = "; " + s.Series
	}
	// Three lists of names: each is short, and the line is cut as the
	// last guard (textfmt.CapLine).
	return textfmt.CapLine(fmt.Sprintf("%s (%starget %s%s; %d steps)", shown(s.Files), run, shown(s.Targets), series, s.Steps))
}

// WriteText renders a benchstat-like report: one aligned table per metric,
// then the unmatched steps and the verdicts.
func WriteText(w io.Writer, c *Comparison) error {
	ew := textfmt.NewErrWriter(w)
	ew.Printf("baseline:  %s\n", sideLine(c.Baseline))
	ew.Printf("candidate: %s\n", sideLine(c.Candidate))
	if len(c.Steps) == 0 {
		for _, n := range c.Notes {
			ew.Printf("note: %s\n", n)
		}
	} else {
		writeSteps(ew, c)
	}
	if len(c.Curves) > 0 {
		ew.Printf("\n")
		if err := render.Deployments(ew, c.Curves); err != nil {
			return err
		}
	}
	return ew.Err
}

// writeSteps renders the step-by-step part: the tables, the unmatched
// steps and the verdicts.
func writeSteps(ew *textfmt.ErrWriter, c *Comparison) {
	lb := newLabeler(c.Steps)
	if h := lb.constant(c.Steps); h != "" {
		ew.Printf("steps:     %s\n", h)
	}
	for _, n := range c.Notes {
		ew.Printf("note: %s\n", n)
	}
	for _, name := range metricNames {
		if !measured(c, name) {
			continue
		}
		ew.Printf("\n")
		tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "%s\tbaseline\tcandidate\tvs base\n", metricDefs[name].title)
		for _, s := range c.Steps {
			m := s.Metrics[name]
			if m == nil {
				continue
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", lb.label(s),
				center(m.Baseline, m.BaselineSpreadPct), center(m.Candidate, m.CandidateSpreadPct), vsBase(m, false))
		}
		_ = tw.Flush() // ew keeps the first error
	}
	ew.Printf("\n~ no significant difference; [lo, hi] confidence interval of the change; n=baseline+candidate trials; t marks Welch's t-test, bm the same on the windows' batch means\n")
	ew.Printf("method: %s\n", c.Method())
	if len(c.Unmatched) > 0 {
		ew.Printf("\nnot compared:\n")
		for _, u := range c.Unmatched {
			ew.Printf("  %s\n", unmatchedLine(u))
		}
	}
	ew.Printf("\nverdict:\n")
	for _, v := range c.Verdicts {
		ew.Printf("  %s\n", v.Text)
	}
	if c.Trials != nil {
		ew.Printf("\ntrials: %s\n", c.Trials.Text)
	}
}

func unmatchedLine(u unmatchedStep) string {
	return fmt.Sprintf("%s %s %s %s pool=%s clients=%d (%d trials): %s",
		u.Side, textfmt.Escape(u.Target), textfmt.Escape(u.Workload), levelLabel(u.Concurrency, u.Rate), textfmt.Escape(u.Pool), u.Clients, u.Trials, u.Reason)
}

// measured reports whether any step has the metric.
func measured(c *Comparison, name string) bool {
	for _, s := range c.Steps {
		if s.Metrics[name] != nil {
			return true
		}
	}
	return false
}

func center(v, spread *float64) string {
	if v == nil {
		return "-"
	}
	s := fmtNum(*v)
	if spread != nil {
		s += " ± " + fmtSpread(*spread)
	}
	return s
}

func fmtSpread(p float64) string {
	if p < 1 {
		return strconv.FormatFloat(p, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(p, 'f', 0, 64) + "%"
}

// fmtNum prints about four significant digits without exponents; large
// values get k or M.
func fmtNum(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e8:
		return strconv.FormatFloat(v/1e6, 'f', 1, 64) + "M"
	case a >= 1e5:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	case a >= 1000 || a == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

// absChange is a signed absolute change in the metric's unit, signed as
// every change in poolsweep's text is (textfmt.Signed).
func absChange(v float64, unit string) string {
	switch unit {
	case "%":
		return textfmt.Signed(v, 1) + " pts"
	case "µs":
		return textfmt.Signed(v, 0) + "µs"
	}
	s := fmtNum(math.Abs(v))
	switch {
	case strings.Trim(s, "0.") == "":
		return s
	case v < 0:
		return textfmt.Minus + s
	}
	return "+" + s
}

// vsBase is the comparison cell: change, interval and test, "~" when not
// significant. markdown bolds significant changes and leaves out the test.
func vsBase(m *metricComparison, markdown bool) string {
	switch m.Status {
	case statusOneSided:
		return m.Note
	case StatusUnconfirmed:
		if markdown {
			return change(m, false) + " (unconfirmed)"
		}
		starved := ""
		if m.HostStarved {
			starved = "; load host starved"
		}
		return change(m, false) + fmt.Sprintf(" (unconfirmed n=%d+%d%s)", m.BaselineN, m.CandidateN, starved)
	}
	if markdown {
		// The trials column carries n; p-values live in text and JSON.
		switch {
		case m.Status == statusChanged:
			return "**" + change(m, true) + "**"
		case m.Note != "":
			return "~ (" + m.Note + ")"
		}
		return "~"
	}
	test := fmt.Sprintf("p=%.3f n=%d+%d", *m.PValue, m.BaselineN, m.CandidateN)
	switch m.Method {
	case methodWelch:
		test += " t"
	case MethodBatchWelch:
		test += " bm"
	}
	if m.Status != statusChanged {
		if m.Note != "" {
			test += "; " + m.Note
		}
		return "~ (" + test + ")"
	}
	return change(m, true) + " (" + test + ")"
}

// change words the delta: % for most metrics (with the absolute change for
// latency), points first for CPU; withCI adds the interval.
func change(m *metricComparison, withCI bool) string {
	switch {
	case m.Unit == "%":
		s := absChange(*m.Delta, m.Unit)
		if withCI && m.CILow != nil {
			s += " [" + strings.TrimSuffix(absChange(*m.CILow, m.Unit), " pts") + ", " + strings.TrimSuffix(absChange(*m.CIHigh, m.Unit), " pts") + "]"
		}
		if m.DeltaPct != nil {
			s += " " + textfmt.SignedPct(*m.DeltaPct)
		}
		return s
	case m.DeltaPct == nil:
		s := absChange(*m.Delta, m.Unit)
		if withCI && m.CILow != nil {
			s += " [" + absChange(*m.CILow, m.Unit) + ", " + absChange(*m.CIHigh, m.Unit) + "]"
		}
		return s
	}
	s := textfmt.SignedPct(*m.DeltaPct)
	if withCI && m.CILowPct != nil {
		s += " [" + textfmt.SignedPct(*m.CILowPct) + ", " + textfmt.SignedPct(*m.CIHighPct) + "]"
	}
	if m.Unit == "µs" {
		s += " " + absChange(*m.Delta, m.Unit)
	}
	return s
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
