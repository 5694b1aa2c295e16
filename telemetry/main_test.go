package telemetry

import (
	"os"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testpar"
)

// TestMain runs the parallel tests (an unreachable host or shard, FerretDB's
// null fields, an idle child: they wait on timeouts and servers, and
// measure no speed) all at once. The samplers of this process's and a busy
// child's CPU stay serial.
func TestMain(m *testing.M) {
	testpar.Default(8)
	os.Exit(m.Run())
}
