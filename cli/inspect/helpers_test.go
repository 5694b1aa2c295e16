package inspect

import (
	"testing"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
)

// runCLI runs "inspect args…" in-process as poolsweep runs it.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return cmdtest.Run(t, func(e *cmdutil.Env) *cobra.Command { return NewCmdInspect(e, nil) }, args...)
}
