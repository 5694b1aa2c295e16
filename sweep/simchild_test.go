package sweep

import (
	"os"
	"os/exec"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testsrv"
)

func TestMain(m *testing.M) {
	testsrv.ServeSimChild()
	os.Exit(m.Run())
}

// simChild is the simulator in a child process of this test binary, so
// that its CPU is not the client's and it can be stopped with SIGSTOP like
// a stalled server.
type simChild struct {
	uri string
	cmd *exec.Cmd
}

// startSimChild starts the simulator in a child process of this test
// binary; it ends with the test.
func startSimChild(tb testing.TB, spec string) *simChild {
	tb.Helper()
	p := testsrv.SimChild(tb, spec)
	return &simChild{uri: p.URI, cmd: p.Cmd}
}
