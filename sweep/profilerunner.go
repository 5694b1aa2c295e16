package sweep

import (
	"context"
	"errors"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// runProfile measures a profile step (spec.Profile set).
func (r *runner) runProfile(_ context.Context, spec plan.StepSpec) (results.StepResult, error) {
	step := r.newStep(spec)
	step.Mode = results.ModeProfile
	return step, errors.New("profile steps are not built in this branch")
}
