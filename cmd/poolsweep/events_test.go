package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/errext"
)

// An event the target cannot take is refused once the target answers,
// before anything is loaded: exit 2, one line naming --event, the target
// and why, and no results written.
func TestEventRefusedByTarget(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		target, event, want string
	}{
		{"s=sim:slots=8", "1s=stepdown", `--event "1s=stepdown": target s: it is a standalone, and replSetStepDown steps down the primary of a replica set`},
		{"rs=sim:rs=3,slots=8", "1s=router-restart", `--event "1s=router-restart": target rs: it is a replset, and router-restart restarts a mongos`},
	} {
		work := t.TempDir()
		out := filepath.Join(work, "out")
		code, stdout, stderr := runBinary(t, work, time.Minute, "sweep", "--target", c.target, "--profile", "rate:100:3s", "--event", c.event, "--out", out, "--no-plot")
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		last := lines[len(lines)-1]
		if code != errext.ExitUsage || !strings.Contains(last, c.want) {
			t.Errorf("%s on %s: exit %d, stderr %q, want exit 2 and a last line with %q", c.event, c.target, code, stderr, c.want)
		}
		if strings.Contains(stdout+stderr, "loading") {
			t.Errorf("%s on %s: data was loaded: %q", c.event, c.target, stdout+stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "results.jsonl")); err == nil {
			t.Errorf("%s on %s: results were written", c.event, c.target)
		}
	}
}
