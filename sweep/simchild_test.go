package sweep

import (
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/testpar"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// TestMain serves a simulator child when asked to (testsrv.Main). The
// parallel tests here mostly wait on servers, windows and teardown
// bounds: more of them run at once than the default of one per core,
// unless -parallel says otherwise.
func TestMain(m *testing.M) {
	testpar.Default(8)
	testsrv.Main(m)
}

// startSimChild starts the simulator in a child process of this test
// binary, so that its CPU is not the client's and it can be stopped with
// SIGSTOP like a stalled server; it ends with the test.
func startSimChild(tb testing.TB, spec string) *testsrv.SimProcess {
	tb.Helper()
	return testsrv.SimChild(tb, spec)
}
