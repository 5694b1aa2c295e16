package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Method describes the statistics for output footers and the JSON header.
func (c *Comparison) Method() string {
	return fmt.Sprintf("Centers are medians across trials; significance: two-sided Mann–Whitney U at alpha=%g with a "+
		"Hodges–Lehmann interval at confidence >= %s%%; when %d trials per side are too few for a rank test to reach "+
		"p<alpha, Welch's t-test instead (marked t; assumes roughly log-normal noise); with fewer than %d trials per side "+
		"deltas are unconfirmed; intervals of positive metrics are for candidate/baseline-1, computed on log values",
		c.Alpha, trimFloat((1-c.Alpha)*100), MinTrials, MinTrials)
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
	parts = append(parts, textfmt.Escape(s.Workload), "C="+strconv.Itoa(s.Concurrency))
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

func sideLine(s Side) string {
	run := ""
	if len(s.RunIDs) > 0 {
		run = "run " + shown(s.RunIDs) + "; "
	}
	return fmt.Sprintf("%s (%starget %s; %d steps)", shown(s.Files), run, shown(s.Targets), s.Steps)
}

// WriteText renders a benchstat-like report: one aligned table per metric,
// then the unmatched steps and the verdicts.
func WriteText(w io.Writer, c *Comparison) error {
	ew := &errWriter{w: w}
	ew.printf("baseline:  %s\n", sideLine(c.Baseline))
	ew.printf("candidate: %s\n", sideLine(c.Candidate))
	lb := newLabeler(c.Steps)
	if h := lb.constant(c.Steps); h != "" {
		ew.printf("steps:     %s\n", h)
	}
	for _, n := range c.Notes {
		ew.printf("note: %s\n", n)
	}
	for _, name := range MetricNames {
		if !measured(c, name) {
			continue
		}
		ew.printf("\n")
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
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	ew.printf("\n~ no significant difference; [lo, hi] confidence interval of the change; n=baseline+candidate trials; t marks Welch's t-test\n")
	ew.printf("method: %s\n", c.Method())
	if len(c.Unmatched) > 0 {
		ew.printf("\nnot compared:\n")
		for _, u := range c.Unmatched {
			ew.printf("  %s\n", unmatchedLine(u))
		}
	}
	ew.printf("\nverdict:\n")
	for _, v := range c.Verdicts {
		ew.printf("  %s\n", v.Text)
	}
	return ew.err
}

func unmatchedLine(u Unmatched) string {
	return fmt.Sprintf("%s %s %s C=%d pool=%s clients=%d (%d trials): %s",
		u.Side, textfmt.Escape(u.Target), textfmt.Escape(u.Workload), u.Concurrency, textfmt.Escape(u.Pool), u.Clients, u.Trials, u.Reason)
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

// pct is a signed ASCII percentage with one decimal.
func pct(v float64) string {
	s := strconv.FormatFloat(v, 'f', 1, 64)
	if s == "-0.0" {
		s = "0.0"
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	return s + "%"
}

// abs is a signed ASCII absolute change in the metric's unit.
func absChange(v float64, unit string) string {
	var s string
	switch unit {
	case "%":
		s = strconv.FormatFloat(v, 'f', 1, 64)
	case "µs":
		s = strconv.FormatFloat(v, 'f', 0, 64)
	default:
		s = fmtNum(v)
	}
	if s == "-0" || s == "-0.0" {
		s = s[1:]
	}
	if !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	switch unit {
	case "%":
		return s + " pts"
	case "µs":
		return s + "µs"
	}
	return s
}

// vsBase is the comparison cell: change, interval and test, "~" when not
// significant. markdown bolds significant changes and leaves out the test.
func vsBase(m *Metric, markdown bool) string {
	switch m.Status {
	case StatusOneSided:
		return m.Note
	case StatusUnconfirmed:
		if markdown {
			return change(m, false) + " (unconfirmed)"
		}
		return change(m, false) + fmt.Sprintf(" (unconfirmed n=%d+%d)", m.BaselineN, m.CandidateN)
	}
	if markdown {
		// The trials column carries n; p-values live in text and JSON.
		switch {
		case m.Status == StatusChanged:
			return "**" + change(m, true) + "**"
		case m.Note != "":
			return "~ (" + m.Note + ")"
		}
		return "~"
	}
	test := fmt.Sprintf("p=%.3f n=%d+%d", *m.PValue, m.BaselineN, m.CandidateN)
	if m.Method == MethodWelch {
		test += " t"
	}
	if m.Status != StatusChanged {
		if m.Note != "" {
			test += "; " + m.Note
		}
		return "~ (" + test + ")"
	}
	return change(m, true) + " (" + test + ")"
}

// change words the delta: % for most metrics (with the absolute change for
// latency), points first for CPU; withCI adds the interval.
func change(m *Metric, withCI bool) string {
	switch {
	case m.Unit == "%":
		s := absChange(*m.Delta, m.Unit)
		if withCI && m.CILow != nil {
			s += " [" + strings.TrimSuffix(absChange(*m.CILow, m.Unit), " pts") + ", " + strings.TrimSuffix(absChange(*m.CIHigh, m.Unit), " pts") + "]"
		}
		if m.DeltaPct != nil {
			s += " " + pct(*m.DeltaPct)
		}
		return s
	case m.DeltaPct == nil:
		s := absChange(*m.Delta, m.Unit)
		if withCI && m.CILow != nil {
			s += " [" + absChange(*m.CILow, m.Unit) + ", " + absChange(*m.CIHigh, m.Unit) + "]"
		}
		return s
	}
	s := pct(*m.DeltaPct)
	if withCI && m.CILowPct != nil {
		s += " [" + pct(*m.CILowPct) + ", " + pct(*m.CIHighPct) + "]"
	}
	if m.Unit == "µs" {
		s += " " + absChange(*m.Delta, m.Unit)
	}
	return s
}

// WriteMarkdown renders the verdicts, then one table in the shape of the
// study's (a row per matched step, a column per measured metric), then the
// unmatched steps and the method.
func WriteMarkdown(w io.Writer, c *Comparison) error {
	ew := &errWriter{w: w}
	ew.printf("## A/B comparison\n\n")
	ew.printf("- baseline: %s\n", mdEscape(sideLine(c.Baseline)))
	ew.printf("- candidate: %s\n", mdEscape(sideLine(c.Candidate)))
	for _, n := range c.Notes {
		ew.printf("- note: %s\n", mdEscape(n))
	}
	ew.printf("\n### Verdict\n\n")
	for _, v := range c.Verdicts {
		ew.printf("- %s\n", mdEscape(v.Text))
	}
	var cols []string
	for _, name := range MetricNames {
		if measured(c, name) {
			cols = append(cols, name)
		}
	}
	ew.printf("\n### Steps\n\n| target | workload | C | pool | clients | trials |")
	for _, name := range cols {
		ew.printf(" %s |", mdEscape(metricDefs[name].title))
	}
	ew.printf("\n|---|---|--:|---|--:|---|%s\n", strings.Repeat("---|", len(cols)))
	for _, s := range c.Steps {
		ew.printf("| %s | %s | %d | %s | %d | %d+%d |", mdEscape(s.Target), mdEscape(s.Workload),
			s.Concurrency, mdEscape(s.Pool), s.Clients, s.BaselineTrials, s.CandidateTrials)
		for _, name := range cols {
			cell := "-"
			if m := s.Metrics[name]; m != nil {
				cell = vsBase(m, true)
			}
			ew.printf(" %s |", mdEscape(cell))
		}
		ew.printf("\n")
	}
	if len(c.Unmatched) > 0 {
		ew.printf("\n### Not compared\n\n")
		for _, u := range c.Unmatched {
			ew.printf("- %s\n", mdEscape(unmatchedLine(u)))
		}
	}
	ew.printf("\n### Method\n\n`~` no significant difference; **bold** a significant change with its [lo, hi] confidence interval; trials are baseline+candidate. %s.\n", mdEscape(c.Method()))
	return ew.err
}

// mdEscape keeps table cells intact.
// Non-printing characters are escaped too.
func mdEscape(s string) string { return strings.ReplaceAll(textfmt.Escape(s), "|", `\|`) }

// JSON shapes: snake_case, nulls where a value does not exist, numbers
// rounded to 6 significant digits so outputs are stable across platforms.
type jsonDoc struct {
	Baseline     jsonSide        `json:"baseline"`
	Candidate    jsonSide        `json:"candidate"`
	Alpha        float64         `json:"alpha"`
	MinEffectPct float64         `json:"min_effect_pct,omitempty"`
	Method       string          `json:"method"`
	Steps        []jsonStep      `json:"steps"`
	Unmatched    []jsonUnmatched `json:"unmatched"`
	Verdicts     []jsonVerdict   `json:"verdicts"`
	Notes        []string        `json:"notes,omitempty"`
}

type jsonSide struct {
	Files   []string `json:"files"`
	RunIDs  []string `json:"run_ids"`
	Targets []string `json:"targets"`
	Steps   int      `json:"steps"`
}

type jsonPair struct {
	Baseline  int `json:"baseline"`
	Candidate int `json:"candidate"`
}

type jsonStep struct {
	Target          string                 `json:"target"`
	BaselineTarget  string                 `json:"baseline_target"`
	CandidateTarget string                 `json:"candidate_target"`
	Workload        string                 `json:"workload"`
	Class           string                 `json:"class"`
	Concurrency     int                    `json:"concurrency"`
	Pool            string                 `json:"pool"`
	Clients         int                    `json:"clients"`
	Trials          jsonPair               `json:"trials"`
	Metrics         map[string]*jsonMetric `json:"metrics"`
}

type jsonMetric struct {
	Unit        string   `json:"unit"`
	Baseline    *float64 `json:"baseline"`
	Candidate   *float64 `json:"candidate"`
	Delta       *float64 `json:"delta"`
	DeltaPct    *float64 `json:"delta_pct"`
	CILow       *float64 `json:"ci_low"`
	CIHigh      *float64 `json:"ci_high"`
	CILowPct    *float64 `json:"ci_low_pct"`
	CIHighPct   *float64 `json:"ci_high_pct"`
	Confidence  *float64 `json:"confidence"`
	PValue      *float64 `json:"p_value"`
	Method      string   `json:"method"`
	Significant bool     `json:"significant"`
	Status      Status   `json:"status"`
	N           jsonPair `json:"n"`
	Note        string   `json:"note,omitempty"`
}

type jsonUnmatched struct {
	Side        string `json:"side"`
	Target      string `json:"target"`
	Workload    string `json:"workload"`
	Concurrency int    `json:"concurrency"`
	Pool        string `json:"pool"`
	Clients     int    `json:"clients"`
	Trials      int    `json:"trials"`
	Reason      string `json:"reason"`
}

type jsonVerdict struct {
	Target            string `json:"target,omitempty"`
	Workload          string `json:"workload"`
	Class             string `json:"class"`
	Mix               string `json:"mix"`
	Concurrency       int    `json:"concurrency"`
	Pool              string `json:"pool"`
	Clients           int    `json:"clients"`
	Steps             int    `json:"steps"`
	ThroughputChanged int    `json:"throughput_changed"`
	Text              string `json:"text"`
}

func round6(p *float64) *float64 {
	if p == nil {
		return nil
	}
	v, _ := strconv.ParseFloat(strconv.FormatFloat(*p, 'g', 6, 64), 64)
	return &v
}

func side2json(s Side) jsonSide {
	return jsonSide{Files: nonNil(s.Files), RunIDs: nonNil(s.RunIDs), Targets: nonNil(s.Targets), Steps: s.Steps}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WriteJSON renders the comparison as one indented JSON document.
func WriteJSON(w io.Writer, c *Comparison) error {
	doc := jsonDoc{
		Baseline: side2json(c.Baseline), Candidate: side2json(c.Candidate),
		Alpha: c.Alpha, MinEffectPct: c.MinEffectPct, Method: c.Method(),
		Steps: []jsonStep{}, Unmatched: []jsonUnmatched{}, Verdicts: []jsonVerdict{}, Notes: c.Notes,
	}
	for _, s := range c.Steps {
		js := jsonStep{Target: s.Target, BaselineTarget: s.BaselineTarget, CandidateTarget: s.CandidateTarget,
			Workload: s.Workload, Class: s.Class, Concurrency: s.Concurrency, Pool: s.Pool, Clients: s.Clients,
			Trials: jsonPair{s.BaselineTrials, s.CandidateTrials}, Metrics: map[string]*jsonMetric{}}
		for _, name := range MetricNames {
			m := s.Metrics[name]
			if m == nil {
				js.Metrics[name] = nil
				continue
			}
			js.Metrics[name] = &jsonMetric{
				Unit: m.Unit, Baseline: round6(m.Baseline), Candidate: round6(m.Candidate),
				Delta: round6(m.Delta), DeltaPct: round6(m.DeltaPct),
				CILow: round6(m.CILow), CIHigh: round6(m.CIHigh),
				CILowPct: round6(m.CILowPct), CIHighPct: round6(m.CIHighPct),
				Confidence: round6(m.Confidence), PValue: round6(m.PValue), Method: m.Method,
				Significant: m.Significant, Status: m.Status, N: jsonPair{m.BaselineN, m.CandidateN}, Note: m.Note,
			}
		}
		doc.Steps = append(doc.Steps, js)
	}
	for _, u := range c.Unmatched {
		doc.Unmatched = append(doc.Unmatched, jsonUnmatched(u))
	}
	for _, v := range c.Verdicts {
		doc.Verdicts = append(doc.Verdicts, jsonVerdict(v))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode comparison: %w", err)
	}
	return nil
}

// errWriter keeps the first write error so renderers can check once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, args ...any) {
	fmt.Fprintf(e, format, args...)
}

func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
