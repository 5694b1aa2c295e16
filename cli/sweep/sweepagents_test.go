package sweep

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	runlib "github.com/poolsweep/poolsweep/runner"
)

// TestAgentFlagsParsed: what valid agent-mode flags turn into, and the
// directory an agent writes by default (cmd/poolsweep's TestAgentFlags
// refuses the invalid ones end to end).
func TestAgentFlagsParsed(t *testing.T) {
	t.Parallel()
	uri := "mongodb://127.0.0.1:1/"
	var got *Options
	e := &cmdutil.Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
	cmd := NewCmdSweep(e, func(_ context.Context, o *Options) error { got = o; return nil })
	cmd.SetArgs([]string{"--uri", uri, "--agents", "3", "--agent-index", "2", "--run-id", "seed003", "--agent-timeout", "90s"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if _, err := got.validate(); err != nil {
		t.Fatal(err)
	}
	if got.agents != 3 || got.agentIndex != 2 || got.runID != "seed003" || got.agentTimeout != 90*time.Second || !got.agentMode() ||
		runlib.DefaultOutDir(runlib.NewRunID(got.runID), got.agentsOption()) != filepath.Join("poolsweep-out", "seed003", "agent-2") {
		t.Errorf("agent options %+v", got.agentOptions)
	}
}
