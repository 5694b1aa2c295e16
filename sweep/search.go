package sweep

import (
	"fmt"
	"slices"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// sameSearch says which search setting of a resumed run differs.
func sameSearch(was, now *results.SearchPlan) error {
	switch {
	case was == nil && now == nil:
		return nil
	case was == nil:
		return fmt.Errorf("--search was not given (the run is a grid)")
	case now == nil:
		return fmt.Errorf("--search was %s", was.Mode)
	case was.Mode != now.Mode:
		return fmt.Errorf("--search was %s", was.Mode)
	case was.Resolution != now.Resolution || !slices.Equal(was.Levels, now.Levels):
		return fmt.Errorf("--resolution was %g", was.Resolution)
	case was.BudgetS != now.BudgetS:
		return fmt.Errorf("--budget was %s", fmtBudget(was.BudgetS))
	case was.SLOP99Ms != now.SLOP99Ms:
		return fmt.Errorf("--slo-p99 was %s", fmtBudget(was.SLOP99Ms/1000))
	}
	return nil
}

func fmtBudget(s float64) string {
	if s == 0 {
		return "not given"
	}
	return time.Duration(s * float64(time.Second)).String()
}
