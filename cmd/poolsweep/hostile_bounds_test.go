package main

import (
	"context"
	"github.com/poolsweep/poolsweep/cli/shared"
	"github.com/poolsweep/poolsweep/internal/errext"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/fdlimit"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/threshold"
)

// Unbounded numbers. Each number a command takes has a
// declared range, and so has each product of them (lists × trials ×
// lengths, connections × clients against the open-file limit); past it,
// exit 2 with one line naming the flag, nothing started.

// TestThresholdBounds: a threshold past its metric's range is refused by
// every command that takes one, naming --threshold, the metric and the
// value as a token; its limit is taken.
func TestThresholdBounds(t *testing.T) {
	t.Parallel()
	for _, cmd := range [][]string{{"analyze", simRun}, {"sweep", "--target", "s=sim:slots=8"}} {
		for _, tc := range []struct{ in, want string }{
			{"ops>1e308", `ops: "1e308" is not a rate from 0 to 1000000000 ops/s`},
			{"ops>9223372036854775808", `ops: "9223372036854775808" is not a rate`},
			{"errors<1e308", `errors: "1e308" is not a count from 0 to 100000000000000`},
			{"calls>=2e9@knee", `calls: "2e9" is not a rate`},
			{"knee>=1000000", `knee takes a whole number of workers from 0 to 100000`},
			{"connections<1e10", `connections takes a whole number of connections from 0 to 1000000000`},
			{"pool_wait<2h", `pool_wait: "2h" is not between 0 and 1h`},
			{"ops>" + strings.Repeat("7", 100_000), `… (100000 bytes)`}, // a token, not the whole value
		} {
			argv := append(append([]string{}, cmd...), "--threshold", tc.in)
			code, stdout, stderr := runWithinUsing(t, 30*time.Second, dryRunners, argv...)
			wantRefused(t, cmd[0]+" "+tc.in[:min(len(tc.in), 30)], code, stdout, stderr, "--threshold", tc.want)
			if len(stderr) > 400 {
				t.Errorf("%s --threshold %.30s: %d bytes of stderr", cmd[0], tc.in, len(stderr))
			}
		}
	}
	// The limits themselves pass on the recorded run (its ops/s, errors
	// and connections lie within them), so the exit status is 0.
	for _, in := range []string{"ops<=1000000000", "errors<=100000000000000", "connections<=1000000000", "p99<=1h"} {
		if code, _, stderr := runCLI(t, "analyze", simRun, "--threshold", in); code != errext.ExitOK {
			t.Errorf("analyze --threshold %s: exit %d, want 0\n%s", in, code, stderr)
		}
	}
}

// TestThresholdHelpSaysTheBounds: --help's grammar quotes the bounds Parse
// holds, so the two cannot drift.
func TestThresholdHelpSaysTheBounds(t *testing.T) {
	for _, m := range []threshold.Metric{threshold.Ops, threshold.Errors, threshold.Connections, threshold.Knee} {
		_, hi, _ := threshold.Range(m, false)
		if s := "at most " + strconv.FormatFloat(hi, 'f', -1, 64); !strings.Contains(shared.ThresholdHelp, s) {
			t.Errorf("the threshold help does not say %q for %s", s, m)
		}
	}
}

// TestAutoWindowMinimums: an auto warm-up's maximum below what MSER-5
// needs (3 s), and a minimum above a maximum that is only a default, are
// refused naming the flag and the bound; the minimum itself is taken.
func TestAutoWindowMinimums(t *testing.T) {
	t.Parallel()
	if plan.AutoWarmupMin != 3*time.Second || plan.AutoWindowMin != time.Second {
		t.Fatalf("auto minimums %s and %s: MSER-5 reads 6 means of 5 batches of 100ms, an interval 10 batches", plan.AutoWarmupMin, plan.AutoWindowMin)
	}
	base := []string{"sweep", "--uri", "mongodb://127.0.0.1:1/", "--concurrency", "1,2", "--warmup", "auto", "--duration", "auto"}
	for _, tc := range []struct {
		args       []string
		flag, want string // "" flag: accepted
	}{
		{[]string{"--max-warmup", "1s"}, "--max-warmup", "below the 3s an auto warm-up needs"},
		{[]string{"--max-warmup", "2999ms"}, "--max-warmup", "give at least 3s, or a fixed --warmup"},
		{[]string{"--max-warmup", "3s"}, "", ""},
		{[]string{"--min-warmup", "2m"}, "--min-warmup", "above --max-warmup, 1m0s by default here; give --max-warmup too"},
		{[]string{"--min-warmup", "2m", "--max-warmup", "90s"}, "--max-warmup", "below --min-warmup 2m0s"},
		{[]string{"--min-duration", "61s"}, "--min-duration", "above --max-duration, 1m0s by default here"},
		{[]string{"--min-duration", "2s", "--max-duration", "1s"}, "--max-duration", "below --min-duration 2s"},
		{[]string{"--max-duration", "1s", "--min-duration", "1s"}, "", ""},
	} {
		code, stdout, stderr := runWithinUsing(t, 30*time.Second, dryRunners, append(append([]string{}, base...), tc.args...)...)
		if tc.flag == "" {
			if code != errext.ExitOK {
				t.Errorf("%q: exit %d, want it accepted\n%s", tc.args, code, stderr)
			}
			continue
		}
		wantRefused(t, strings.Join(tc.args, " "), code, stdout, stderr, tc.flag, tc.want)
	}
}

// TestRunTimeBound: the product of lists, trials and lengths is bounded by
// plan.MaxRunTime (168 h), every step or storm at its longest; the audit's
// storm of 100 maxConnecting values × 100 trials is refused, saying the
// total and the limit.
func TestRunTimeBound(t *testing.T) {
	t.Parallel()
	stormArgs := []string{"storm", "--target", "s=sim:slots=8", "-o", filepath.Join(t.TempDir(), "storm.jsonl")}
	sweepArgs := []string{"sweep", "--target", "s=sim:slots=8", "--concurrency", "1..1000+1", "--trials", "50", "--warmup", "0s"}
	for _, tc := range []struct {
		args       []string
		flag, want string // "" flag: accepted
	}{
		// 10,000 storms × (1m timeout + 30s of pings and closes) = 250h.
		{append(stormArgs, "--max-connecting", "1..100+1", "--trials", "100"), "--clients, --max-connecting and --trials",
			"10000 storms take up to 250h (10.4 days) at their longest, more than the 168h (7.0 days)"},
		// 10,000 storms × (10s + 30s) = 111h: within.
		{append(stormArgs, "--max-connecting", "1..100+1", "--trials", "100", "--timeout", "10s"), "", ""},
		// 50 trials × Σ over C = 1..1000 of (window + 0.5 s + C ms):
		// 11s windows are 50 × 12,000.5 s = 166.7 h; 12s windows 180.6 h.
		{append(sweepArgs, "--duration", "11s"), "", ""},
		{append(sweepArgs, "--duration", "12s"), "--concurrency, --pool and --trials", "50000 steps take up to 181h (7.5 days)"},
		// Two targets double it: 2 × 50 × 7,000.5 s = 194 h with 6s windows.
		{append(sweepArgs, "--duration", "6s"), "", ""},
		{append(sweepArgs, "--duration", "6s", "--target", "t=sim:slots=4"), "--concurrency, --pool and --trials over 2 target(s) × 1 series", "100000 steps take up to 194h"},
	} {
		code, stdout, stderr := runWithinUsing(t, 60*time.Second, dryRunners, tc.args...)
		if tc.flag == "" {
			if code != errext.ExitOK {
				t.Errorf("%q: exit %d, want it accepted\n%s", tc.args, code, stderr)
			}
			continue
		}
		wantRefused(t, strings.Join(tc.args, " "), code, stdout, stderr, tc.flag, tc.want)
	}
}

// underFileLimit runs poolsweep (this test binary) with its open-file
// limit, soft and hard, lowered to n by the shell that starts it.
func underFileLimit(t *testing.T, limit string, dir string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", "ulimit " + limit + ` && exec "$0" "$@"`, binary}, args...)...)
	cmd.Dir = dir
	return runCmd(t, cmd, args)
}

// TestFileLimit: under ulimit -n 512, a sweep (or a storm) whose largest
// step's connections need more descriptors than that is refused before
// anything starts (no simulator, no output directory), naming
// --concurrency, --pool or --clients × --pool, the limit and how to raise
// it. One that fits gets past the check (to a refusal of its --out,
// which comes later); so does one under a lowered soft limit with the
// hard limit above its need, which the check raises.
func TestFileLimit(t *testing.T) {
	t.Parallel()
	if lim, ok := fdlimit.Current(); !ok || lim.Hard < 2048 {
		t.Fatalf("this test lowers the open-file limit from at least 2048; the hard limit is %d", lim.Hard)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	noDir := filepath.Join(dir, "missing", "out")
	sweepArgs := []string{"sweep", "--target", "s=sim:slots=8", "--out", out}
	for _, tc := range []struct {
		limit      string
		args       []string
		flag, want string
	}{
		// 300 connections + the driver's 2 monitors + 256 reserved > 512.
		{"-n 512", append(sweepArgs, "--concurrency", "300"), "--concurrency", "need 558 file descriptors, but this process may open 512 (ulimit -n; hard limit 512): raise it with ulimit -n 558"},
		{"-n 512", append(sweepArgs, "--concurrency", "100", "--clients", "3"), "--concurrency", "opens 300 connections (100 each × 3 clients); with the driver's monitors and the process's own files they need 562 file descriptors"},
		{"-n 512", append(sweepArgs, "--concurrency", "400", "--pool", "10,300"), "--pool", "opens 300 connections"},
		// A simulated cluster's clients keep a pool to each router: known
		// from its spec before it starts.
		{"-n 512", []string{"sweep", "--target", "s=sim:shards=2,routers=2", "--out", out, "--concurrency", "150"}, "--concurrency", "opens 300 connections (150 each × 2 hosts)"},
		// Each of 2 agents fits (152 + 256), the simulator both do not.
		{"-n 512", append(sweepArgs, "--concurrency", "150", "--spawn", "2"), "--concurrency", "300 connections (150 each × 2 agents to the server this sweep starts)"},
		// Open loop: the pool, not --max-in-flight's 5000, sets the connections.
		{"-n 512", append(sweepArgs, "--rate", "1000", "--pool", "400"), "--pool", "opens 400 connections"},
		{"-n 512", append(sweepArgs, "--rate", "1000", "--pool", "1000", "--max-in-flight", "300"), "--max-in-flight", "opens 300 connections"},
		{"-n 512", []string{"storm", "--target", "s=sim:slots=8", "--clients", "20", "--pool", "20", "-o", filepath.Join(dir, "s.jsonl")}, "--clients × --pool", "need 677 file descriptors"},
		// Light clients: a list's largest level counts, each client with
		// its monitors: 200 × (1 + 2) + 256 > 512.
		{"-n 512", append(sweepArgs, "--rate", "100", "--clients", "10,200", "--pool", "1", "--max-in-flight", "1"), "--max-in-flight", "opens 200 connections (1 each × 200 clients); with the driver's monitors and the process's own files they need 856 file descriptors"},
		// One agent of several checks its own clients, before it connects.
		{"-n 512", []string{"sweep", "--uri", "mongodb://127.0.0.1:1", "--agents", "2", "--agent-index", "0", "--run-id", "r", "--out", out, "--concurrency", "100", "--clients", "3"}, "--concurrency", "opens 300 connections (100 each × 3 clients)"},
		// Fits: refused later, for its --out.
		{"-n 512", []string{"sweep", "--target", "s=sim:slots=8", "--out", noDir, "--concurrency", "200"}, "--out", ""},
		// The soft limit lowered, the hard one left: raised, so it fits.
		{"-Sn 512", []string{"sweep", "--target", "s=sim:slots=8", "--out", noDir, "--concurrency", "1000"}, "--out", ""},
	} {
		code, stdout, stderr := underFileLimit(t, tc.limit, dir, tc.args...)
		wantRefused(t, "ulimit "+tc.limit+" "+strings.Join(tc.args, " "), code, stdout, stderr, tc.flag, tc.want)
		if (tc.flag == "--concurrency" || tc.flag == "--pool" || tc.flag == "--max-in-flight") && !strings.Contains(stderr, "; or lower "+tc.flag) {
			t.Errorf("%q: %q does not say which flag to lower", tc.args, stderr)
		}
		if strings.Contains(stderr, "starting") {
			t.Errorf("%q: started something: %q", tc.args, stderr)
		}
		for _, p := range []string{out, filepath.Join(dir, "s.jsonl"), filepath.Join(dir, "missing")} {
			if _, err := os.Lstat(p); err == nil {
				t.Errorf("%q: %s was made", tc.args, p)
			}
		}
	}
}

// TestFileLimitShardedURI: a URI's routers are known only once it is
// detected; a sharded target whose clients' pools to every router do not
// fit is refused then, before any data is loaded or anything written,
// naming --concurrency and the routers.
func TestFileLimitShardedURI(t *testing.T) {
	t.Parallel()
	uri, _ := startServe(t, "--sim", "shards=2,routers=3,slots=4")
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// 100 connections a router fit one router's pool (102 + 256 < 512),
	// not three (306 + 256).
	code, stdout, stderr := underFileLimit(t, "-n 512", dir, "sweep", "--uri", uri, "--concurrency", "100", "--warmup", "0s", "--duration", "1s", "--out", out)
	last := strings.TrimSpace(stderr)
	if i := strings.LastIndex(last, "\n"); i >= 0 {
		last = last[i+1:] // after the target's detection line
	}
	wantRefused(t, "sharded URI under ulimit -n 512", code, stdout, last, "--concurrency", "opens 300 connections (100 each × 3 hosts)")
	if strings.Contains(stderr, "loading") || strings.Contains(stderr, "plan:") {
		t.Errorf("went on past the check: %q", stderr)
	}
	if _, err := os.Lstat(out); err == nil {
		t.Errorf("%s was made", out)
	}
}

// TestSpawnMemory: --spawn's agents share this machine, so the memory of
// the largest step is checked for all of them together: a step that fits
// this machine about 16 times over is taken alone and refused with 64
// agents, naming --spawn.
func TestSpawnMemory(t *testing.T) {
	t.Parallel()
	machine := sweep.MachineMemory()
	if machine == 0 {
		t.Fatal("no MemTotal in /proc/meminfo")
	}
	// A worker costs at least 64 KiB (sweep's estimate): these workers
	// take about a sixteenth of the machine.
	workers := int(machine / 16 / (64 << 10))
	c := min(workers, plan.MaxConcurrency)
	k := (workers + c - 1) / c
	if c*k > plan.MaxWorkers {
		t.Fatalf("a machine of %d bytes needs %d workers for this test, more than a process may run", machine, c*k)
	}
	args := []string{"sweep", "--target", "s=sim:slots=8", "--concurrency", strconv.Itoa(c), "--clients", strconv.Itoa(k), "--pool", "10", "--duration", "1s", "--warmup", "0s"}
	if code, _, stderr := runWithinUsing(t, 30*time.Second, dryRunners, append(args, "--spawn", "2")...); code != errext.ExitOK {
		t.Errorf("%d workers × %d clients in 2 agents: exit %d, want it accepted\n%s", c, k, code, stderr)
	}
	code, stdout, stderr := runWithinUsing(t, 30*time.Second, dryRunners, append(args, "--spawn", "64")...)
	wantRefused(t, "64 agents", code, stdout, stderr, "--spawn", "64 agents on this machine, each with the plan's clients")
}
