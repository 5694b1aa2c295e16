package shared

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// ReadOptions is how the commands that read results files (analyze,
// plot, report, compare, merge, sweep --resume) treat a record that
// breaks the schema: refuse the file (exit 2, naming its line and field),
// or with --lenient skip the record with that line as a warning.
type ReadOptions struct{ Lenient bool }

// LenientHelp is --lenient's help, the same on every command.
const LenientHelp = "skip a step record that breaks the results schema (docs/results-schema.md), with a warning naming its file, line and field, instead of refusing the file with exit status 2"

// AddFlag registers --lenient on f.
func (r *ReadOptions) AddFlag(f *pflag.FlagSet) { f.BoolVar(&r.Lenient, "lenient", false, LenientHelp) }

// Options is the reader's options.
func (r ReadOptions) Options() results.ReadOptions { return results.ReadOptions{Lenient: r.Lenient} }

// File reads one results file; a file that cannot be read as results is
// bad input (a usage error naming it), or the interruption when a signal
// stopped the reading.
func (r ReadOptions) File(ctx context.Context, path string) (*results.Results, error) {
	res, err := results.ReadFileWith(ctx, path, r.Options())
	if err != nil {
		// Paths and decoding errors may carry bytes from outside: escaped
		// (by cmdutil.InputError), so they cannot drive the terminal.
		return nil, cmdutil.InputError(ctx, err)
	}
	return res, nil
}

// Files reads results files for analyze, plot, report and compare,
// telling warn what the reader noticed (a cut-off last line left out, a
// run without its end record, records skipped by --lenient).
func (r ReadOptions) Files(ctx context.Context, paths []string, warn io.Writer) ([]*results.Results, error) {
	var rs []*results.Results
	for _, p := range paths {
		res, err := r.File(ctx, p)
		if err != nil {
			return nil, err
		}
		if len(res.Steps) == 0 && res.Header.Plan.Storm != nil {
			return nil, errext.Usagef("%s: a storm run (poolsweep storm), not a sweep's results: give it to fleet or report as --storm", textfmt.Escape(p))
		}
		if len(res.Steps) == 0 {
			return nil, errext.Usagef("%s: no measured steps", textfmt.Escape(p))
		}
		WarnAll(warn, res)
		rs = append(rs, res)
	}
	return rs, nil
}

// WarnAll prints what the reader noticed about res.
func WarnAll(w io.Writer, res *results.Results) {
	for _, m := range res.Warnings {
		fmt.Fprintf(w, "poolsweep: warning: %s\n", cmdutil.SafeLine(m))
	}
}
