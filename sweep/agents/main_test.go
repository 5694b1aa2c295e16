package agents

import (
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/testpar"
)

// TestMain lets the parallel tests, which mostly wait on agents'
// heartbeats and timeouts, run more at once than one per core.
func TestMain(m *testing.M) { testpar.Main(m, 8) }
