package testsrv

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/topology/sim"
)

// simChildEnv makes a test binary serve a simulator instead of running
// tests (Main), so that a test can put the server in another
// process: its CPU is then not the client's, the telemetry observer can
// read it as the server poolsweep runs on this machine (as a sweep does
// with its own child), and it can be stopped with SIGSTOP like a stalled
// server.
const simChildEnv = "POOLSWEEP_TEST_SIM_CHILD"

// Main is the TestMain of a package that uses SimChild: the child serves
// the simulator (serveSimChild), any other run runs the tests.
func Main(m *testing.M) {
	serveSimChild()
	os.Exit(m.Run())
}

// serveSimChild serves a simulator until stdin closes, and then exits, when
// this test binary was started by SimChild; otherwise it returns at once.
func serveSimChild() {
	spec := os.Getenv(simChildEnv)
	if spec == "" {
		return
	}
	sp, err := sim.ParseSpec(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	d, err := sim.Start(context.Background(), sp, sim.AloneInProcess())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(d.URI())
	bufio.NewReader(os.Stdin).ReadString('\n')
	d.Close()
	os.Exit(0)
}

// SimProcess is a simulator in a child process of this test binary.
type SimProcess struct {
	URI string
	Cmd *exec.Cmd
}

// PID is the child's process id.
func (s *SimProcess) PID() int { return s.Cmd.Process.Pid }

// SimChild starts the simulator in a child process of this test binary
// (the package's TestMain must be Main); it ends with the test,
// resumed first if the test stopped it.
func SimChild(tb testing.TB, spec string) *SimProcess {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), simChildEnv+"="+spec)
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		resume(cmd.Process)
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		tb.Fatalf("simulator child: %v", err)
	}
	return &SimProcess{URI: strings.TrimSpace(line), Cmd: cmd}
}
