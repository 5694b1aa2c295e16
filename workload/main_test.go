package workload

import (
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/testpar"
)

// TestMain lets the lock tests, which mostly wait on servers, beats and
// staleness, all run at once rather than one per core.
func TestMain(m *testing.M) { testpar.Main(m, 8) }
