// Package cmdutil holds what every poolsweep command needs, and nothing
// of the product: the streams a command writes to (Env), the one line an
// error becomes (SafeLine, the value-echo net, FlagError, ErrorLine), the
// flags declared with what they accept (flags.go) and the runF seam, and
// the rules for inputs and outputs (bounded reads of input files, an
// output that must not be an input). What several commands share of the
// product (results files, flag groups) lives in cli/shared; each command's
// own package (cli/analyze, cli/plot, …) builds its cobra command from
// both; cli/root puts them together.
package cmdutil

import "io"

// Env is what a command needs from the process (cli/cli's IOStreams), so
// that tests run commands in-process with their own streams.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}
