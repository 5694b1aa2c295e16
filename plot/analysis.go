package plot

import (
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// Analyze is AnalyzeWith and the documented defaults of `poolsweep
// analyze`.
func Analyze(rs []*results.Results) []knee.Report {
	return AnalyzeWith(rs, knee.DefaultOptions())
}

// AnalyzeWith analyses rs exactly as `poolsweep analyze` does with options
// o: the files' steps form series (target × workload × pool × clients)
// across files, each series analysed once. Figures draws these series.
func AnalyzeWith(rs []*results.Results, o knee.Options) []knee.Report {
	return knee.AnalyzeAll(knee.FromResults(rs), o)
}

// AnalyzeEach analyses every file on its own with options o, as `poolsweep
// analyze FILE` would each, so that two runs of one target (the sides of an
// A/B pair) get a report each, in the order FiguresEach draws their curves.
func AnalyzeEach(rs []*results.Results, o knee.Options) []knee.Report {
	var out []knee.Report
	for _, r := range rs {
		out = append(out, knee.AnalyzeAll(knee.FromResults([]*results.Results{r}), o)...)
	}
	return out
}
