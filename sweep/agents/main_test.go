package agents

import (
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/testpar"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// TestMain lets the parallel tests, which mostly wait on agents'
// heartbeats and timeouts, run more at once than one per core, and
// serves a simulator in a child process when asked to (testsrv.Main).
func TestMain(m *testing.M) {
	testpar.Default(8)
	testsrv.Main(m)
}
