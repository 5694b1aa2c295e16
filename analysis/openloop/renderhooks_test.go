package openloop

import "io"

// The goldens are the open-loop reports as a user reads them, drawn by
// analysis/render. analysis/render imports this package, so a test of this
// package cannot import it; the external test file render_link_test.go
// sets these to analysis/render's functions before any test runs.
var (
	WriteOpenText func(w io.Writer, reports []Report) error
	WriteJSON     func(w io.Writer, reports []Report) error
)
