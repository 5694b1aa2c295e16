package cmdutil

import (
	"context"

	"github.com/spf13/cobra"
)

// RunSeam is the RunE of a command built with a runF seam (cli/cli's
// pattern): check runs first, and finds every usage error the flags make
// alone, so that the flags-only tests reach each of them; then a test
// that passes runF gets the options as the flags left them, and nothing
// runs; otherwise run does. Either gets the command's context, which a
// signal ends.
func RunSeam[O any](o O, check func() error, runF func(context.Context, O) error, run func(context.Context) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		if err := check(); err != nil {
			return err
		}
		if runF != nil {
			return runF(cmd.Context(), o)
		}
		return run(cmd.Context())
	}
}
