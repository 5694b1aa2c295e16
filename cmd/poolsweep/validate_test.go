package main

import (
	"encoding/json"
	"github.com/poolsweep/poolsweep/internal/errext"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// TestInvalidRecordsRefused: every command that reads results refuses a
// file with a step that breaks the schema — the audit's cases: a histogram
// that is not base64, a window of 0 s, no latency_ms, a target the header
// does not name, concurrency 2^62 — with exit 2 and one line naming the
// file, the line and the field, and writes nothing. With --lenient the
// step is skipped with that line as a warning and the rest is read.
func TestInvalidRecordsRefused(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(simRun)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(b), "\n"), "\n")
	cases := []struct {
		name, want string
		edit       func(m map[string]any)
	}{
		{"histogram not base64", "step.histograms.call: not an HdrHistogram", func(m map[string]any) {
			m["histograms"] = map[string]any{"call": "%%% not base64 %%%"}
		}},
		{"window of 0 s", "step.duration_s: 0 is not a window length", func(m map[string]any) { m["duration_s"] = 0 }},
		{"no latency_ms", "step.latency_ms: missing", func(m map[string]any) { delete(m, "latency_ms") }},
		{"target not in the header", `step.target: not one of the run header's 1 target(s)`, func(m map[string]any) { m["target"] = "ghost" }},
		{"concurrency 2^62", "step.concurrency: 4611686018427387904 is not between 1 and 100000", func(m map[string]any) { m["concurrency"] = 1 << 62 }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var m map[string]any
			if err := json.Unmarshal([]byte(lines[2]), &m); err != nil {
				t.Fatal(err)
			}
			tc.edit(m)
			bad, _ := json.Marshal(m)
			edited := append(append(append([]string{}, lines[:2]...), string(bad)+"\n"), lines[3:]...)
			path := writeFile(t, dir, "results.jsonl", strings.Join(edited, ""))
			good := writeFile(t, dir, "good.jsonl", string(b))
			out := filepath.Join(dir, "out")
			want := path + ":3: " + tc.want
			for _, args := range [][]string{
				{"analyze", path},
				{"plot", path, "-o", out},
				{"report", path, "-o", filepath.Join(dir, "r.html")},
				{"compare", good, path},
				{"merge", path, "-o", filepath.Join(dir, "m.jsonl")},
			} {
				code, stdout, stderr := runCLI(t, args...)
				if code != errext.ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, want) || stdout != "" {
					t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and one line %q", args[0], code, stdout, stderr, want)
				}
				for _, p := range []string{out, filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "r.html")} {
					if _, err := os.Stat(p); err == nil {
						t.Errorf("%s wrote %s from a refused file", args[0], p)
					}
				}
			}
			for _, args := range [][]string{
				{"analyze", path, "--lenient"},
				{"plot", path, "-o", out, "--lenient"},
				{"compare", good, path, "--lenient"},
			} {
				code, stdout, stderr := runCLI(t, args...)
				if code != 0 || stdout == "" || !strings.Contains(stderr, "warning: "+want) || !strings.Contains(stderr, "; skipped (--lenient)") {
					t.Errorf("%s --lenient: exit %d, stderr %q; want exit 0 and the step skipped with a warning", args[0], code, stderr)
				}
			}
		})
	}
}

// TestResumeLenient: --resume reads the earlier results through the same
// validator: a step that breaks the schema refuses the resume (exit 2,
// naming file, line and field); with --lenient the step is skipped with
// that line as a warning and measured again, and the end record counts
// each step once.
func TestResumeLenient(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs sweeps against a simulator")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	args := []string{"sweep", "--target", "s=sim:slots=8,service=1ms", "--concurrency", "1,2", "--warmup", "100ms", "--duration", "300ms",
		"--records", "100", "--no-plot", "--no-telemetry"}
	if code, _, stderr := runBinary(t, dir, 2*time.Minute, append(args, "--out", out)...); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	path := filepath.Join(out, "results.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[2]), &m); err != nil {
		t.Fatal(err)
	}
	m["duration_s"] = 0
	bad, _ := json.Marshal(m)
	lines[2] = string(bad) + "\n"
	if err := os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	want := path + ":3: step.duration_s: 0 is not a window length"
	code, _, stderr := runBinary(t, dir, 2*time.Minute, append(args, "--resume", out)...)
	if code != errext.ExitUsage || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("resume of a file with a bad step: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
	code, _, stderr = runBinary(t, dir, 2*time.Minute, append(args, "--resume", out, "--lenient")...)
	if code != 0 || !strings.Contains(stderr, "warning: "+want+"; skipped (--lenient)") || !strings.Contains(stderr, "1 of 2 steps already measured, 1 to go") {
		t.Fatalf("--resume --lenient: exit %d\n%s", code, stderr)
	}
	res, err := results.ReadFileWith(t.Context(), path, results.ReadOptions{Lenient: true})
	if err != nil || len(res.Steps) != 2 || res.End.Steps != 2 || res.End.Planned != 2 || res.End.Status != results.StatusComplete {
		t.Fatalf("after the lenient resume: %v, %d steps, end %+v", err, len(res.Steps), res.End)
	}
}
