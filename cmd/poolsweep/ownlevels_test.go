package main

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// TestSweepOwnLevels: one sweep of two simulated deployments, each at
// levels of its own (--concurrency NAME=LIST), interleaved by position in
// their grids: each target measures exactly its own levels, the header
// records them, analyze finds nothing missing (no target owes the other's
// levels), and the deployments' table shows each side at its own levels
// ("-" where it has none). It asserts no ratio, so it runs in the
// parallel group.
func TestSweepOwnLevels(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runBinary(t, dir, 4*time.Minute, "sweep",
		"--target", "standalone=sim:slots=8,service=2ms", "--target", "sharded=sim:shards=3,slots=8,service=2ms",
		"--concurrency", "standalone=2,16", "--concurrency", "sharded=4,8,32", "--clients", "2", "--order", "interleaved",
		"--warmup", "300ms", "--duration", "1s", "--records", "500", "--no-plot", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, "each target at its own levels (--concurrency standalone=2,16 sharded=4,8,32)") {
		t.Errorf("the plan line does not say each target has its own levels:\n%s\n%s", stdout, stderr)
	}
	path := filepath.Join(out, "results.jsonl")
	res := readRes(t, path)
	var order []string
	for _, s := range res.Steps {
		order = append(order, fmt.Sprintf("%s@%d", s.Target, s.Concurrency))
	}
	if want := []string{"standalone@2", "sharded@4", "standalone@16", "sharded@8", "sharded@32"}; !reflect.DeepEqual(order, want) {
		t.Errorf("steps %v, want %v", order, want)
	}
	want := []results.TargetLevels{{Target: "sharded", Concurrency: []int{4, 8, 32}}, {Target: "standalone", Concurrency: []int{2, 16}}}
	if p := res.Header.Plan; !reflect.DeepEqual(p.TargetConcurrency, want) || !reflect.DeepEqual(p.Concurrency, []int{2, 4, 8, 16, 32}) || p.Steps != 5 {
		t.Errorf("header plan: concurrency %v, per target %+v, %d steps", p.Concurrency, p.TargetConcurrency, p.Steps)
	}

	code, text, stderr := runCLI(t, "analyze", path)
	if code != 0 || strings.Contains(text, "missing:") {
		t.Errorf("analyze: exit %d, %s\n%s", code, stderr, text)
	}
	code, text, stderr = runCLI(t, "compare", path, "--baseline", "standalone", "--candidate", "sharded")
	if code != 0 {
		t.Fatalf("compare: exit %d: %s\n%s", code, stderr, text)
	}
	// Each row: connections per client, then each side's ops/s and calls/s,
	// "-" where the side has no level there.
	rows := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		if f := strings.Fields(line); len(f) == 6 && f[1] == "(×2)" {
			rows[f[0]] = f[2:]
		}
	}
	for per, side := range map[string]string{"2": "standalone", "16": "standalone", "4": "sharded", "8": "sharded", "32": "sharded"} {
		r, ok := rows[per]
		if !ok {
			t.Errorf("the table has no row for %s per client:\n%s", per, text)
			continue
		}
		own, other := r[0], r[2]
		if side == "sharded" {
			own, other = r[2], r[0]
		}
		if own == "-" || other != "-" {
			t.Errorf("row %s (a level of %s alone): %v", per, side, r)
		}
	}
	if len(rows) != 5 {
		t.Errorf("%d rows, want 5:\n%s", len(rows), text)
	}
}
