package render

import (
	"encoding/json"
	"fmt"
	"github.com/poolsweep/poolsweep/analysis/openloop"
	"io"
	"math"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/conncost"
	"github.com/poolsweep/poolsweep/analysis/curves"
	"github.com/poolsweep/poolsweep/analysis/knee"
)

// Doc is the machine-readable analysis, as analyze --format json prints
// it, built once from the analysis values: a value the analysis could not
// give is null, never a 0 that reads as a measurement, and numbers are
// rounded to what a measurement can support so that the output is stable
// across machines. Key order is the fields'. A command that adds fields
// of its own embeds Doc first, so that its fields follow these.
type Doc struct {
	Series   []seriesDoc        `json:"series"`
	OpenLoop []openloop.Report  `json:"open_loop,omitempty"`
	Missing  []analysis.Missing `json:"missing"`
	Curves   []curves.Doc       `json:"curves,omitempty"`
	// Scenarios and the recommendation of a profile sweep; recommendation
	// is the first target's, recommendations every target's when there
	// are several.
	Scenarios []analysis.Scenario `json:"scenarios,omitempty"`
	// Events are the events under load (sweep --event), each under each
	// setting, and EventVerdicts the verdicts in words, one per target
	// and event.
	Events          []analysis.EventResult `json:"events,omitempty"`
	EventVerdicts   []string               `json:"event_verdicts,omitempty"`
	Recommendation  *recommendationDoc     `json:"recommendation,omitempty"`
	Recommendations []recommendationDoc    `json:"recommendations,omitempty"`
	// Replays is the replayed series (sweep --workload-file).
	Replays []replayDoc `json:"replays,omitempty"`
	// RouterPools are the routers' pools to the shard hosts per step.
	RouterPools []routerPoolDoc `json:"router_pools,omitempty"`
	// ConnectionCost is what one connection costs the server, from the
	// first file with a connection sweep; ConnectionCosts every file's
	// when there are several.
	ConnectionCost  *conncost.Cost  `json:"connection_cost,omitempty"`
	ConnectionCosts []conncost.Cost `json:"connection_costs,omitempty"`
}

// Document builds a's JSON document: the series, the open-loop reports
// and the missing steps; when the files hold several targets (or series
// values) the curve comparisons as "curves" (the shape compare --format
// json gives them); when they hold profile steps the settings as
// "scenarios" and the pool options recommended; and the replayed series.
func Document(a *analysis.Analysis) Doc {
	d := Doc{Series: make([]seriesDoc, len(a.Series)), Missing: append([]analysis.Missing{}, a.Missing...)}
	for i, r := range a.Series {
		d.Series[i] = seriesJSON(r)
	}
	for _, r := range a.Open {
		d.OpenLoop = append(d.OpenLoop, roundedOpen(r))
	}
	for _, c := range a.Curves {
		d.Curves = append(d.Curves, c.JSON())
	}
	for _, sc := range a.Scenarios {
		d.Scenarios = append(d.Scenarios, roundedScenario(sc))
	}
	for _, er := range a.Events {
		d.Events = append(d.Events, roundedEvent(er))
	}
	d.EventVerdicts = analysis.EventVerdicts(a.Events)
	for _, r := range a.Pool {
		d.Recommendations = append(d.Recommendations, recommendationJSON(r))
	}
	if len(d.Recommendations) > 0 {
		d.Recommendation = &d.Recommendations[0]
	}
	if len(d.Recommendations) < 2 {
		d.Recommendations = nil
	}
	for _, rp := range a.Replays {
		d.Replays = append(d.Replays, replayJSON(rp))
	}
	d.RouterPools = routerPoolsJSON(a.RouterPools)
	for _, c := range a.ConnectionCosts {
		d.ConnectionCosts = append(d.ConnectionCosts, roundedCost(c))
	}
	if len(d.ConnectionCosts) > 0 {
		d.ConnectionCost = &d.ConnectionCosts[0]
	}
	if len(d.ConnectionCosts) < 2 {
		d.ConnectionCosts = nil
	}
	return d
}

// JSON writes a's document (Document) as analyze --format json does when
// no threshold or --ftdc adds to it.
func JSON(w io.Writer, a *analysis.Analysis) error {
	return Encode(w, Document(a))
}

// Encode writes v indented, the one encoding of every analysis document:
// text from files and servers is already escaped for a terminal, so HTML
// characters are left as they are.
func Encode(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode analysis: %w", err)
	}
	return nil
}

// seriesDoc is one knee report.
type seriesDoc struct {
	Target         string           `json:"target"`
	Workload       string           `json:"workload,omitempty"`
	Pool           string           `json:"pool"`
	Clients        int              `json:"clients"`
	Levels         []levelDoc       `json:"levels"`
	Peak           peakDoc          `json:"peak"`
	Knee           kneeDoc          `json:"knee"`
	Methods        methodsDoc       `json:"methods"`
	Retrograde     *knee.Retrograde `json:"retrograde"`
	Recommendation kneeRecDoc       `json:"recommendation"`
	BoundPastKnee  string           `json:"bound_past_knee,omitempty"`
	Verdict        string           `json:"verdict"`
	Warnings       []string         `json:"warnings,omitempty"`
}

// levelDoc is one level; connections is null when no step recorded them.
type levelDoc struct {
	Concurrency    int      `json:"concurrency"`
	Connections    *int     `json:"connections"`
	Trials         int      `json:"trials"`
	QPS            float64  `json:"qps"`
	QPSLow         float64  `json:"qps_low"`
	QPSHigh        float64  `json:"qps_high"`
	QPSMean        float64  `json:"qps_mean"`
	P99Ms          *float64 `json:"p99_ms"`
	ServerInFlight *float64 `json:"server_in_flight"`
	Bound          string   `json:"bound,omitempty"`
	PoolWaitP99Ms  float64  `json:"pool_wait_p99_ms,omitempty"`
	MeanLatencyMs  float64  `json:"mean_latency_ms,omitempty"`
	MaxPoolSize    int      `json:"max_pool_size,omitempty"`
}

// peakDoc is null for a peak that does not exist (no usable
// measurements).
type peakDoc struct {
	Concurrency *int     `json:"concurrency"`
	QPS         *float64 `json:"qps"`
}

// kneeDoc has concurrency, low, high and qps null when no knee was found.
type kneeDoc struct {
	Found           bool     `json:"found"`
	Concurrency     *int     `json:"concurrency"`
	Low             *int     `json:"low"`
	High            *int     `json:"high"`
	QPS             *float64 `json:"qps"`
	Confidence      string   `json:"confidence"`
	Statement       string   `json:"statement"`
	Stability       *float64 `json:"stability,omitempty"`
	Resamples       int      `json:"resamples,omitempty"`
	LoadHostLimited []int    `json:"load_host_limited,omitempty"`
}

type methodsDoc struct {
	Plateau        knee.Method `json:"plateau"`
	Kneedle        knee.Method `json:"kneedle"`
	Marginal       knee.Method `json:"marginal"`
	SLO            knee.Method `json:"slo"`
	ServerInFlight knee.Method `json:"server_in_flight"`
	USL            uslDoc      `json:"usl"`
}

// uslDoc has the parameters null when nothing was fitted, and peak_qps
// null when the fit has no finite peak (κ = 0) or was rejected; a fit that
// levels off (σ > 0, κ = 0) gives its asymptote instead. A rejected fit
// keeps its parameters and R², with bound null.
type uslDoc struct {
	Fitted       bool     `json:"fitted"`
	Skipped      string   `json:"skipped,omitempty"`
	Rejected     string   `json:"rejected,omitempty"`
	Lambda       *float64 `json:"lambda"`
	Sigma        *float64 `json:"sigma"`
	Kappa        *float64 `json:"kappa"`
	NStar        *float64 `json:"n_star"`
	PeakQPS      *float64 `json:"peak_qps"`
	AsymptoteQPS *float64 `json:"asymptote_qps,omitempty"`
	R2           *float64 `json:"r2"`
	Bound        *string  `json:"bound"`
	Points       int      `json:"points,omitempty"`
}

// kneeRecDoc has null settings when there was nothing to recommend.
type kneeRecDoc struct {
	Concurrency *int   `json:"concurrency"`
	MaxPoolSize *int   `json:"max_pool_size"`
	Why         string `json:"why"`
	PoolBound   bool   `json:"pool_bound"`
}

// replayDoc is analysis.Replay with its knee and peak as the series give
// them.
type replayDoc struct {
	Target    string                 `json:"target"`
	Workload  string                 `json:"workload"`
	Pool      string                 `json:"pool"`
	Clients   int                    `json:"clients"`
	File      string                 `json:"file"`
	Knee      kneeDoc                `json:"knee"`
	Peak      peakDoc                `json:"peak"`
	Shapes    []analysis.ShapeLevels `json:"shapes"`
	Saturates *analysis.Saturation   `json:"saturates_first"`
	FindByID  *baselineDoc           `json:"find_by_id,omitempty"`
}

type baselineDoc struct {
	Workload string  `json:"workload"`
	Pool     string  `json:"pool"`
	Knee     kneeDoc `json:"knee"`
	Peak     peakDoc `json:"peak"`
}

func intOrNull(v int, known bool) *int {
	if !known {
		return nil
	}
	return &v
}

func floatOrNull(v float64, known bool) *float64 {
	if !known {
		return nil
	}
	return &v
}

// seriesJSON is r's document, its numbers rounded. (A replay's knee and
// peak are given as the analysis has them, unrounded.)
func seriesJSON(r knee.Report) seriesDoc {
	r.Peak.QPS, r.Knee.QPS = round(r.Peak.QPS, 1), round(r.Knee.QPS, 1)
	r.Knee.Stability = roundPtr(r.Knee.Stability, 3)
	d := seriesDoc{Target: r.Target, Workload: r.Workload, Pool: r.Pool, Clients: r.Clients, Levels: make([]levelDoc, len(r.Levels)),
		Peak: peakJSON(r.Peak), Knee: kneeJSON(r.Knee), BoundPastKnee: r.BoundPastKnee, Verdict: r.Verdict, Warnings: r.Warnings}
	for i, l := range r.Levels {
		d.Levels[i] = levelDoc{Concurrency: l.Concurrency, Connections: intOrNull(l.Connections, l.Connections > 0), Trials: l.Trials,
			QPS: round(l.QPS, 1), QPSLow: round(l.QPSLow, 1), QPSHigh: round(l.QPSHigh, 1), QPSMean: round(l.QPSMean, 1),
			P99Ms: roundPtr(l.P99Ms, 3), ServerInFlight: roundPtr(l.ServerInFlight, 2), Bound: l.Bound,
			PoolWaitP99Ms: round(l.PoolWaitP99Ms, 3), MeanLatencyMs: round(l.MeanLatencyMs, 3), MaxPoolSize: l.MaxPoolSize}
	}
	m := r.Methods
	d.Methods = methodsDoc{Plateau: m.Plateau, Kneedle: m.Kneedle, Marginal: m.Marginal, SLO: m.SLO, ServerInFlight: m.ServerInFlight, USL: uslJSON(m.USL)}
	if r.Retrograde != nil {
		rg := *r.Retrograde
		rg.DropPct = round(rg.DropPct, 1)
		d.Retrograde = &rg
	}
	rc := r.Recommendation
	known := rc.Concurrency > 0
	d.Recommendation = kneeRecDoc{intOrNull(rc.Concurrency, known), intOrNull(rc.MaxPoolSize, known), rc.Why, rc.PoolBound}
	return d
}

func peakJSON(p knee.Peak) peakDoc {
	known := p.Concurrency > 0
	return peakDoc{intOrNull(p.Concurrency, known), floatOrNull(p.QPS, known)}
}

func kneeJSON(k knee.Knee) kneeDoc {
	return kneeDoc{Found: k.Found, Concurrency: intOrNull(k.Concurrency, k.Found), Low: intOrNull(k.Low, k.Found),
		High: intOrNull(k.High, k.Found), QPS: floatOrNull(k.QPS, k.Found), Confidence: k.Confidence,
		Statement: k.Statement, Stability: k.Stability, Resamples: k.Resamples, LoadHostLimited: k.LoadHostLimited}
}

func uslJSON(u knee.USL) uslDoc {
	var bound *string
	if u.Accepted() {
		bound = &u.Bound
	}
	peak := round(u.PeakQPS, 1)
	return uslDoc{Fitted: u.Fitted, Skipped: u.Skipped, Rejected: u.Rejected,
		Lambda: floatOrNull(roundSig(u.Lambda, 5), u.Fitted), Sigma: floatOrNull(roundSig(u.Sigma, 5), u.Fitted),
		Kappa: floatOrNull(roundSig(u.Kappa, 5), u.Fitted), NStar: roundPtr(u.NStar, 2),
		PeakQPS:      floatOrNull(peak, u.Accepted() && u.NStar != nil),
		AsymptoteQPS: floatOrNull(peak, u.Accepted() && u.NStar == nil && u.Sigma > 0),
		R2:           floatOrNull(round(u.R2, 4), u.Fitted), Bound: bound, Points: u.Points}
}

func replayJSON(rp analysis.Replay) replayDoc {
	d := replayDoc{Target: rp.Target, Workload: rp.Workload, Pool: rp.Pool, Clients: rp.Clients, File: rp.File,
		Knee: kneeJSON(rp.Knee), Peak: peakJSON(rp.Peak), Shapes: rp.Shapes, Saturates: rp.Saturates}
	if b := rp.FindByID; b != nil {
		d.FindByID = &baselineDoc{Workload: b.Workload, Pool: b.Pool, Knee: kneeJSON(b.Knee), Peak: peakJSON(b.Peak)}
	}
	return d
}

// roundedOpen copies r with floats rounded for output.
func roundedOpen(r openloop.Report) openloop.Report {
	r.Pools = append([]openloop.Pool{}, r.Pools...)
	for i := range r.Pools {
		ls := append([]openloop.Level{}, r.Pools[i].Levels...)
		for j := range ls {
			l := &ls[j]
			l.OfferedPerS, l.AchievedPerS = round(l.OfferedPerS, 1), round(l.AchievedPerS, 1)
			l.AchievedShare, l.PoolWaitShare, l.ErrorShare = round(l.AchievedShare, 4), round(l.PoolWaitShare, 4), round(l.ErrorShare, 5)
			l.P50Ms, l.P99Ms = round(l.P50Ms, 3), round(l.P99Ms, 3)
			l.UncorrectedP99Ms = roundPtr(l.UncorrectedP99Ms, 3)
		}
		r.Pools[i].Levels = ls
	}
	return r
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

// roundPtr rounds *v, keeping nil (not reported) as nil.
func roundPtr(v *float64, digits int) *float64 {
	if v == nil {
		return nil
	}
	r := round(*v, digits)
	return &r
}

func roundSig(v float64, sig int) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	d := sig - 1 - int(math.Floor(math.Log10(math.Abs(v))))
	if d < 0 {
		p := math.Pow(10, float64(-d))
		return math.Round(v/p) * p
	}
	return round(v, d)
}
