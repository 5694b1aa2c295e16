package sweep

import (
	"testing"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/results"
)

// hostStarved says whether step's own client telemetry shows that this
// machine, not the simulator, set its numbers (bound.ClientLimited: our
// CPU, or a load host that kept our threads from a CPU), and logs the
// evidence. A claim on a simulator step's speed or noise may miss only on
// such a step, so a regression on a quiet host still fails.
func hostStarved(t *testing.T, st results.StepResult, what string) bool {
	t.Helper()
	if st.Client == nil {
		t.Logf("%s: no client telemetry on the step", what)
		return false
	}
	ok, why := bound.ClientLimited(&st)
	if ok {
		t.Logf("%s, but the load host was starved: %s", what, why)
	}
	return ok
}
