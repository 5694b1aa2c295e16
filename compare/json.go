package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/poolsweep/poolsweep/analysis/curves"
)

// JSON shapes: snake_case, nulls where a value does not exist, numbers
// rounded to 6 significant digits so outputs are stable across platforms.
type jsonDoc struct {
	Baseline     jsonSide        `json:"baseline"`
	Candidate    jsonSide        `json:"candidate"`
	Alpha        float64         `json:"alpha"`
	MinEffectPct float64         `json:"min_effect_pct,omitempty"`
	WithinRun    bool            `json:"within_run"`
	RunNoisePct  float64         `json:"run_noise_pct"`
	Method       string          `json:"method"`
	Steps        []jsonStep      `json:"steps"`
	Unmatched    []jsonUnmatched `json:"unmatched"`
	Verdicts     []jsonVerdict   `json:"verdicts"`
	Trials       *trialsNote     `json:"trials_advice,omitempty"`
	// Curves is the curve comparison of two targets or two series
	// values (analysis/curves); absent for two runs of one target.
	Curves []curves.Doc `json:"curves,omitempty"`
	Notes  []string     `json:"notes,omitempty"`
}

type jsonSide struct {
	Files   []string `json:"files"`
	RunIDs  []string `json:"run_ids"`
	Targets []string `json:"targets"`
	Series  string   `json:"series,omitempty"`
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
	Rate            int                    `json:"rate,omitempty"`
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
	Status      status   `json:"status"`
	NeedsTrials bool     `json:"needs_trials,omitempty"`
	HostStarved bool     `json:"host_starved,omitempty"`
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
	Rate        int    `json:"rate,omitempty"`
}

type jsonVerdict struct {
	Target            string `json:"target,omitempty"`
	Workload          string `json:"workload"`
	Class             string `json:"class"`
	Mix               string `json:"mix"`
	Concurrency       int    `json:"concurrency"`
	Pool              string `json:"pool"`
	Clients           int    `json:"clients"`
	Rate              int    `json:"rate,omitempty"`
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

func side2json(s sideInputs) jsonSide {
	return jsonSide{Files: nonNil(s.Files), RunIDs: nonNil(s.RunIDs), Targets: nonNil(s.Targets), Steps: s.Steps, Series: s.Series}
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
		Alpha: c.Alpha, MinEffectPct: c.MinEffectPct, WithinRun: c.WithinRun, RunNoisePct: c.RunNoisePct, Method: c.Method(),
		Trials: roundAdvice(c.Trials),
		Steps:  []jsonStep{}, Unmatched: []jsonUnmatched{}, Verdicts: []jsonVerdict{}, Notes: c.Notes,
	}
	for _, s := range c.Steps {
		js := jsonStep{Target: s.Target, BaselineTarget: s.BaselineTarget, CandidateTarget: s.CandidateTarget,
			Workload: s.Workload, Class: s.Class, Concurrency: s.Concurrency, Pool: s.Pool, Clients: s.Clients, Rate: s.Rate,
			Trials: jsonPair{s.BaselineTrials, s.CandidateTrials}, Metrics: map[string]*jsonMetric{}}
		for _, name := range metricNames {
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
				Significant: m.Significant, Status: m.Status, NeedsTrials: m.NeedsTrials, HostStarved: m.HostStarved, N: jsonPair{m.BaselineN, m.CandidateN}, Note: m.Note,
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
	for _, cc := range c.Curves {
		doc.Curves = append(doc.Curves, cc.JSON())
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode comparison: %w", err)
	}
	return nil
}

// roundAdvice rounds the advice's times to whole seconds for stable output.
func roundAdvice(a *trialsNote) *trialsNote {
	if a == nil {
		return nil
	}
	r := *a
	r.BaselineS, r.CandidateS = math.Round(r.BaselineS), math.Round(r.CandidateS)
	return &r
}
