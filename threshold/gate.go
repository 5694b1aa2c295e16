package threshold

import (
	"fmt"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/results"
)

// Gate is the error of failed outcomes (exit status 4, errext.GateError);
// nil when every threshold passed.
func Gate(os []results.ThresholdOutcome) error {
	failed := 0
	for _, o := range os {
		if !o.Pass {
			failed++
		}
	}
	if failed == 0 {
		return nil
	}
	return errext.GateError{Msg: fmt.Sprintf("%d of %d threshold(s) failed", failed, len(os))}
}
