package runner

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plot"
	"github.com/poolsweep/poolsweep/report"
	"github.com/poolsweep/poolsweep/results"
)

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

// fleetPlan is the fleet's plan for report.html when Options.Fleet asks
// for one, or nil. The run is measured by now: a plan that cannot be made
// (the --storm run is of another deployment) is said in one line and the
// report is written without it.
func (o *Options) fleetPlan(res *results.Results, a *analysis.Analysis) *fleet.Plan {
	if o.Fleet == nil || o.Fleet.Instances == 0 {
		return nil
	}
	p, err := fleet.Make([]*results.Results{res}, a, *o.Fleet)
	var mis *fleet.MismatchError
	switch {
	case errors.Is(err, fleet.ErrNothing):
		err = fmt.Errorf("--instances: %w", err)
	case errors.As(err, &mis):
		err = errors.New("--storm: " + textfmt.Escape(mis.Reason))
	}
	if err != nil {
		fmt.Fprintf(o.Messages, "poolsweep: report.html without its fleet section: %s\n", textfmt.Line(err.Error()))
		return nil
	}
	return p
}
