package cmdutil

import (
	"context"
	"github.com/poolsweep/poolsweep/internal/errext"
	"io"

	"github.com/poolsweep/poolsweep/internal/infile"
	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// Every file poolsweep reads is opened through internal/infile: a regular
// file (a FIFO, device, socket or directory is refused before anything
// can block on it), capped, and read only while no signal has come. The
// caps, by kind of input (a results file's is results.MaxFileBytes, sweep
// --workload-file's shapes.MaxFileBytes, whichever kind of file it is):
const (
	// MaxCSVBytes bounds analyze --csv: a table of steps.
	MaxCSVBytes = 64 << 20
)

// ReadInput reads the file flag names (a property file, a CSV table)
// through read, bounded by limit. Its errors are one line naming flag (a
// usage error), or the interruption when a signal came while reading.
func ReadInput[T any](ctx context.Context, flag, path string, limit int64, read func(io.Reader) (T, error)) (T, error) {
	var zero T
	f, err := infile.Open(ctx, path, limit)
	if err != nil {
		return zero, errext.Usagef("%s: %w", flag, textfmt.EscapeError(err))
	}
	defer f.Close()
	v, err := read(f)
	switch {
	case ctx.Err() != nil:
		return zero, errext.InterruptedBy(ctx)
	case err != nil:
		return zero, errext.Usagef("%s: %w", flag, textfmt.EscapeError(err))
	}
	return v, nil
}

// InputError says why results files could not be read or merged (every
// error of results.ReadFile names the file) as a usage error, or the
// interruption when a signal stopped the reading.
func InputError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errext.InterruptedBy(ctx)
	}
	return errext.UsageError{Err: textfmt.EscapeError(err)}
}
