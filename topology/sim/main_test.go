package sim

import (
	"os"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testpar"
)

// TestMain runs the parallel tests (replica sets, step-downs, queues,
// restarts: they mostly wait on the simulator's service times and the
// driver's monitoring) more at once than one per core. The calibrations
// stay serial: Go runs them before the parallel group.
func TestMain(m *testing.M) {
	testpar.Default(8)
	os.Exit(m.Run())
}
