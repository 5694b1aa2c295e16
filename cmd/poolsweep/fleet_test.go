package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// recordedRun is a simulator sweep recorded with this tree (testdata/README.md).
const recordedRun = "testdata/sim-api.jsonl"

// TestFleetOnARecordedRun plans fleets from a recorded results file in the
// three formats and checks the recommendation against the file's own
// knee: N·P per host is at most the knee's calls in flight, and the next
// larger pool would pass it.
func TestFleetOnARecordedRun(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, 4, 10, 40} {
		code, stdout, stderr := runCLI(t, "fleet", recordedRun, "--instances", strconv.Itoa(n), "--format", "json")
		if code != 0 {
			t.Fatalf("N=%d: exit %d: %s", n, code, stderr)
		}
		var p struct {
			Series []struct {
				KneePerHost float64 `json:"knee_in_flight_per_host"`
				Rec         struct {
					MaxPoolSize int `json:"max_pool_size"`
				} `json:"recommendation"`
				Rows []struct {
					MaxPoolSize int     `json:"max_pool_size"`
					PastKnee    bool    `json:"past_knee"`
					InFlight    float64 `json:"in_flight_per_host"`
				} `json:"rows"`
			} `json:"series"`
		}
		if err := json.Unmarshal([]byte(stdout), &p); err != nil {
			t.Fatalf("N=%d: %v\n%s", n, err, stdout)
		}
		if len(p.Series) != 1 {
			t.Fatalf("N=%d: %d series", n, len(p.Series))
		}
		s := p.Series[0]
		pool := s.Rec.MaxPoolSize
		if pool < 1 || (pool > 1 && float64(n*pool) > s.KneePerHost) || float64(n*(pool+1)) <= s.KneePerHost {
			t.Errorf("N=%d: maxPoolSize %d, knee %g per host: not the largest pool at or under the knee", n, pool, s.KneePerHost)
		}
		for _, r := range s.Rows {
			if r.PastKnee != (r.InFlight > s.KneePerHost) {
				t.Errorf("N=%d P=%d: past_knee %v with %g in flight per host against %g", n, r.MaxPoolSize, r.PastKnee, r.InFlight, s.KneePerHost)
			}
		}
	}
	code, stdout, _ := runCLI(t, "fleet", recordedRun, "--instances", "4")
	if code != 0 || !strings.Contains(stdout, "recommendation: 4 instances: maxPoolSize 4 per host") {
		t.Errorf("text: exit %d\n%s", code, stdout)
	}
	code, stdout, _ = runCLI(t, "fleet", recordedRun, "--instances", "4", "--format", "markdown")
	if code != 0 || !strings.Contains(stdout, "| maxPoolSize | conns/host |") {
		t.Errorf("markdown: exit %d\n%s", code, stdout)
	}
	// -o writes the plan through outfile and prints its path.
	dir := t.TempDir()
	out := filepath.Join(dir, "fleet.md")
	code, stdout, stderr := runCLI(t, "fleet", recordedRun, "--instances", "4", "--format", "markdown", "-o", out)
	data, err := os.ReadFile(out)
	if code != 0 || err != nil || !strings.Contains(string(data), "recommendation: 4 instances") || strings.TrimSpace(stdout) != out {
		t.Errorf("-o: exit %d, %v, stdout %q stderr %q", code, err, stdout, stderr)
	}
}

func TestFleetBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(filepath.Join(dir, "target.md"), link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"fleet", recordedRun}, "--instances: required"},
		{[]string{"fleet", recordedRun, "--instances", "0"}, "--instances"},
		{[]string{"fleet", recordedRun, "--instances", "100001"}, "--instances"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--max-connections", "-1"}, "--max-connections"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--conn-memory", "0"}, "--conn-memory"},
		{[]string{"fleet", recordedRun, "--instances", "4", "--format", "html"}, "--format"},
		{[]string{"fleet", recordedRun, "--instances", "4", "-o", link}, "-o"},
		{[]string{"fleet", "--instances", "4"}, "fleet: give"},
		{[]string{"fleet", "/nonexistent.jsonl", "--instances", "4"}, "nonexistent"},
	} {
		code, stdout, stderr := runCLI(t, tt.args...)
		wantUsageLine(t, tt.args, code, stdout, stderr, tt.want)
	}
	if _, err := os.Lstat(filepath.Join(dir, "target.md")); err == nil {
		t.Error("-o wrote through a symlink")
	}
}

// TestFleetOnAFreshSweep sweeps the simulator (4 slots of 2 ms) briefly
// and plans two instances from it: the knee is where the slots fill, so
// the pool per instance is at most half of it.
func TestFleetOnAFreshSweep(t *testing.T) {
	t.Parallel()
	_, path := simSweep(t, "--target", "sim=sim:slots=4,service=2ms", "--concurrency", "1..16x2",
		"--warmup", "200ms", "--duration", "600ms", "--no-plot")
	code, stdout, stderr := runCLI(t, "fleet", path, "--instances", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m := regexp.MustCompile(`knee: concurrency (\d+) per client`).FindStringSubmatch(stdout)
	r := regexp.MustCompile(`recommendation: 2 instances: maxPoolSize (\d+) per host`).FindStringSubmatch(stdout)
	if m == nil || r == nil {
		t.Fatalf("no knee or recommendation:\n%s", stdout)
	}
	kneeC, _ := strconv.Atoi(m[1])
	pool, _ := strconv.Atoi(r[1])
	if want := max(kneeC/2, 1); pool != want {
		t.Errorf("knee %d: maxPoolSize %d for 2 instances, want %d\n%s", kneeC, pool, want, stdout)
	}
	// The simulator reports connections.current + available: the limit
	// was learned from the telemetry.
	if !strings.Contains(stdout, "serverStatus connections.current + available") {
		t.Errorf("limit not learned from the telemetry:\n%s", stdout)
	}
	t.Logf("\n%s", stdout)
}
