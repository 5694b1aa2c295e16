package main

import (
	"context"

	"github.com/spf13/cobra"
)

// runner is a command's parsed options: what its run does with them.
type runner interface {
	run(ctx context.Context, e *env) error
}

// runSeam is the RunE of a command built with a runF seam (cli/cli's
// pattern): a test that passes runF gets the options as the flags left
// them, and nothing runs; otherwise the command's own run does. Either
// gets the command's context, which a signal ends.
func runSeam[O runner](e *env, o O, runF func(context.Context, O) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, _ []string) error {
		if runF != nil {
			return runF(cmd.Context(), o)
		}
		return o.run(cmd.Context(), e)
	}
}
