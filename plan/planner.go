package plan

import "github.com/poolsweep/poolsweep/results"

// A Planner chooses a session's steps one at a time from what has been
// measured so far: a fixed grid (GridPlanner), or an adaptive search. It
// is a small type of its own, like Plan.Steps, so that a new way of
// choosing steps never threads flags through the runner.
type Planner interface {
	// Next returns the next step to measure, given every step of this run
	// measured so far (a resumed run's earlier steps included, in file
	// order) and the steps that could not be measured in this session.
	// ok is false when the plan is done.
	Next(done []results.StepResult, failed []StepSpec) (spec StepSpec, ok bool)
	// Remaining estimates how many steps are still to come, for progress
	// and the time estimate.
	Remaining(done []results.StepResult) int
}

// PlannerNotes is what a planner may add to the end of a run: why it
// stopped where it did ("the budget ended before the knee's range was one
// grid step wide"). Optional.
type PlannerNotes interface {
	Notes() []string
}

// GridPlanner measures a fixed list of steps in order.
type GridPlanner struct {
	steps []StepSpec
	next  int
}

// NewGridPlanner plans steps as they are.
func NewGridPlanner(steps []StepSpec) *GridPlanner { return &GridPlanner{steps: steps} }

// Next returns the next step of the list.
func (g *GridPlanner) Next([]results.StepResult, []StepSpec) (StepSpec, bool) {
	if g.next >= len(g.steps) {
		return StepSpec{}, false
	}
	g.next++
	return g.steps[g.next-1], true
}

// Remaining is how many steps of the list are left.
func (g *GridPlanner) Remaining([]results.StepResult) int { return len(g.steps) - g.next }
