// Package cmdutil holds what every poolsweep command shares: the streams
// a command writes to (Env), the one line an error becomes (SafeLine,
// the value-echo net, FlagError), the flags declared with what they
// accept (flags.go), the readers of results files and other inputs, and
// the flag groups several commands take (knee, fleet, thresholds,
// --lenient). Each command's own package (cli/analyze, cli/plot, …)
// builds its cobra command from these; cli/root puts them together.
package cmdutil

import "io"

// Env is what a command needs from the process (cli/cli's IOStreams), so
// that tests run commands in-process with their own streams.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}
