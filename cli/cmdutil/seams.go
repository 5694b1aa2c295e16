package cmdutil

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/plot"
)

// RunSeam is the RunE of a command built with a runF seam (cli/cli's
// pattern): a test that passes runF gets the options as the flags left
// them, and nothing runs; otherwise run does. Either gets the command's
// context, which a signal ends.
func RunSeam[O any](o O, runF func(context.Context, O) error, run func(context.Context) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		if runF != nil {
			return runF(cmd.Context(), o)
		}
		return run(cmd.Context())
	}
}

// WriteFigures writes figs into dir, the directory the flag named (made
// if absent, by outfile's rules), and returns the paths written. A
// figure's file that outfile refuses there is the flag's usage error,
// found before anything is written or any of the figures' notes is
// printed.
func WriteFigures(e *Env, flag, dir string, figs []plot.Figure, notes []string) ([]string, error) {
	if err := plot.CheckFiles(dir, figs); err != nil {
		return nil, errext.Usagef("%s: %w", flag, err)
	}
	for _, n := range notes {
		fmt.Fprintln(e.Stderr, "note:", n)
	}
	if err := outfile.MakeDir(dir); err != nil {
		return nil, errext.Usagef("%s: %w", flag, err)
	}
	return plot.WriteFiles(dir, figs)
}
