package analyze

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
	"github.com/spf13/cobra"
)

// runCLI runs "analyze args…" in-process as poolsweep runs it.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return cmdtest.Run(t, func(e *cmdutil.Env) *cobra.Command { return NewCmdAnalyze(e, nil) }, args...)
}

// writeFile writes content to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
