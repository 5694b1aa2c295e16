package openloop_test

import (
	"io"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/openloop"
	"github.com/poolsweep/poolsweep/analysis/render"
)

// init links the tests' renderers (renderhooks_test.go) to analysis/render,
// the one renderer of an open-loop report.
func init() {
	openloop.WriteOpenText = func(w io.Writer, reports []openloop.Report) error {
		return render.Text(w, &analysis.Analysis{Open: reports})
	}
	openloop.WriteJSON = func(w io.Writer, reports []openloop.Report) error {
		return render.JSON(w, &analysis.Analysis{Open: reports})
	}
}
