// Package analysis is the one analysis of some results files: the knee
// analysis of every closed-loop series (analysis/knee), the open-loop
// verdicts (analysis/openloop), the deployments curve against curve
// (analysis/curves), the planned steps the files lack, what a searched run
// concluded, the pool settings of profile steps compared (Scenarios) and
// the whole pool configuration recommended, and the counts a run's
// summary states. It is computed once
// (Of, or Each for the two runs of an A/B pair) and handed to everything
// that shows it — analyze's text and JSON and the sweep's summary
// (analysis/render), the figures (plot) and the report — none of which
// decides anything again. Pure functions of decoded results; no I/O.
package analysis

import (
	"github.com/poolsweep/poolsweep/analysis/conncost"
	"github.com/poolsweep/poolsweep/analysis/curves"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/openloop"
	"github.com/poolsweep/poolsweep/results"
)

// Analysis is what poolsweep concludes from some results files.
type Analysis struct {
	// Options are the knee options the series were analysed with: the
	// caller's, with a searched run's p99 SLO when the caller gave none
	// (knee.SearchOptions), so that the knee a search located is the one
	// reported.
	Options knee.Options
	// Series are the knee reports of the closed-loop series, in the order
	// knee.FromResults forms them: across all files (Of), or file after
	// file (Each).
	Series []knee.Report
	// Open are the open-loop reports (sweep --rate), in the same order.
	Open []openloop.Report
	// Missing are the planned steps the files do not hold.
	Missing []Missing
	// Searches are what searched runs (sweep --search) concluded, as their
	// end records say; a pool search's answer is only here.
	Searches []Search
	// Curves compare the series that differ only in their target (or,
	// within one target, in their read preference or write concern),
	// curve against curve: which deployment, and by how much
	// (analysis/curves). Of sets them when the files hold more than one.
	Curves []*curves.Comparison
	// Replays are the replayed series' per-shape analyses (replay.go),
	// with the find-by-_id knee beside each where the files hold it.
	Replays []Replay
	// Scenarios are the profile steps' pool settings (sweep --profile),
	// each over its trials and against its target's baseline setting
	// (scenarios.go).
	Scenarios []Scenario
	// Events are the profile steps' events (sweep --event), each under
	// each setting over its trials and against the baseline setting under
	// the same event (events.go).
	Events []EventResult
	// Pool is the whole pool configuration recommended for each target
	// that has scenarios (poolrec.go).
	Pool []PoolRecommendation
	// RouterPools are the routers' pools to the shard hosts in each
	// closed-loop step that sampled them (routerpools.go).
	RouterPools []RouterPool
	// ConnectionCosts are what one connection costs the server, from each
	// file that holds a connection sweep (sweep --rate R --clients LIST),
	// in file order (conncost.Estimate).
	ConnectionCosts []*conncost.Cost
	// Counts are the files' steps counted for a summary.
	Counts Counts
	// PerFile, set by Each, is each file's own analysis in the order of
	// the files; Series, Open, Missing, Searches and Counts are then their
	// concatenation (sum).
	PerFile []*Analysis
}

// Search is a searched run's conclusion.
type Search struct {
	File string `json:"file"`
	Mode string `json:"mode"` // knee or pool
	// Conclusion is the end record's reason: where the search located the
	// knee and in how many steps, the pool size it found, or why it
	// stopped early.
	Conclusion string `json:"conclusion"`
}

// Of analyses rs together, as `poolsweep analyze` does: the steps of one
// series in several files are trials of one series.
func Of(rs []*results.Results, o knee.Options) *Analysis {
	o = searchOptions(rs, o)
	a := &Analysis{
		Options: o,
		Series:  knee.AnalyzeAll(knee.FromResults(rs), o),
		Open:    openloop.AnalyzeAll(openloop.FromResults(rs), o),
		Missing: MissingSteps(rs),
	}
	a.Curves = curves.All(rs, a.Series, 0)
	a.Replays = replaysOf(rs, a.Series)
	a.Scenarios = Scenarios(rs)
	a.Events = Events(rs, a.Scenarios)
	a.Pool = PoolRecommendations(a.Scenarios, a.Events, a.Series, storms(rs), o.SLOP99)
	a.RouterPools = RouterPools(rs)
	for _, r := range rs {
		if s, ok := searchOf(r); ok {
			a.Searches = append(a.Searches, s)
		}
		if c, err := conncost.Estimate(r); err == nil {
			a.ConnectionCosts = append(a.ConnectionCosts, c)
		}
		a.Counts.add(count(r))
	}
	return a
}

// Each analyses every file on its own, as `poolsweep analyze FILE` would
// each: two runs of one target (the sides of an A/B pair) get a report
// each.
func Each(rs []*results.Results, o knee.Options) *Analysis {
	a := &Analysis{Options: o}
	for _, r := range rs {
		f := Of([]*results.Results{r}, o)
		a.PerFile = append(a.PerFile, f)
		a.Series = append(a.Series, f.Series...)
		a.Open = append(a.Open, f.Open...)
		a.Missing = append(a.Missing, f.Missing...)
		a.Searches = append(a.Searches, f.Searches...)
		a.Replays = append(a.Replays, f.Replays...)
		a.Scenarios = append(a.Scenarios, f.Scenarios...)
		a.Events = append(a.Events, f.Events...)
		a.Pool = append(a.Pool, f.Pool...)
		a.RouterPools = append(a.RouterPools, f.RouterPools...)
		a.ConnectionCosts = append(a.ConnectionCosts, f.ConnectionCosts...)
		a.Counts.add(f.Counts)
	}
	if len(a.PerFile) > 0 {
		a.Options = a.PerFile[0].Options
	}
	return a
}

// searchOptions are o with the searched runs' p99 SLO when they share
// one and o has none.
func searchOptions(rs []*results.Results, o knee.Options) knee.Options {
	var plan *results.SearchPlan
	for _, r := range rs {
		sp := r.Header.Plan.Search
		switch {
		case sp == nil || sp.SLOP99Ms == 0:
		case plan == nil:
			plan = sp
		case plan.SLOP99Ms != sp.SLOP99Ms:
			return o // searches with different SLOs: the caller's options only
		}
	}
	return knee.SearchOptions(o, plan)
}

// searchOf is what a searched run's end record says it found.
func searchOf(r *results.Results) (Search, bool) {
	sp := r.Header.Plan.Search
	if sp == nil || r.End == nil || r.End.Reason == "" {
		return Search{}, false
	}
	return Search{File: r.Path, Mode: sp.Mode, Conclusion: r.End.Reason}, true
}

// OfSeries analyses series that come from elsewhere than results files (a
// CSV of YCSB's numbers, knee.ReadCSV): the knee reports only.
func OfSeries(series []knee.Series, o knee.Options) *Analysis {
	return &Analysis{Options: o, Series: knee.AnalyzeAll(series, o)}
}

// Empty says there is nothing analysed: no closed- or open-loop series,
// no profile settings.
func (a *Analysis) Empty() bool {
	return len(a.Series) == 0 && len(a.Open) == 0 && len(a.Scenarios) == 0
}

// storms are the connection storms of rs.
func storms(rs []*results.Results) []results.StormResult {
	var out []results.StormResult
	for _, r := range rs {
		if r != nil {
			out = append(out, r.Storms...)
		}
	}
	return out
}
