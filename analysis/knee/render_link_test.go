package knee_test

import (
	"io"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/render"
)

// init links the tests' renderers (renderhooks_test.go) to analysis/render,
// the one renderer of a knee report.
func init() {
	knee.WriteText = func(w io.Writer, reports []knee.Report) error {
		return render.Text(w, &analysis.Analysis{Series: reports})
	}
	knee.WriteJSON = func(w io.Writer, reports []knee.Report) error {
		return render.JSON(w, &analysis.Analysis{Series: reports})
	}
	knee.Summary = render.KneeLine
}
