package cmdutil

import (
	"context"

	"github.com/spf13/cobra"
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
