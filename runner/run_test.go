package runner

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/threshold"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// TestRunConcludesInMemory: a run with thresholds returns its results,
// their analysis and the threshold outcomes as its file holds them, with
// the exit status the failed threshold calls for, and never opens the
// results.jsonl it wrote for reading (inotify on the output directory
// sees every open of a file in it that is closed unwritten, and every
// read).
func TestRunConcludesInMemory(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	dir := t.TempDir()
	w := workload.DefaultWorkload()
	w.Records, w.Database = 200, "ps_runner"
	var ts []threshold.Threshold
	for _, s := range []string{"ops>0", "p99<1us"} {
		th, err := threshold.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, th)
	}
	var messages bytes.Buffer
	o := Options{Targets: []topology.Target{{Name: "sim", URI: uri}}, Workloads: []workload.Workload{w},
		Plan: plan.Plan{Concurrency: []int{1, 2}, Pool: plan.PoolPlan{Match: true, Given: "match"}, Clients: 1, Trials: 1,
			Warmup: 100 * time.Millisecond, Duration: 300 * time.Millisecond, OpTimeout: time.Second},
		Out: dir, NoPlot: true, NoTelemetry: true, Thresholds: ts, Messages: &messages}

	reads := watchReads(t, dir)
	r := Run(context.Background(), o)
	if got := reads(); len(got) > 0 {
		t.Errorf("the run read files of its output directory: %q", got)
	}
	if code := errext.ExitCode(r.Err); code != errext.ExitGate {
		t.Fatalf("exit status %d (%v), want %d: p99<1us fails\n%s", code, r.Err, errext.ExitGate, messages.String())
	}
	path := filepath.Join(dir, "results.jsonl")
	file, err := results.ReadFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if r.ResultsPath != path || !reflect.DeepEqual(r.Results, file) {
		t.Errorf("the results returned (%s) are not what the file holds:\n%+v\n%+v", r.ResultsPath, r.Results, file)
	}
	if r.Analysis == nil || len(r.Analysis.Series) != 1 || len(r.Thresholds) != 2 || !reflect.DeepEqual(r.Thresholds, file.End.Thresholds) {
		t.Errorf("analysis %+v; thresholds %+v, the end record's %+v", r.Analysis, r.Thresholds, file.End.Thresholds)
	}
	if r.Outcome.Status != results.StatusComplete || r.Outcome.Measured != 2 {
		t.Errorf("outcome %+v", r.Outcome)
	}
	if !strings.Contains(messages.String(), "plan: grid") {
		t.Errorf("the plan line did not go to Messages:\n%s", messages.String())
	}
}

// watchReads watches dir with inotify for files in it read, or opened
// and closed without being written; the func it returns stops watching
// and names them.
func watchReads(t *testing.T, dir string) func() []string {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Skipf("inotify: %v", err)
	}
	if _, err := syscall.InotifyAddWatch(fd, dir, syscall.IN_ACCESS|syscall.IN_CLOSE_NOWRITE); err != nil {
		syscall.Close(fd)
		t.Skipf("inotify: %v", err)
	}
	return func() []string {
		defer syscall.Close(fd)
		var names []string
		buf := make([]byte, 64<<10)
		for {
			n, err := syscall.Read(fd, buf)
			if n <= 0 || err != nil {
				return names
			}
			for off := 0; off+syscall.SizeofInotifyEvent <= n; {
				ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
				name := string(bytes.TrimRight(buf[off+syscall.SizeofInotifyEvent:off+syscall.SizeofInotifyEvent+int(ev.Len)], "\x00"))
				if name != "" { // the directory itself is listed when files are made in it
					names = append(names, name)
				}
				off += syscall.SizeofInotifyEvent + int(ev.Len)
			}
		}
	}
}
