package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Scenarios writes the profile settings (analysis.Scenarios) as a table,
// each against its baseline, then their events under load (Events), then the pool options recommended for each
// target (analysis.PoolRecommendations) in every driver's words. Nothing
// when a holds no profile steps.
func Scenarios(ew *textfmt.ErrWriter, a *analysis.Analysis) {
	if len(a.Scenarios) == 0 {
		return
	}
	var targets []string
	for _, sc := range a.Scenarios {
		if !contains(targets, sc.Target) {
			targets = append(targets, sc.Target)
		}
	}
	for i, t := range targets {
		if i > 0 {
			ew.Printf("\n")
		}
		scenarioTable(ew, a.Scenarios, t)
	}
	if len(a.Events) > 0 {
		ew.Printf("\n")
		Events(ew, a)
	}
	for _, r := range a.Pool {
		ew.Printf("\n")
		poolRecommendation(ew, r)
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// profileShown is the longest profile spec the table's title shows
// whole; a longer one (a long list of phases) is cut as a token.
const profileShown = 120

// scenarioTable is one target's settings.
func scenarioTable(ew *textfmt.ErrWriter, scs []analysis.Scenario, target string) {
	var mine []analysis.Scenario
	for _, sc := range scs {
		if sc.Target == target {
			mine = append(mine, sc)
		}
	}
	spec := mine[0].Profile
	if len(spec) > profileShown {
		spec = textfmt.Token(spec)
	}
	ew.Printf("pool settings of %s under the profile %s: the mean over trials [its 95%% t interval]\n",
		textfmt.Escape(target), textfmt.Escape(spec))
	tw := newTable(ew, false, "setting\ttrials\tfill s\tworst p99 ms\tto steady s\tcreated/closed\terrors\t")
	for _, sc := range mine {
		label := sc.Label()
		if sc.Baseline {
			label += " (baseline)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s/%s\t%s\t\n", textfmt.Escape(label), sc.Trials,
			figure(sc.TimeToFillS, seconds), figure(sc.WorstP99MS, textfmt.Ms), figure(sc.TimeToSteadyS, seconds),
			figure(sc.Created, whole), figure(sc.Closed, whole), figure(sc.Errors, whole))
	}
	_ = tw.Flush()
	for _, sc := range mine {
		if len(sc.Versus) == 0 {
			continue
		}
		var parts []string
		for _, v := range sc.Versus {
			parts = append(parts, verdictText(v))
		}
		ew.Printf("  %s against the baseline: %s\n", textfmt.Escape(sc.Label()), strings.Join(parts, "; "))
	}
	ew.Printf("  (lower is better for each; two-sided Mann–Whitney U, or Welch's t where the trials are too few for a rank test, on log values where both sides are positive, at alpha %g, as compare concludes)\n",
		analysis.ScenarioAlpha)
	for _, sc := range mine {
		for _, n := range sc.Notes {
			ew.Printf("  note, %s: %s\n", textfmt.Escape(sc.Label()), textfmt.Escape(n))
		}
	}
}

// metricWords name the compared metrics in the verdict lines.
var metricWords = map[string]string{
	"worst_p99_ms": "worst p99", "time_to_fill_s": "time to fill", "time_to_steady_s": "time to steady",
	"connections_created": "connections created", "time_to_recover_s": "time to recover", "errors": "errors",
	"p99_during_ms": "p99 during",
}

// verdictText is "worst p99 better (−98%, mann-whitney p=0.008)".
func verdictText(v analysis.Verdict) string {
	name := metricWords[v.Metric]
	if name == "" {
		name = v.Metric
	}
	var detail []string
	if v.DeltaPct != nil {
		detail = append(detail, textfmt.SignedPct(*v.DeltaPct))
	}
	if v.Method != "" && v.PValue != nil {
		detail = append(detail, fmt.Sprintf("%s p=%.3g", v.Method, *v.PValue))
	}
	if v.Note != "" {
		detail = append(detail, v.Note)
	}
	if len(detail) == 0 {
		return name + " " + v.Verdict
	}
	return fmt.Sprintf("%s %s (%s)", name, v.Verdict, strings.Join(detail, ", "))
}

// figure is "4.00 [3.90, 4.10]", the value alone with one trial, "-"
// without one.
func figure(f analysis.Figure, num func(float64) string) string {
	if f.Value == nil {
		return "-"
	}
	if f.Low == nil || f.High == nil {
		return num(*f.Value)
	}
	return fmt.Sprintf("%s [%s, %s]", num(*f.Value), num(*f.Low), num(*f.High))
}

func seconds(s float64) string { return fmt.Sprintf("%.2f", s) }
func whole(v float64) string   { return fmt.Sprintf("%.0f", v) }

// choices are the recommendation's options in Option order.
func choices(p analysis.PoolOptionsRec) [5]analysis.Choice {
	return [5]analysis.Choice{p.MaxPoolSize, p.MinPoolSize, p.MaxConnecting, p.MaxIdleMS, p.TimeoutMS}
}

// poolRecommendation writes one target's recommended pool options, each
// with its reason, then in each driver's words beside its default.
func poolRecommendation(ew *textfmt.ErrWriter, r analysis.PoolRecommendation) {
	ew.Printf("pool options recommended for %s:\n", textfmt.Escape(r.Target))
	cs := choices(r.PoolOptions)
	for o, c := range cs {
		val := "-"
		switch {
		case c.Value != nil:
			val = fmt.Sprint(*c.Value)
		case c.KeepDefault:
			val = "keep the default"
		}
		from := ""
		if c.From != "" {
			from = " [" + c.From + "]"
		}
		ew.Printf("  %-13s %-16s %s%s\n", Option(o).URIName(), val, textfmt.Escape(c.Why), from)
	}
	var uri []string
	for o, c := range cs {
		if c.Value != nil {
			uri = append(uri, uriValue(Option(o), *c.Value))
		}
	}
	if len(uri) == 0 {
		return
	}
	ew.Printf("in each driver's words (its default after #):\n")
	ew.Printf("  URI (every driver)  %s\n", strings.Join(uri, "&"))
	for _, d := range Drivers {
		ew.Printf("  %s, %s:\n", d.Name, d.Where)
		for _, s := range driverSettings(d, cs) {
			ew.Printf("    %-58s # default %s\n", s.Code, s.Default)
		}
	}
}

// driverSettings are the options with a value in d's words.
func driverSettings(d Driver, cs [5]analysis.Choice) []Setting {
	var out []Setting
	for o, c := range cs {
		if c.Value != nil {
			out = append(out, Setting{Option: Option(o).URIName(), Code: d.Set(Option(o), *c.Value), Default: d.Default(Option(o))})
		}
	}
	return out
}

// recommendationDoc is a target's recommendation in analyze's JSON: the
// options with their reasons, and each driver's words for those with a
// value.
type recommendationDoc struct {
	Target      string                  `json:"target"`
	PoolOptions analysis.PoolOptionsRec `json:"pool_options"`
	Drivers     []driverDoc             `json:"drivers,omitempty"`
}

type driverDoc struct {
	Driver   string    `json:"driver"`
	Where    string    `json:"where"`
	Settings []Setting `json:"settings"`
}

func recommendationJSON(r analysis.PoolRecommendation) recommendationDoc {
	doc := recommendationDoc{Target: r.Target, PoolOptions: r.PoolOptions}
	cs := choices(r.PoolOptions)
	for _, d := range Drivers {
		if s := driverSettings(d, cs); len(s) > 0 {
			doc.Drivers = append(doc.Drivers, driverDoc{Driver: d.Name, Where: d.Where, Settings: s})
		}
	}
	return doc
}

// roundedScenario is sc with its figures rounded for output
// (roundFigures, roundVerdicts).
func roundedScenario(sc analysis.Scenario) analysis.Scenario {
	roundFigures(&sc.TimeToFillS, &sc.WorstP99MS, &sc.FirstSecondP99MS, &sc.TimeToSteadyS, &sc.SteadyPerS,
		&sc.SteadyP99MS, &sc.Created, &sc.Closed, &sc.PoolClears)
	sc.Versus = roundVerdicts(sc.Versus)
	return sc
}

// roundFigures rounds figures for output to three decimals
// (milliseconds, seconds, counts).
func roundFigures(fs ...*analysis.Figure) {
	for _, f := range fs {
		f.Value, f.Low, f.High = roundTo(f.Value, 3), roundTo(f.Low, 3), roundTo(f.High, 3)
	}
}

// roundVerdicts is vs with percentages to one decimal and p-values to
// four significant digits.
func roundVerdicts(vs []analysis.Verdict) []analysis.Verdict {
	out := make([]analysis.Verdict, len(vs))
	for i, v := range vs {
		v.DeltaPct = roundTo(v.DeltaPct, 1)
		if v.PValue != nil {
			p, _ := strconv.ParseFloat(strconv.FormatFloat(*v.PValue, 'g', 4, 64), 64)
			v.PValue = &p
		}
		out[i] = v
	}
	return out
}

func roundTo(v *float64, digits float64) *float64 {
	if v == nil {
		return nil
	}
	p := math.Pow(10, digits)
	x := math.Round(*v*p) / p
	return &x
}
