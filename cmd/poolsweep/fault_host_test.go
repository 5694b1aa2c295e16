package main

import (
	"bufio"
	"github.com/poolsweep/poolsweep/internal/errext"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// The fault suite's cases on the load host's side (see fault_test.go):
// the results file cannot grow, the run gets a signal, its disk fills,
// and several sweeps share one database.

// TestFaultResultsFileLimit: the results file cannot grow (a file size
// limit, as a full disk): every record in it stays whole, the run stops
// and says so (exit 1), and --resume continues from the complete records.
func TestFaultResultsFileLimit(t *testing.T) {
	t.Parallel()
	p := sharedFaultProxy(t)
	args := faultArgs(p, "--concurrency", "1,2,3,4,5,6,7,8", "--duration", "300ms", "--warmup", "100ms")
	// dash counts ulimit -f in 512-byte blocks: 12 KiB holds a few steps.
	r := sweepWithFaults(t, 2*time.Minute, args, nil, "sh", "-c", `ulimit -f 24; exec "$@"`, "sh")
	// Said once, in words: it was "write X: write X: file too large".
	path := filepath.Join(r.out, "results.jsonl")
	if r.code != errext.ExitFailed || !strings.Contains(r.stderr, path+": the file size limit is reached (ulimit -f)") || strings.Contains(r.stderr, "write "+path) {
		t.Fatalf("exit %d, want 1 and the write error said once, in words\n%s", r.code, r.stderr)
	}
	if r.res == nil || len(r.res.Steps) == 0 || len(r.res.Steps) == 8 {
		t.Fatalf("want some but not all steps kept, got %v\n%s", r.res, r.stderr)
	}
	for _, w := range r.res.Warnings {
		if strings.Contains(w, "cut off") {
			t.Errorf("a cut record was left in the file: %s", w)
		}
	}
	kept := len(r.res.Steps)
	code, _, errText := runBinary(t, filepath.Dir(r.out), 2*time.Minute, append(append([]string{"sweep"}, args...), "--resume", r.out, "--no-plot")...)
	res, err := results.ReadResultsFile(filepath.Join(r.out, "results.jsonl"))
	if code != 0 || err != nil || len(res.Steps) != 8 || res.End.Status != results.StatusComplete {
		t.Fatalf("resume after the limit: exit %d, %v\n%s", code, err, errText)
	}
	if !strings.Contains(errText, itoa(kept)+" of 8 steps already measured") {
		t.Errorf("resume did not continue from the %d complete steps:\n%s", kept, errText)
	}
}

// TestFaultSignals: SIGTERM and SIGHUP end a run like Ctrl-C: the step in
// progress is recorded as interrupted, the end record names the signal,
// and the exit status is 128 + its number.
func TestFaultSignals(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault suite")
	}
	addr := sharedSimAddr(t, faultSimSpec)
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
		code int
	}{{syscall.SIGTERM, "SIGTERM", 143}, {syscall.SIGHUP, "SIGHUP", 129}} {
		p := newFaultProxy(t, addr)
		var cmd *exec.Cmd
		out := filepath.Join(t.TempDir(), "out")
		args := append(append([]string{"sweep"}, faultArgs(p)...), "--out", out, "--no-plot")
		cmd = exec.Command(binary, args...)
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		timer := time.AfterFunc(time.Minute, func() { cmd.Process.Kill() })
		sc := bufio.NewScanner(stderr)
		var log strings.Builder
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "[1/") {
				go func() { time.Sleep(time.Second); cmd.Process.Signal(tc.sig) }()
			}
		}
		err := cmd.Wait()
		timer.Stop()
		ee, _ := err.(*exec.ExitError)
		if ee == nil || ee.ExitCode() != tc.code {
			t.Errorf("%s: exit %v, want %d\n%s", tc.name, err, tc.code, log.String())
			continue
		}
		res, err := results.ReadResultsFile(filepath.Join(out, "results.jsonl"))
		if err != nil || res.End == nil || res.End.Status != results.StatusInterrupted || res.End.Signal != tc.name || len(res.Steps) < 1 || res.Steps[0].Interrupted {
			t.Errorf("%s: results %v %+v", tc.name, err, res)
		}
	}
}

// TestFaultDiskFull fills a small file system (a tmpfs in a mount
// namespace of its own) during a sweep: the results file keeps room for
// its end record, so the run stops between steps with every record whole
// and an end record that says why (exit 1).
func TestFaultDiskFull(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("fault suite")
	}
	if os.Getuid() != 0 {
		t.Skip("mounting a small tmpfs needs root (CI runs as root)")
	}
	p := newFaultProxy(t, sharedSimAddr(t, faultSimSpec))
	args := faultArgs(p, "--concurrency", "1..40+1", "--duration", "200ms", "--warmup", "100ms")
	dir := t.TempDir()
	mnt := filepath.Join(dir, "mnt")
	copyTo := filepath.Join(dir, "results-copy.jsonl")
	os.Mkdir(mnt, 0o755)
	script := `mount -t tmpfs -o size=320k none "$1" || exit 99; shift
out="$1"; shift; copy="$1"; shift
"$@" --out "$out" --no-plot; code=$?
cp "$out/results.jsonl" "$copy"; exit $code`
	cmd := exec.Command("unshare", append([]string{"-m", "sh", "-c", script, "sh", mnt, filepath.Join(mnt, "run"), copyTo, binary, "sweep"}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code == 99 {
		t.Fatalf("could not mount a tmpfs: %s", stderr.String())
	}
	res, rerr := results.ReadResultsFile(copyTo)
	if rerr != nil {
		t.Fatalf("results after the disk filled: %v\n%s", rerr, stderr.String())
	}
	if code != errext.ExitFailed || res.End == nil || res.End.Status != results.StatusFailed || !strings.Contains(res.End.Reason, "no space left") {
		t.Fatalf("exit %d, end %+v; want 1 and a failed end record saying the disk is full\n%s", code, res.End, stderr.String())
	}
	if len(res.Steps) == 0 || len(res.Steps) == 40 || len(res.Warnings) != 0 {
		t.Errorf("%d steps kept, warnings %q", len(res.Steps), res.Warnings)
	}
	t.Logf("disk full after %d of 40 steps, %s", len(res.Steps), time.Since(start).Round(time.Second))
}

// TestConcurrentSweepsOneDatabase: three sweeps started at once against
// one fresh FerretDB database all succeed; the data is loaded once.
func TestConcurrentSweepsOneDatabase(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts FerretDB")
	}
	uri, _ := startServe(t)
	var wg sync.WaitGroup
	runs := make([]faultRun, 3)
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i] = sweepWithFaults(t, 3*time.Minute, []string{"--uri", uri, "--records", "3000", "--concurrency", "1,2", "--warmup", "100ms", "--duration", "500ms", "--no-telemetry"}, nil)
		}()
	}
	wg.Wait()
	loads := 0
	for i, r := range runs {
		if r.code != 0 || r.res == nil || r.res.End.Status != results.StatusComplete {
			t.Errorf("sweep %d: exit %d\n%s", i, r.code, r.stderr)
		}
		loads += strings.Count(r.stderr, ": loading poolsweep.usertable")
	}
	if loads != 1 {
		t.Errorf("the collection was loaded %d times, want once", loads)
	}
}
