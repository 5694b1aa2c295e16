package main

import (
	"io"

	"github.com/poolsweep/poolsweep/runner/progress"
)

// jsonProgress is stderr under --progress json (docs/progress.md): every
// line written to it is an event, and the run's own events go through
// it (runner/progress.JSON). The command line makes stderr one before it
// is parsed, so that its refusal is an event too (progressmode.go).
type jsonProgress struct{ *progress.JSON }

func newJSONProgress(w io.Writer) *jsonProgress { return &jsonProgress{progress.NewJSON(w)} }

// flush writes a last line that did not end in a newline.
func (p *jsonProgress) flush() { p.Flush() }
