package agents

import (
	"os"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testsrv"
)

// TestMain lets the parallel tests, which mostly wait on agents'
// heartbeats and timeouts, run more at once than one per core.
func TestMain(m *testing.M) {
	testsrv.ParallelDefault(8)
	os.Exit(m.Run())
}
