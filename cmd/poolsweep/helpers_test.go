package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/poolsweep/poolsweep/internal/errext"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/testkit/testpar"
	"github.com/poolsweep/poolsweep/results"
)

// binary is this test binary: started with cliEnv set, it is poolsweep
// (TestMain calls main), so the tests that need real processes (the sweep
// starts `poolsweep serve` as a child, as users get it; --spawn starts its
// agents) run it without building poolsweep first.
var binary string

// cliEnv makes this test binary run as poolsweep instead of running tests.
// TestMain sets it for its own children too, so that a sweep run in-process
// (runCLI) that starts os.Executable() as its server starts poolsweep.
const cliEnv = "POOLSWEEP_TEST_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(cliEnv) == "1" {
		main() // exits
	}
	exe, err := os.Executable()
	if err != nil {
		panic(err)
	}
	binary = exe
	os.Setenv(cliEnv, "1")
	// The parallel tests mostly wait on windows and servers: run more of
	// them at once than the default of one per core, unless -parallel
	// says otherwise.
	testpar.Default(8)
	before, err := sourceEntries()
	if err != nil {
		panic(err)
	}
	code := m.Run()
	stopSharedSims()
	if err := checkNothingWritten(before); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		code = 1
	}
	os.Exit(code)
}

// ownProcessEnv names the one test a child test binary runs, for
// inOwnProcess.
const ownProcessEnv = "POOLSWEEP_TEST_OWN_PROCESS"

// ownProcess starts the test named name (a subtest's full name) in a
// test binary of its own, at once, and returns a wait that reports that
// process's verdict on t. A test that changes process-wide state
// (t.Chdir) then runs beside the parallel ones; a test that starts
// several at once waits for each in its own subtest, so that all of them
// run in the slot of the one test, not queued behind the others'.
func ownProcess(t *testing.T, name string) (wait func(t *testing.T)) {
	t.Helper()
	args := []string{"-test.run=^" + name + "$", "-test.count=1"}
	if testing.Short() {
		args = append(args, "-test.short")
	}
	if testing.Verbose() {
		args = append(args, "-test.v")
	}
	cmd := exec.Command(binary, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, cliEnv+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, ownProcessEnv+"="+name)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Start()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err == nil {
			err = cmd.Wait()
		}
	}()
	return func(t *testing.T) {
		t.Helper()
		<-done
		if testing.Verbose() || err != nil {
			t.Logf("%s in a process of its own:\n%s", name, out.String())
		}
		if err != nil {
			t.Errorf("%s failed in a process of its own: %v", name, err)
		}
	}
}

// inOwnProcess runs t, a top-level test that changes process-wide state
// (t.Chdir), in a test binary of its own (ownProcess), beside the
// parallel tests, and says whether this binary is that one: the test goes
// on only where it says true.
func inOwnProcess(t *testing.T) bool {
	t.Helper()
	if !ownProcessChild() {
		t.Parallel()
		ownProcess(t, t.Name())(t)
		return false
	}
	return inOwnProcessChild(t)
}

// inOwnProcessChild says whether this test binary is the one ownProcess
// started for t.
func inOwnProcessChild(t *testing.T) bool { return os.Getenv(ownProcessEnv) == t.Name() }

// ownProcessChild says whether this test binary is one inOwnProcess
// started.
func ownProcessChild() bool { return os.Getenv(ownProcessEnv) != "" }

// runCLI runs poolsweep in-process and returns its exit status and output.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// runBinary runs poolsweep as a process of its own (this test binary,
// see TestMain) with a bound on its time.
func runBinary(t *testing.T, dir string, timeout time.Duration, args ...string) (int, string, string) {
	t.Helper()
	return runBinaryEnv(t, nil, dir, timeout, args...)
}

// runBinaryEnv is runBinary with env (NAME=value) added to this process's
// environment, for a parallel test (t.Setenv is for serial ones).
func runBinaryEnv(t *testing.T, env []string, dir string, timeout time.Duration, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Dir = dir
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	return runCmd(t, cmd, args)
}

// runCmd runs cmd, a run of poolsweep with args, and returns its exit
// status and output; a command that could not run fails the test.
func runCmd(t *testing.T, cmd *exec.Cmd, args []string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return code, out.String(), errb.String()
}

// wantUsageLine checks the run of args that exited code with stdout and
// stderr as a refusal of bad input: exit 2, one line on stderr holding
// want, nothing on stdout.
func wantUsageLine(t *testing.T, args []string, code int, stdout, stderr, want string) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != errext.ExitUsage || len(lines) != 1 || !strings.Contains(stderr, want) || stdout != "" {
		t.Errorf("%v: exit %d, stdout %q stderr %q (want exit 2 and one line naming %q)", args, code, stdout, stderr, want)
	}
}

// writeFile writes content to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readRes reads a results file or fails the test.
func readRes(t *testing.T, path string) *results.Results {
	t.Helper()
	res, err := results.ReadResultsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// launchServe starts `poolsweep serve args…` and waits for the URI it
// prints first. stdin is its standard input, held open: closing it is how
// a parent tells it to exit. The test's cleanup kills it if it still runs.
func launchServe(t *testing.T, args ...string) (cmd *exec.Cmd, stdin io.WriteCloser, uri string) {
	t.Helper()
	cmd = exec.Command(binary, append([]string{"serve"}, args...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		stdin.Close()
	})
	lines := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		lines <- strings.TrimSpace(line)
	}()
	select {
	case uri = <-lines:
		if !strings.HasPrefix(uri, "mongodb://") {
			t.Fatalf("serve %v printed %q; stderr: %s", args, uri, stderr.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("serve %v printed no URI; stderr: %s", args, stderr.String())
	}
	return cmd, stdin, uri
}

// startServe runs `poolsweep serve args…` and returns its URI and a stop
// function that closes its stdin (how a parent tells it to exit) and
// returns how it exited; the test's cleanup stops it if the test did not.
func startServe(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	cmd, stdin, uri := launchServe(t, args...)
	var once sync.Once
	var exitErr error
	stop := func() error {
		once.Do(func() {
			stdin.Close()
			done := waited(cmd)
			select {
			case exitErr = <-done:
			case <-time.After(15 * time.Second):
				cmd.Process.Kill()
				<-done
				exitErr = errors.New("serve did not exit within 15s of its stdin closing")
			}
		})
		return exitErr
	}
	t.Cleanup(func() { stop() })
	return uri, stop
}

// startCaught starts cmd, a run of poolsweep, with its stdout and stderr
// caught, and returns them and a channel that gets what its Wait returns.
func startCaught(t *testing.T, cmd *exec.Cmd) (stdout, stderr *bytes.Buffer, done <-chan error) {
	t.Helper()
	stdout, stderr = &bytes.Buffer{}, &bytes.Buffer{}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return stdout, stderr, waited(cmd)
}

// waited returns a channel that gets what cmd.Wait returns, for a wait
// bounded by a select.
func waited(cmd *exec.Cmd) <-chan error {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return done
}

// startServeCmd runs `poolsweep serve args…` with its stdin held open (so
// only a signal stops it) and returns the process and its URI.
func startServeCmd(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd, _, uri := launchServe(t, args...)
	return cmd, uri
}
