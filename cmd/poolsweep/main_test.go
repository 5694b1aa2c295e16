package main

import (
	"bufio"
	"bytes"
	debugbuildinfo "debug/buildinfo"
	"encoding/json"
	"encoding/xml"
	"image/png"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/cli/inspect"
	"github.com/poolsweep/poolsweep/internal/buildinfo"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/results"
)

func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		args []string
		want string // the flag the line must name
	}{
		{[]string{"sweep", "--concurrency", ""}, "--concurrency: an empty value"},
		{[]string{"sweep", "--concurrency", "0"}, "--concurrency"},
		{[]string{"sweep", "--concurrency", "-5"}, "--concurrency"},
		{[]string{"sweep", "--concurrency", "64..abc"}, "--concurrency"},
		{[]string{"sweep", "--concurrency", "1..256x1"}, "--concurrency"},
		{[]string{"sweep", "--pool", "200000"}, "--pool"},
		{[]string{"sweep", "--pool", ""}, "--pool"},
		{[]string{"sweep", "--clients", "0"}, "--clients"},
		{[]string{"sweep", "--trials", "-1"}, "--trials"},
		{[]string{"sweep", "--duration", "0s"}, "--duration"},
		{[]string{"sweep", "--duration", "soon"}, "--duration"},
		{[]string{"sweep", "--op-timeout", "-1s"}, "--op-timeout"},
		{[]string{"sweep", "--workload", "mixed", "--mix", "read=70,update=20"}, "--mix"},
		{[]string{"sweep", "--workload", "bogus"}, "--workload"},
		{[]string{"sweep", "--mixes", "50:40:0"}, "--mixes"},
		{[]string{"sweep", "--distribution", "hotspot"}, "--distribution"},
		{[]string{"sweep", "--workload-file", "/nonexistent/workloada"}, "--workload-file"},
		{[]string{"sweep", "--uri", "http://example"}, "--uri"},
		{[]string{"sweep", "--uri", "mongodb://alice:s3cret@h/", "--target", "a=mongodb://h/"}, "--uri and --target"},
		{[]string{"sweep", "--target", "noequals"}, "--target"},
		{[]string{"sweep", "--target", "a=sim:slots=0"}, "--target: target a: sim spec"},
		{[]string{"sweep", "--target", "a=mongodb://h/", "--target", "a=mongodb://g/"}, "used twice"},
		{[]string{"sweep", "--order", "random"}, "--order"},
		{[]string{"sweep", "--database", "admin"}, "--database"},
		{[]string{"sweep", "--bogus-flag"}, "unknown flag"},
		{[]string{"bogus"}, "unknown command"},
		{[]string{"serve", "--listen", "bad"}, "--listen"},
		{[]string{"serve", "--listen", "127.0.0.1:99999"}, "--listen"},
		{[]string{"serve", "--sim", "shards=2,routers=2", "--listen", "127.0.0.1:65533"}, "--listen"}, // 4 ports from 65533: past 65535
		{[]string{"sweep", "--concurrency", "1..1000+1", "--pool", "1..999+1", "--trials", "1000"}, "steps per target"},
		{[]string{"compare", "x.jsonl", "--baseline", "a", "--candidate", "a"}, "against itself"},
		{[]string{"sweep", "extra-arg"}, "unknown command"},
		{[]string{"serve", "--sim", "slots=0"}, "--sim"},
		{[]string{"serve", "--sim", "service=-1ms"}, "--sim"},
		{[]string{"serve", "--sim", "colour=blue"}, "--sim"},
		{[]string{"inspect"}, "--uri: required"},
		{[]string{"inspect", "--uri", "mongodb://h/", "--format", "xml"}, "--format"},
		{[]string{"analyze"}, "analyze"},
		{[]string{"analyze", "/nonexistent.jsonl"}, "nonexistent"},
		{[]string{"analyze", "--plateau", "2", "x"}, "--plateau"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runCLI(t, tt.args...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if code != errext.ExitUsage || len(lines) != 1 || !strings.Contains(stderr, tt.want) || strings.Contains(stderr, "goroutine") {
			t.Errorf("%v: exit %d, stderr %q (want exit 2 and one line naming %q)", tt.args, code, stderr, tt.want)
		}
		if stdout != "" {
			t.Errorf("%v: bad input printed to stdout: %q", tt.args, stdout)
		}
		if strings.Contains(stderr, "s3cret") {
			t.Errorf("%v: password leaked: %q", tt.args, stderr)
		}
	}
}

func TestAnalyzeBadFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notResults := writeFile(t, dir, "notes.txt", "hello\n")
	badCSV := writeFile(t, dir, "bad.csv", "concurrency,qps\n64,45000\n500,abc\n")
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"analyze", notResults}, "notes.txt:1"},
		{[]string{"analyze", "--csv", badCSV}, "bad.csv:3"},
	} {
		code, _, stderr := runCLI(t, tt.args...)
		if code != errext.ExitUsage || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
			t.Errorf("%v: exit %d stderr %q, want 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestSweepEmbedded is the README's main command with short windows: it
// starts `poolsweep serve` as a child, sweeps it over real sockets, and
// leaves results, figures and a knee line.
func TestSweepEmbedded(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the embedded server")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	// The child server makes its data directory under TMPDIR: a directory
	// of this test's own, so that what is left there is this sweep's.
	tmp := t.TempDir()
	code, stdout, stderr := runBinaryEnv(t, []string{"TMPDIR=" + tmp}, dir, 3*time.Minute, "sweep", "--concurrency", "1,2,4,8", "--trials", "1",
		"--warmup", "200ms", "--duration", "1s", "--records", "200", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if len(res.Steps) != 4 || res.End == nil || res.End.Status != results.StatusComplete {
		t.Fatalf("want 4 steps and a complete end record, got %d steps, end %+v", len(res.Steps), res.End)
	}
	h := res.Header
	if h.Schema != 1 || len(h.Targets) != 1 || h.Targets[0].ServerKind != "ferretdb" || h.Targets[0].Topology != "standalone" || h.Client.DriverVersion == "" || h.Plan.Steps != 4 {
		t.Errorf("header: %+v", h)
	}
	for i, s := range res.Steps {
		if s.OpsPerS <= 0 || s.Calls == 0 || s.Connections != s.Concurrency || s.Errors.Total() != 0 || s.OpsByType["find"].Count == 0 {
			t.Errorf("step %d implausible: %+v", i, s)
		}
	}
	if !strings.Contains(stdout, "knee: embedded ") || !strings.Contains(stdout, "pool-wait p99") {
		t.Errorf("summary lacks table or knee line:\n%s", stdout)
	}
	if !strings.Contains(stderr, "[4/4] embedded") {
		t.Errorf("no per-step progress on stderr:\n%s", stderr)
	}
	checkFigures(t, out, "throughput")
	// The child server is gone and its data removed.
	if matches, _ := filepath.Glob(filepath.Join(tmp, "poolsweep-serve-*")); len(matches) > 0 {
		t.Errorf("server data directory left behind: %s", matches)
	}
}

func checkFigures(t *testing.T, dir string, names ...string) {
	t.Helper()
	for _, n := range names {
		f, err := os.Open(filepath.Join(dir, n+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s.png does not decode: %v", n, err)
		}
		f.Close()
		b, err := os.ReadFile(filepath.Join(dir, n+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		d := xml.NewDecoder(bytes.NewReader(b))
		for {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Errorf("%s.svg is not XML: %v", n, err)
				break
			}
		}
	}
}

// TestSweepInterrupted sends SIGINT during the second step: the first step
// is kept, the closing record says interrupted, the exit status is 130.
func TestSweepInterrupted(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the embedded server")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := exec.Command(binary, "sweep", "--concurrency", "1,2,4", "--trials", "1", "--warmup", "100ms", "--duration", "1s", "--records", "100", "--out", out, "--no-plot")
	stderr, _ := cmd.StderrPipe()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	sc := bufio.NewScanner(stderr)
	var log strings.Builder
	for sc.Scan() {
		log.WriteString(sc.Text() + "\n")
		if strings.HasPrefix(sc.Text(), "[1/3]") {
			time.Sleep(700 * time.Millisecond) // inside step 2's window
			cmd.Process.Signal(syscall.SIGINT)
		}
	}
	err := cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.ExitCode() != errext.ExitInterrupted {
		t.Fatalf("exit: %v, want 130\n%s", err, log.String())
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if len(res.Steps) < 1 || res.Steps[0].Interrupted || res.End == nil || res.End.Status != results.StatusInterrupted {
		t.Fatalf("steps %d, end %+v\n%s", len(res.Steps), res.End, log.String())
	}
	if !strings.Contains(log.String(), "interrupted by SIGINT; finished steps are kept") || res.End.Signal != "SIGINT" {
		t.Errorf("no interruption message:\n%s", log.String())
	}

	// --resume with other settings is refused; with the same ones it
	// measures only what is missing and closes the file as complete.
	code, _, errText := runBinary(t, dir, time.Minute, "sweep", "--concurrency", "1,2,8", "--trials", "1", "--warmup", "100ms", "--duration", "1s", "--records", "100", "--resume", out, "--no-plot")
	if code != errext.ExitUsage || !strings.Contains(errText, "--concurrency was [1 2 4]") {
		t.Errorf("resume with another plan: exit %d %s", code, errText)
	}
	code, _, errText = runBinary(t, dir, 2*time.Minute, "sweep", "--concurrency", "1,2,4", "--trials", "1", "--warmup", "100ms", "--duration", "1s", "--records", "100", "--resume", out, "--no-plot")
	if code != 0 || !strings.Contains(errText, "1 of 3 steps already measured, 2 to go") {
		t.Fatalf("resume: exit %d\n%s", code, errText)
	}
	res = readRes(t, filepath.Join(out, "results.jsonl"))
	complete := map[int]int{}
	for _, s := range res.Steps {
		if !s.Interrupted {
			complete[s.Concurrency]++
		}
	}
	if len(complete) != 3 || complete[1] != 1 || complete[2] != 1 || complete[4] != 1 || res.End.Status != results.StatusComplete || res.Header.RunID == "" {
		t.Errorf("after resume: %v, end %+v", complete, res.End)
	}

	// Resuming a finished run touches nothing: it says so and exits 0.
	before, _ := os.ReadFile(filepath.Join(out, "results.jsonl"))
	code, _, errText = runBinary(t, dir, time.Minute, "sweep", "--concurrency", "1,2,4", "--trials", "1", "--warmup", "100ms", "--duration", "1s", "--records", "100", "--resume", out, "--no-plot")
	after, _ := os.ReadFile(filepath.Join(out, "results.jsonl"))
	if code != 0 || !strings.Contains(errText, "already complete") || !bytes.Equal(before, after) || strings.Contains(errText, "starting") {
		t.Errorf("resume of a complete run: exit %d, file changed %v\n%s", code, !bytes.Equal(before, after), errText)
	}
}

func TestServeStopsWhenStdinCloses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts FerretDB")
	}
	uri, stop := startServe(t)
	if !strings.HasPrefix(uri, "mongodb://127.0.0.1:") {
		t.Fatalf("first line %q", uri)
	}
	code, out, _ := runCLI(t, "inspect", "--uri", uri, "--format", "json")
	var rep inspect.Report
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Info.ServerKind != "ferretdb" || rep.Info.Topology != "standalone" || rep.Pool.MaxPoolSize != 100 {
		t.Errorf("inspect: exit %d, %s", code, out)
	}
	if err := stop(); err != nil {
		t.Errorf("serve did not exit cleanly after stdin closed: %v", err)
	}
}

func TestRedaction(t *testing.T) {
	t.Parallel()
	// An unreachable server with credentials: the error names the target
	// without its password.
	code, stdout, stderr := runCLI(t, "inspect", "--uri", "mongodb://alice:s3cret@127.0.0.1:1/?serverSelectionTimeoutMS=300&connectTimeoutMS=300")
	if code != errext.ExitFailed || !strings.Contains(stderr, "alice:***@") || strings.Contains(stderr+stdout, "s3cret") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = runCLI(t, "sweep", "--uri", "mongodb://alice:s3cret@127.0.0.1:1/?serverSelectionTimeoutMS=300", "--out", t.TempDir())
	if code == 0 || strings.Contains(stderr+stdout, "s3cret") {
		t.Errorf("sweep: exit %d, output leaks: %q %q", code, stdout, stderr)
	}
}

// TestRedactionEndToEnd sweeps a server through a URI with a password
// (FerretDB accepts any PLAIN credentials) and checks that nothing the
// sweep writes or prints contains it.
func TestRedactionEndToEnd(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts FerretDB")
	}
	plain, _ := startServe(t)
	uri := strings.Replace(plain, "mongodb://", "mongodb://alice:s3cret@", 1) + "?authMechanism=PLAIN"
	dir := t.TempDir()
	code, out, errOut := runBinary(t, dir, 2*time.Minute, "sweep", "--uri", uri, "--concurrency", "1,2", "--warmup", "100ms", "--duration", "500ms", "--records", "50", "--out", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "out", "*"))
	if len(files) < 3 {
		t.Fatalf("expected results and figures, got %v", files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if bytes.Contains(b, []byte("s3cret")) {
			t.Errorf("%s contains the password", f)
		}
	}
	if strings.Contains(out+errOut, "s3cret") {
		t.Errorf("output contains the password:\n%s\n%s", out, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "out", "results.jsonl"))
	if !bytes.Contains(b, []byte("alice:***@")) {
		t.Errorf("results header should keep the user and redact the password")
	}
}

// --version is the build information of the binary, as buildinfo words it
// (the results header records the same string).
func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	bi, err := debugbuildinfo.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := runBinary(t, t.TempDir(), 10*time.Second, "--version")
	if want := "poolsweep version " + buildinfo.Of(bi) + "\n"; code != 0 || out != want {
		t.Errorf("--version: exit %d, %q, want %q", code, out, want)
	}
}
