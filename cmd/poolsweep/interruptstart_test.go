package main

import (
	"bufio"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// TestSignalBeforeFirstStep sends a real signal to a sweep (this test
// binary run as poolsweep) before it has measured anything: while it
// loads its data (a simulator with one slot and 20 ms per operation,
// loading a million documents, takes minutes) and while it connects (to
// a listener that accepts and never answers). Each exits 128 + the
// signal and leaves its --out directory with the run's header, naming
// the target, and an interrupted end record naming the signal and the
// phase: the folder says the run started and stopped, and --resume can
// continue it.
func TestSignalBeforeFirstStep(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a simulator")
	}
	hole, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer hole.Close()
	var accepted atomic.Int64
	go func() {
		var held []net.Conn // accepted and never answered
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := hole.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
			accepted.Add(1)
		}
	}()
	common := []string{"sweep", "--concurrency", "1", "--warmup", "100ms", "--duration", "200ms", "--no-plot"}
	for _, tc := range []struct {
		phase  string
		sig    syscall.Signal
		name   string
		code   int
		target []string
		ready  func(line string) bool // the run is in the phase once this holds
		reason string
	}{
		{"loading", syscall.SIGTERM, "SIGTERM", 143, []string{"--target", "sim=sim:slots=1,service=20ms", "--records", "1000000"},
			// The plan line is the last before the session starts, and
			// the one target's load is its first work.
			func(line string) bool { return strings.HasPrefix(line, "plan: ") }, "interrupted while loading data"},
		{"connecting", syscall.SIGINT, "SIGINT", 130, []string{"--uri", "mongodb://" + hole.Addr().String() + "/?directConnection=true&serverSelectionTimeoutMS=600000&connectTimeoutMS=600000"},
			func(string) bool { return accepted.Load() > 0 }, "interrupted while starting or connecting to the targets"},
	} {
		t.Run(tc.phase, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			cmd := exec.Command(binary, append(append(append([]string{}, common...), tc.target...), "--out", out)...)
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			killer := time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() })
			defer killer.Stop()
			lines := make(chan string)
			var log strings.Builder
			go func() {
				defer close(lines)
				sc := bufio.NewScanner(stderr)
				for sc.Scan() {
					lines <- sc.Text()
				}
			}()
			sent := false
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
		wait:
			for {
				select {
				case line, ok := <-lines:
					if !ok {
						break wait
					}
					log.WriteString(line + "\n")
					if !sent && tc.ready(line) {
						sent = cmd.Process.Signal(tc.sig) == nil
					}
				case <-tick.C:
					if !sent && tc.ready("") {
						sent = cmd.Process.Signal(tc.sig) == nil
					}
				}
			}
			err = cmd.Wait()
			ee, _ := err.(*exec.ExitError)
			if !sent || ee == nil || ee.ExitCode() != tc.code {
				t.Fatalf("signal sent %v; exit %v, want %d\n%s", sent, err, tc.code, log.String())
			}
			res, err := results.ReadResultsFile(filepath.Join(out, "results.jsonl"))
			if err != nil {
				t.Fatalf("no results after %s while %s: %v\n%s", tc.name, tc.phase, err, log.String())
			}
			if e := res.End; e == nil || e.Status != results.StatusInterrupted || e.Signal != tc.name || !strings.Contains(e.Reason, tc.reason) || e.Steps != 0 || e.Planned != 1 {
				t.Errorf("end record %+v; want interrupted by %s, %q, 0 of 1 steps", e, tc.name, tc.reason)
			}
			if len(res.Steps) != 0 || len(res.Header.Targets) != 1 || res.Header.RunID == "" {
				t.Errorf("header %+v, %d steps; want the run named with its one target, no step", res.Header, len(res.Steps))
			}
		})
	}
}
