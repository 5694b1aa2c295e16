package workload

import (
	"os"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testsrv"
)

// TestMain lets the lock tests, which mostly wait on servers, beats and
// staleness, all run at once rather than one per core.
func TestMain(m *testing.M) {
	testsrv.ParallelDefault(8)
	os.Exit(m.Run())
}
