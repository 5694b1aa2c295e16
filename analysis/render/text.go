package render

import (
	"io"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Text renders a for people, as `poolsweep analyze` prints it: per
// series a verdict paragraph, the levels and each method's answer
// (seriesText), the planned steps missing, the open-loop reports, the
// deployment verdict in full (Deployments), the profile settings and the
// pool options recommended (Scenarios), then what each searched run
// concluded.
func Text(w io.Writer, a *analysis.Analysis) error {
	ew := textfmt.NewErrWriter(w)
	if len(a.Series) > 0 || len(a.Missing) > 0 {
		if err := seriesText(ew, a.Series, a.Missing...); err != nil {
			return err
		}
	}
	if len(a.Open) > 0 {
		if len(a.Series) > 0 || len(a.Missing) > 0 {
			ew.Printf("\n")
		}
		if err := openText(ew, a.Open); err != nil {
			return err
		}
	}
	routerPoolsText(ew, a.RouterPools)
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
	for _, c := range a.ConnectionCosts {
		ew.Printf("\n")
		ConnectionCost(ew, c)
	}
	for _, s := range a.Searches {
		ew.Printf("\nsearch %s (%s): %s\n", textfmt.Escape(s.Mode), textfmt.Escape(s.File), textfmt.Escape(s.Conclusion))
	}
	return ew.Err
}
