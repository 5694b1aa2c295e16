package analyze

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/testkit/ftdctest"
)

// The real 4.2.12 capture (testdata/ftdc/metrics-4.2.12) ends at this
// sample; the test's steps are placed by it.
var ftdc4212Last = time.Date(2021, 3, 15, 2, 35, 56, 0, time.UTC)

// ftdcRun rewrites the recorded simulator run (sim-api.jsonl, three trials
// of six levels) as if it had been measured against the 4.2.12 server
// while its FTDC ran: trial 1 without server telemetry (--no-telemetry)
// and inside the capture, trial 2 with the sampler's and inside it, trial 3
// without and after the capture ended. Windows are 10 s (rates scaled to
// match), so that each holds about ten of the capture's samples. With
// inside, trial 3 is inside the capture too.
func ftdcRun(t *testing.T, inside bool) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "..", "cmd", "poolsweep", "testdata", "sim-api.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(nil, 16<<20)
	idx := map[int]int{}
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		if m["kind"] == "step" {
			trial := int(m["trial"].(float64))
			i := idx[trial]
			idx[trial]++
			base := map[int]time.Time{1: ftdc4212Last.Add(-290 * time.Second), 2: ftdc4212Last.Add(-200 * time.Second), 3: ftdc4212Last.Add(time.Minute)}[trial]
			if inside && trial == 3 {
				base = ftdc4212Last.Add(-110 * time.Second)
			}
			m["started_at"] = base.Add(time.Duration(i) * 12 * time.Second).Format(time.RFC3339Nano)
			d := m["duration_s"].(float64)
			m["duration_s"] = 10.0
			m["calls_per_s"] = m["calls_per_s"].(float64) * d / 10
			m["ops_per_s"] = m["ops_per_s"].(float64) * d / 10
			if trial != 2 {
				delete(m, "server")
			}
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	return writeFile(t, t.TempDir(), "results.jsonl", out.String())
}

// ftdc4212Folder is a diagnostic.data folder holding the real 4.2.12 capture.
func ftdc4212Folder(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ftdc", "metrics-4.2.12"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "diagnostic.data")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "metrics.2021-03-15T02-21-47Z-00000", string(b))
	return dir
}

type ftdcJSON struct {
	Series []struct {
		Levels []struct {
			Concurrency    int      `json:"concurrency"`
			ServerInFlight *float64 `json:"server_in_flight"`
		} `json:"levels"`
	} `json:"series"`
	Server *struct {
		Captures []ftdcCapture `json:"captures"`
		Steps    []ftdcStep    `json:"steps"`
	} `json:"server_telemetry"`
}

// TestAnalyzeFTDC: analyze --ftdc on a real capture gives the steps inside
// it the capture's server numbers and judges them from those, keeps the
// sampler's where the step has them (unless --ftdc-replace), and says per
// host why a step after the capture has none.
func TestAnalyzeFTDC(t *testing.T) {
	run, dir := ftdcRun(t, false), ftdc4212Folder(t)
	for _, replace := range []bool{false, true} {
		args := []string{"analyze", run, "--ftdc", dir, "--format", "json"}
		if replace {
			args = append(args, "--ftdc-replace")
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		var got ftdcJSON
		if err := json.Unmarshal([]byte(stdout), &got); err != nil || got.Server == nil {
			t.Fatalf("%v: %v\n%s", args, err, stdout)
		}
		if c := got.Server.Captures; len(c) != 1 || c[0].Host != "ip-10-0-0-192" || c[0].Role != "standalone" || c[0].Samples != 849 {
			t.Fatalf("captures %+v", c)
		}
		if len(got.Server.Steps) != 18 {
			t.Fatalf("%d steps", len(got.Server.Steps))
		}
		for _, s := range got.Server.Steps {
			want := map[int]string{1: sourceFTDC, 2: sourceSampler, 3: sourceNone}[s.Trial]
			if replace && s.Trial == 2 {
				want = sourceFTDC
			}
			h := s.Hosts[0]
			switch {
			case s.Source != want:
				t.Errorf("replace %v: trial %d C=%d: source %s, want %s", replace, s.Trial, s.Concurrency, s.Source, want)
			case s.Trial < 3 && (!h.Covered || h.Samples < 9 || h.Samples > 11 || h.Role != "standalone"):
				t.Errorf("trial %d C=%d: host %+v, want ~10 samples of a standalone", s.Trial, s.Concurrency, h)
			case s.Trial == 3 && (h.Covered || !strings.Contains(h.Why, "no sample in the window")):
				t.Errorf("trial 3 C=%d: host %+v, want not covered", s.Concurrency, h)
			case s.Source == sourceFTDC && (s.Bound == "" || s.BoundReason == ""):
				t.Errorf("trial %d C=%d: not judged from the FTDC: %+v", s.Trial, s.Concurrency, s)
			}
		}
		// The knee's server-side evidence needs every trial's: trial 3
		// has none.
		for _, l := range got.Series[0].Levels {
			if l.ServerInFlight != nil {
				t.Errorf("replace %v: C=%d has a server in-flight count without trial 3's", replace, l.Concurrency)
			}
		}
	}

	// With every trial inside the capture and the FTDC's numbers for all
	// (the recorded sampler's have no opLatencies), every level has the
	// server's in-flight count.
	code, stdout, stderr := runCLI(t, "analyze", ftdcRun(t, true), "--ftdc", dir, "--ftdc-replace", "--format", "json")
	var got ftdcJSON
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
		t.Fatalf("exit %d %v: %s", code, err, stderr)
	}
	for _, l := range got.Series[0].Levels {
		if l.ServerInFlight == nil {
			t.Errorf("C=%d has no server in-flight count", l.Concurrency)
		}
	}

	// The text says the same.
	code, stdout, stderr = runCLI(t, "analyze", run, "--ftdc", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"server telemetry from FTDC (--ftdc): 6 step(s) from FTDC, 6 from the sampler, 6 without",
		"host ip-10-0-0-192, 4.2.12, standalone", "server numbers from FTDC; bound ", "FTDC does not cover the window: no sample in the window"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("text lacks %q:\n%s", want, stdout)
		}
	}
}

// TestAnalyzeFTDCBadInput: what --ftdc cannot use exits 2 with one line
// naming the flag, quoting nothing the files hold.
func TestAnalyzeFTDCBadInput(t *testing.T) {
	run := ftdcRun(t, false)
	// a real file with its first chunk's compressed bytes damaged
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "ftdc", "metrics-7.0.14"))
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) / 3; i < len(b)/3+64; i++ {
		b[i] ^= 0xff
	}
	garbage := t.TempDir()
	writeFile(t, garbage, "metrics.2024-09-05T16-39-03Z-00000", string(b))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", run, "--ftdc", t.TempDir()}, "holds no FTDC metric files"},
		{[]string{"analyze", run, "--ftdc", run}, "is not a folder"},
		{[]string{"analyze", run, "--ftdc", garbage}, "not a valid FTDC metric chunk"},
		{[]string{"analyze", run, "--ftdc-replace"}, "--ftdc-replace: needs --ftdc"},
		{[]string{"analyze", "--csv", run, "--ftdc", garbage}, "--ftdc: attached to results files"},
	} {
		code, stdout, stderr := runCLI(t, tc.args...)
		line := strings.TrimSpace(stderr)
		if code != 2 || stdout != "" || strings.Count(line, "\n") != 0 || !strings.Contains(line, tc.want) || !strings.Contains(line, "--ftdc") || strings.Contains(line, "secret") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and one line with %q", tc.args[2:], code, stdout, stderr, tc.want)
		}
	}
}

// TestAnalyzeFTDCLeftOut: a file beside a real capture whose chunks
// declare half a million samples each in a few hundred bytes is left out
// chunk by chunk, each with a warning on stderr naming the file, and
// counted in the JSON; the real capture's steps are read as before.
func TestAnalyzeFTDCLeftOut(t *testing.T) {
	run, dir := ftdcRun(t, false), ftdc4212Folder(t)
	at := ftdc4212Last.Add(time.Hour)
	const samples = 1 << 19
	deltas := append(bytes.Repeat([]byte{1}, samples-1), 0)
	deltas = binary.AppendUvarint(deltas, 15*(samples-1)-1)
	chunk := ftdctest.MetricDoc(at, ftdctest.Chunk(ftdctest.Reference(at, "ip-10-0-0-192", 13), 16, samples-1, deltas))
	writeFile(t, dir, "metrics.2021-03-15T03-35-56Z-00000", string(bytes.Repeat(chunk, 3)))
	code, stdout, stderr := runCLI(t, "analyze", run, "--ftdc", dir, "--format", "json")
	var got ftdcJSON
	if err := json.Unmarshal([]byte(stdout), &got); code != 0 || err != nil {
		t.Fatalf("exit %d %v: %s", code, err, stderr)
	}
	if c := got.Server.Captures[0]; c.LeftOut != 3 || len(c.Warnings) != 3 || c.Samples != 849 {
		t.Errorf("capture: %d chunks left out, warnings %q, %d samples", c.LeftOut, c.Warnings, c.Samples)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "poolsweep: warning: --ftdc: "+filepath.Join(dir, "metrics.2021-03-15T03-35-56Z-00000")+": document 1: ") {
		t.Errorf("stderr: %q", stderr)
	}
}
