package realclients_test

import (
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// TestMain serves a simulator child when asked to (testsrv.Main).
func TestMain(m *testing.M) { testsrv.Main(m) }
