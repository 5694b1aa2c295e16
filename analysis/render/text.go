package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/compare/curves"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Text renders a for people, as `poolsweep analyze` prints it: per
// series a verdict paragraph, the levels and each method's answer
// (knee.WriteText), the planned steps missing, the open-loop reports, the
// deployment verdict in full (Deployments), the profile settings and the
// pool options recommended (Scenarios), then what each searched run
// concluded.
func Text(w io.Writer, a *analysis.Analysis) error {
	ew := textfmt.NewErrWriter(w)
	if len(a.Series) > 0 || len(a.Missing) > 0 {
		if err := knee.WriteText(ew, a.Series, a.Missing...); err != nil {
			return err
		}
	}
	if len(a.Open) > 0 {
		if len(a.Series) > 0 || len(a.Missing) > 0 {
			ew.Printf("\n")
		}
		if err := knee.WriteOpenText(ew, a.Open); err != nil {
			return err
		}
	}
	if len(a.Curves) > 0 {
		ew.Printf("\n")
		if err := Deployments(ew, a.Curves); err != nil {
			return err
		}
	}
	if len(a.Scenarios) > 0 {
		if len(a.Series) > 0 || len(a.Missing) > 0 || len(a.Open) > 0 || len(a.Curves) > 0 {
			ew.Printf("\n")
		}
		Scenarios(ew, a)
	}
	for _, s := range a.Searches {
		ew.Printf("\nsearch %s (%s): %s\n", textfmt.Escape(s.Mode), textfmt.Escape(s.File), textfmt.Escape(s.Conclusion))
	}
	return ew.Err
}

// JSON renders a as analyze --format json does (knee.WriteJSON): the
// series, the open-loop reports and the missing steps, and, when the
// files hold several targets (or series values), the curve comparisons
// as "curves" (compare/curves, the shape compare --format json gives
// them), and, when the files hold profile steps, the settings as
// "scenarios", their events under load as "events" with the verdicts in
// words as "event_verdicts", and the pool options recommended as
// "recommendation" (for
// the first target; "recommendations" lists every target's when there
// are several).
func JSON(w io.Writer, a *analysis.Analysis) error {
	if len(a.Curves) == 0 && len(a.Scenarios) == 0 {
		return knee.WriteJSON(w, a.Series, a.Open, a.Missing...)
	}
	var buf bytes.Buffer
	if err := knee.WriteJSON(&buf, a.Series, a.Open, a.Missing...); err != nil {
		return err
	}
	var out struct {
		Series   json.RawMessage `json:"series"`
		OpenLoop json.RawMessage `json:"open_loop,omitempty"`
		Missing  json.RawMessage `json:"missing"`
		Curves   []curves.Doc    `json:"curves,omitempty"`
		// Scenarios and the recommendation of a profile sweep.
		Scenarios []analysis.Scenario `json:"scenarios,omitempty"`
		// The events under load, each under each setting, and the
		// verdicts in words, one per target and event.
		Events          []analysis.EventResult `json:"events,omitempty"`
		EventVerdicts   []string               `json:"event_verdicts,omitempty"`
		Recommendation  *recommendationDoc     `json:"recommendation,omitempty"`
		Recommendations []recommendationDoc    `json:"recommendations,omitempty"`
	}
	if err := json.Unmarshal(buf.Bytes(), &out); err != nil {
		return fmt.Errorf("analysis JSON: %w", err)
	}
	for _, c := range a.Curves {
		out.Curves = append(out.Curves, c.JSON())
	}
	for _, sc := range a.Scenarios {
		out.Scenarios = append(out.Scenarios, roundedScenario(sc))
	}
	for _, er := range a.Events {
		out.Events = append(out.Events, roundedEvent(er))
	}
	out.EventVerdicts = analysis.EventVerdicts(a.Events)
	for _, r := range a.Pool {
		out.Recommendations = append(out.Recommendations, recommendationJSON(r))
	}
	if len(out.Recommendations) > 0 {
		out.Recommendation = &out.Recommendations[0]
	}
	if len(out.Recommendations) < 2 {
		out.Recommendations = nil
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return fmt.Errorf("encode analysis: %w", err)
	}
	return nil
}
