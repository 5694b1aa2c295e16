//go:build soak

package main

import (
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// The soak tier: FerretDB on PostgreSQL, the second real backend.
// scripts/pg.sh starts a throwaway PostgreSQL (installing it with apt-get when
// run as root) and exports its URLs; these tests live only here.

// TestPostgreSQLBackedSweep sweeps FerretDB on PostgreSQL (the second real
// backend) with updates, which is what deadlocks a small backend pool.
func TestPostgreSQLBackedSweep(t *testing.T) {
	uri, _ := startServe(t, "--postgresql-url", pgURL(t, "POOLSWEEP_TEST_PG_URL"))
	dir := t.TempDir()
	// 3,000 documents: with 300, 32 concurrent updaters queued on the same
	// rows' PostgreSQL locks for longer than the op timeout on a busy
	// host. This test is about a sweep against that backend working, not
	// its lock contention (TestPostgreSQLSmallPoolDeadlockSurvived is).
	code, stdout, stderr := runBinary(t, dir, 3*time.Minute, "sweep", "--uri", uri, "--workload", "mixed", "--mix", "read=50,update=50",
		"--concurrency", "1,4,16,64", "--warmup", "300ms", "--duration", "1500ms", "--records", "3000", "--out", filepath.Join(dir, "out"), "--no-plot")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res := readRes(t, filepath.Join(dir, "out", "results.jsonl"))
	if len(res.Steps) != 4 || res.Header.Targets[0].ServerKind != "ferretdb" {
		t.Fatalf("steps %d, header %+v", len(res.Steps), res.Header.Targets)
	}
	for _, s := range res.Steps {
		if s.OpsByType["update"].Count == 0 || s.OpsByType["find"].Count == 0 || s.Errors.Total() != 0 {
			t.Errorf("C=%d: %+v errors %+v", s.Concurrency, s.OpsByType, s.Errors)
		}
		// FerretDB reports no connections/opcounters: null, never a measured-looking zero.
		if s.Server == nil || s.Server.Total == nil || s.Server.Total.Connections != nil || s.Server.Total.ReadLatencyUS != nil {
			t.Errorf("C=%d: server telemetry should exist with FerretDB's missing fields nil: %+v", s.Concurrency, s.Server)
		}
		if s.Bound == "" || s.Client == nil || s.LittlesLaw == nil {
			t.Errorf("C=%d: no bound/client/Little's law: %+v", s.Concurrency, s)
		}
	}
}

// TestPostgreSQLSmallPoolDeadlockSurvived drives FerretDB on PostgreSQL
// with its default backend pool (50) into its deadlock under 128
// concurrent updates: the step ends within its time bound with timeouts
// counted, and every finished step is in results.jsonl. What comes next
// depends on whether the server answers again: a server still stuck fails
// the next step within seconds (the pre-step ping), which ends the run
// failed (exit 1) or, with --keep-going, partial (exit 3); one that
// recovered is measured on (exit 0). --max-error-rate stops the run at the
// deadlocked step itself.
func TestPostgreSQLSmallPoolDeadlockSurvived(t *testing.T) {
	pg := pgURL(t, "POOLSWEEP_TEST_PG_URL_SMALLPOOL")
	for _, tt := range []struct {
		name  string
		extra []string
		// the outcomes allowed: end status → exit code and steps kept
		want map[string][2]int
	}{
		{"goes on", nil, map[string][2]int{results.StatusFailed: {errext.ExitFailed, 2}, results.StatusComplete: {0, 3}}},
		{"keep going", []string{"--keep-going"}, map[string][2]int{results.StatusPartial: {errext.ExitPartial, 2}, results.StatusComplete: {0, 3}}},
		{"stops", []string{"--max-error-rate", "0.5"}, map[string][2]int{results.StatusFailed: {errext.ExitFailed, 2}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			// A deadlocked FerretDB stays stuck for minutes: each case gets
			// its own server, and ending it releases its PostgreSQL locks.
			uri, _ := startServe(t, "--postgresql-url", pg)
			dir := t.TempDir()
			args := append([]string{"sweep", "--uri", uri, "--workload", "update", "--concurrency", "8,128,256", "--warmup", "200ms", "--duration", "2s",
				"--op-timeout", "1s", "--prewarm-timeout", "5s", "--records", "300", "--out", filepath.Join(dir, "out"), "--no-plot"}, tt.extra...)
			start := time.Now()
			code, stdout, stderr := runBinary(t, dir, 3*time.Minute, args...)
			res, err := results.ReadResultsFile(filepath.Join(dir, "out", "results.jsonl"))
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			if res.End == nil {
				t.Fatalf("no end record\n%s", stderr)
			}
			want, ok := tt.want[res.End.Status]
			if !ok || code != want[0] || len(res.Steps) != want[1] {
				t.Fatalf("end %q, exit %d, %d steps; want one of %v\n%s\n%s", res.End.Status, code, len(res.Steps), tt.want, stdout, stderr)
			}
			if res.End.Status != results.StatusComplete && tt.extra == nil || len(tt.extra) > 0 && tt.extra[0] == "--keep-going" && res.End.Status == results.StatusPartial {
				if !strings.Contains(res.End.Reason+fmt.Sprint(res.End.FailedSteps), "does not answer") {
					t.Errorf("the end record should say the server stopped answering: %+v", res.End)
				}
			}
			var deadlocked *results.StepResult
			for i := range res.Steps {
				if res.Steps[i].Concurrency == 128 {
					deadlocked = &res.Steps[i]
				}
			}
			if deadlocked == nil || deadlocked.Errors.Timeout == 0 || deadlocked.DurationS > 2.5 {
				t.Fatalf("the 128-update step should have counted timeouts within its window: %+v", deadlocked)
			}
			if deadlocked.Bound != "server" {
				t.Errorf("a deadlocked server is the bound, got %q (%s)", deadlocked.Bound, deadlocked.BoundReason)
			}
			t.Logf("C=128: %d timeouts of %d ops in %.1fs; whole sweep %.0fs", deadlocked.Errors.Timeout, deadlocked.Ops, deadlocked.DurationS, time.Since(start).Seconds())
		})
	}
}

func pgURL(t *testing.T, env string) string {
	u := os.Getenv(env)
	if u == "" {
		if os.Getenv("CI") == "true" {
			// In CI the PostgreSQL backend is part of what must pass.
			t.Fatalf("%s is not set in CI: scripts/test.sh could not start PostgreSQL", env)
		}
		t.Skipf("%s is not set: run the soak tier with bash .ci/run, which starts a throwaway PostgreSQL", env)
	}
	return u
}
