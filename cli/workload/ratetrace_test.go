package workload

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/poolsweep/poolsweep/cli/cmdutil"
	"github.com/poolsweep/poolsweep/internal/testkit/cmdtest"
	"github.com/poolsweep/poolsweep/loadprofile"
)

const realDir = "../../querylog/testdata/real/"

func build(e *cmdutil.Env) *cobra.Command { return NewCmdWorkload(e, nil) }

// readBack reads a trace as sweep --profile does, and its calls a second.
func readBack(t *testing.T, path string) (loadprofile.Profile, []float64) {
	t.Helper()
	p, err := loadprofile.Parse("trace:"+path, loadprofile.TraceReaderFor(context.Background()))
	if err != nil {
		t.Fatalf("the trace written does not read back: %v", err)
	}
	secs := make([]float64, int(p.Duration()/time.Second))
	for i := range secs {
		secs[i] = p.CallsBetween(time.Duration(i)*time.Second, time.Duration(i+1)*time.Second)
	}
	return p, secs
}

// TestRateTraceRealLogs: from-log --rate-trace on real mongod logs writes
// a trace that loadprofile reads back, each kept operation at the second
// it started. The expected seconds are worked out by hand from the
// lines: the log's time less durationMillis.
func TestRateTraceRealLogs(t *testing.T) {
	for _, tc := range []struct {
		name  string
		logs  []string
		ops   int
		at    map[int]float64 // second → operations; every other second 0
		span  int
		notes []string
	}{
		// 6.0.11 at slowms -1: of its slow-query lines, the insert (13.317 −
		// 1 ms), the update statement (13.420 − 11), the two finds (13.475 −
		// 90 and − 190) start in second 16:25:13; the delete statement
		// (16:26:25.316 − 221) 72 s later; the distinct (16:26:51.892 − 89)
		// 98 s later. hello, buildInfo, the batches and the $collStats
		// aggregation are not the application's.
		{"one member at slowms 0", []string{"hatchet-mongod-6.0.11.log"}, 6, map[int]float64{0: 4, 72: 1, 98: 1}, 99,
			[]string{"6 operations over 99 s", "slowms 0 and sample rate 1: the trace is every arrival"}},
		// Two members at the default slowms: rs1's insert (10:50:54.635 −
		// 368 ms), count (10:50:57.411) and update statement (10:51:05.754 −
		// 150), rs2's insert (10:55:13.326) and update (10:55:16.949). The
		// session cache's, the key monitor's, the oplog getMore and the
		// index build are the server's.
		{"two members at the default slowms", []string{"hatchet-replica-rs1-6.0.14.log", "hatchet-replica-rs2-6.0.14.log"}, 5,
			map[int]float64{0: 1, 3: 1, 11: 1, 259: 1, 262: 1}, 263,
			[]string{"5 operations over 263 s", "slower than slowms (100 ms): the trace is a lower bound"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			trace, wl := filepath.Join(dir, "rate.csv"), filepath.Join(dir, "w.yaml")
			args := []string{"workload", "from-log"}
			for _, l := range tc.logs {
				args = append(args, realDir+l)
			}
			code, stdout, stderr := cmdtest.Run(t, build, append(args, "-o", wl, "--rate-trace", trace)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			p, secs := readBack(t, trace)
			if len(secs) != tc.span || p.Calls() != float64(tc.ops) {
				t.Errorf("%d s, %g calls; want %d s, %d calls", len(secs), p.Calls(), tc.span, tc.ops)
			}
			for i, n := range secs {
				if n != tc.at[i] {
					t.Errorf("second %d: %g operations, want %g", i, n, tc.at[i])
				}
			}
			// The workload file counts the same operations.
			if b, err := os.ReadFile(wl); err != nil || !strings.Contains(string(b), "operations: "+itoa(tc.ops)+"\n") {
				t.Errorf("the workload file does not hold %d operations: %v", tc.ops, err)
			}
			flat := strings.Join(strings.Fields(stdout), " ")
			for _, want := range tc.notes {
				if !strings.Contains(flat, want) {
					t.Errorf("output lacks %q:\n%s", want, stdout)
				}
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestRateTraceSampled: operations logged at a sample rate below 1 count
// as 1/rate each, and the output says so.
func TestRateTraceSampled(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(realDir + "hatchet-mongod-6.0.11.log")
	if err != nil {
		t.Fatal(err)
	}
	// The setProfilingLevel line's new setting, at sample rate 0.25.
	sampled := strings.Replace(string(b), `"to":{"level":0,"slowms":-1,"sampleRate":1}`, `"to":{"level":0,"slowms":-1,"sampleRate":0.25}`, 1)
	if sampled == string(b) {
		t.Fatal("the log's setProfilingLevel line is not as the test expects")
	}
	log := filepath.Join(dir, "sampled.log")
	if err := os.WriteFile(log, []byte(sampled), 0o644); err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(dir, "rate.csv")
	code, stdout, stderr := cmdtest.Run(t, build, "workload", "from-log", log, "--rate-trace", trace)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.HasPrefix(stdout, "kind: ") {
		t.Errorf("without -o the workload file is not standard output: %.40q", stdout)
	}
	_, secs := readBack(t, trace)
	if secs[0] != 16 || secs[72] != 4 || secs[98] != 4 {
		t.Errorf("seconds 0, 72, 98: %g, %g, %g; want 16, 4, 4", secs[0], secs[72], secs[98])
	}
	if flat := strings.Join(strings.Fields(stderr), " "); !strings.Contains(flat, "6 operations were logged at a sample rate below 1 (0.25): each counts as 1/rate") {
		t.Errorf("stderr does not say the scaling:\n%s", stderr)
	}
}

// TestRateTraceBadInput: a trace that cannot be made, or would replace
// an input or the workload file, is refused with exit 2 in one line
// naming --rate-trace, and nothing is written.
func TestRateTraceBadInput(t *testing.T) {
	dir := t.TempDir()
	real := realDir + "hatchet-mongod-6.0.11.log"
	b, err := os.ReadFile(real)
	if err != nil {
		t.Fatal(err)
	}
	// The distinct's line two days later: the operations span more than
	// a profile may last.
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	lines[12] = strings.Replace(lines[12], "2023-09-23T16:26:51", "2023-09-25T16:26:51", 1)
	long := filepath.Join(dir, "long.log")
	if err := os.WriteFile(long, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"over the log", []string{real, "--rate-trace", real}, "--rate-trace: "},
		{"over -o", []string{real, "-o", out, "--rate-trace", out}, "--rate-trace: "},
		{"$queryStats", []string{"../../querylog/testdata/querystats.json", "--rate-trace", out}, "--rate-trace: $queryStats output holds counts but no times"},
		{"two days", []string{long, "--rate-trace", out}, "--rate-trace: the operations kept span 48h1m39s, longer than the 24h"},
		{"a directory", []string{real, "--rate-trace", dir}, "--rate-trace: "},
	} {
		code, _, stderr := cmdtest.Run(t, build, append([]string{"workload", "from-log"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%s: exit %d, %q; want 2 and one line with %q", tc.name, code, stderr, tc.want)
		}
		if es, _ := os.ReadDir(dir); !slices.EqualFunc(es, []string{"long.log"}, func(e os.DirEntry, n string) bool { return e.Name() == n }) {
			t.Errorf("%s: wrote a file", tc.name)
		}
	}
}
