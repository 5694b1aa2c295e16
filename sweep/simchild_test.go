package sweep

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/topology/sim"
)

// simChildEnv makes this test binary serve a simulator instead of running
// tests (see TestMain), so that a benchmark can put the server in another
// process and measure only the client's CPU.
const simChildEnv = "POOLSWEEP_TEST_SIM_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(simChildEnv); spec != "" {
		serveSimChild(spec)
		return
	}
	os.Exit(m.Run())
}

// serveSimChild runs the simulator until stdin closes.
func serveSimChild(spec string) {
	sp, err := sim.ParseSpec(spec)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	d, err := sim.Start(context.Background(), sp)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(d.URI())
	bufio.NewReader(os.Stdin).ReadString('\n')
	d.Close()
}

// simChild is the simulator in a child process of this test binary (see
// TestMain), so that its CPU is not the client's and it can be stopped
// with SIGSTOP like a stalled server.
type simChild struct {
	uri string
	cmd *exec.Cmd
}

// startSimChild starts the simulator in a child process of this test
// binary; it ends with the test.
func startSimChild(tb testing.TB, spec string) *simChild {
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
		cmd.Process.Signal(syscall.SIGCONT)
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
	return &simChild{uri: strings.TrimSpace(line), cmd: cmd}
}
