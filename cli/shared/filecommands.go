package shared

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/internal/errext"
)

// The commands that read files named on their command line (analyze,
// plot, report, compare, merge) are built alike: help, a RunE that
// refuses an empty list of files before anything else, then the
// command's own run. This file holds that common part; each command's
// file keeps its help, its flags and its run.

// CmdHelp is a command's help as cobra shows it.
type CmdHelp struct {
	Use, Short, Long, Example string
}

// FilesCmd builds a command that reads the files named as its arguments.
// With none, RunE fails with need as a usage error; with need "" the
// command's run decides (analyze, which can read --csv instead).
// run gets the command's context, which a signal ends.
func FilesCmd(h CmdHelp, need string, run func(ctx context.Context, args []string) error) *cobra.Command {
	return &cobra.Command{
		Use: h.Use, Short: h.Short, Long: h.Long + "\n\n" + readHelp, Example: h.Example,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && need != "" {
				return errext.UsageError{Err: errors.New(need)}
			}
			return run(cmd.Context(), args)
		},
	}
}

// readHelp ends the help of every command that reads results files.
const readHelp = `Every record of a results file is checked against the schema (docs/results-schema.md)
before anything is read from it. Exit status: 0 done; 1 failed (a file could not be
written); 2 bad input: a flag, a path, or a record that breaks the schema, named by
file, line and field (results.jsonl:7: step.duration_s: 0 is not a window length);
nothing is written. --lenient skips such a step with that line as a warning instead.`
