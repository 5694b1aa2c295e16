package knee

import "io"

// The tests check what the analysis says in the words a user reads, and
// those words are drawn by analysis/render. analysis/render imports this
// package, so a test of this package cannot import it; the external test
// file render_link_test.go sets these to analysis/render's functions
// before any test runs.
var (
	WriteText func(w io.Writer, reports []Report) error
	WriteJSON func(w io.Writer, reports []Report) error
	Summary   func(r Report) string
)
