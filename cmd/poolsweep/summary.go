package main

import (
	"io"
	"path/filepath"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/plot"
	"github.com/poolsweep/poolsweep/report"
	"github.com/poolsweep/poolsweep/results"
)

// writeSummary prints the end-of-sweep table of res and what its analysis
// a (analysis.Of of res) concluded (render.Summary).
func writeSummary(w io.Writer, res *results.Results, a *analysis.Analysis) {
	_ = render.Summary(w, res, a)
}

// writeArtifacts draws every applicable figure of res and its analysis a
// into dir, and report.html (with the fleet's plan when not nil).
func writeArtifacts(dir string, res *results.Results, a *analysis.Analysis, plan *fleet.Plan) error {
	r, _, err := report.New([]*results.Results{res}, a, nil)
	if err != nil {
		return err
	}
	r.Fleet = plan
	if _, err := plot.WriteFiles(dir, r.Figures); err != nil {
		return err
	}
	return r.Write(filepath.Join(dir, "report.html"), report.HTML)
}
