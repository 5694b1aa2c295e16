package sweep

import (
	"context"
	"errors"
	"time"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// Coordinator keeps a session in lock step with other processes that
// measure the same plan against the same deployment (agent mode): they
// meet before every step, start its warm-up and window at one agreed
// moment, and leave together. sweep/agents implements it; a session
// without one runs alone. The session calls it from its own goroutine,
// except Ready, which the step's runner calls.
type Coordinator interface {
	// Start joins the run before any data is loaded, and returns what
	// the results header records of agent mode (nil: none).
	Start(ctx context.Context) (*results.AgentsHeader, error)
	// Begin is called before each step; an *AgentsStopped error ends the
	// session (the leader stopped the run).
	Begin(ctx context.Context, spec plan.StepSpec) error
	// Ready is called once the step's pools are warm; it returns the
	// moment, on this host's clock, to start the warm-up. ErrStepSkipped
	// says the step runs (or ran) without this process.
	Ready(ctx context.Context, spec plan.StepSpec) (time.Time, error)
	// Finish is called after every step attempt (err is its error) and
	// may add agent-mode fields to the step before it is written.
	Finish(ctx context.Context, spec plan.StepSpec, step *results.StepResult, err error)
	// End is called once as the session ends: it tells the others,
	// removes the coordination documents, and may turn a complete
	// outcome partial (steps that ran without some agents).
	End(out *Outcome)
}

// ErrStepSkipped is wrapped by the error of a step that ran without this
// agent (it was not ready in time, or the leader could not measure it).
// The session records it as a step it could not measure and goes on.
var ErrStepSkipped = errors.New("the step ran without this agent")

// AgentsStopped ends a session because the run as a whole stopped: the
// leader was interrupted, failed or finished, or stopped answering.
type AgentsStopped struct {
	Status string // the status this agent's run ends with
	Reason string
}

func (a *AgentsStopped) Error() string { return a.Reason }

// alone is the coordinator of a session that runs by itself: every step
// begins at once, and nothing is recorded of agents.
type alone struct{}

func (alone) Start(context.Context) (*results.AgentsHeader, error) { return nil, nil }
func (alone) Begin(context.Context, plan.StepSpec) error           { return nil }
func (alone) Ready(context.Context, plan.StepSpec) (time.Time, error) {
	return time.Now(), nil
}
func (alone) Finish(context.Context, plan.StepSpec, *results.StepResult, error) {}
func (alone) End(*Outcome)                                                      {}

// join starts the session's coordinator (Coordinator, or alone), when
// there is something to measure; the returned func ends it, once: with
// the session's outcome, or nil when the session stops before it has
// one.
func (s *Session) join(ctx context.Context, measuring bool) (func(*Outcome), error) {
	s.coord = alone{}
	if s.Coordinator == nil || !measuring {
		return func(*Outcome) {}, nil
	}
	h, err := s.Coordinator.Start(ctx)
	if err != nil {
		return func(*Outcome) {}, err
	}
	s.coord, s.agents = s.Coordinator, h
	ended := false
	return func(out *Outcome) {
		if ended {
			return
		}
		ended = true
		if out == nil {
			out = &Outcome{Status: results.StatusFailed, Reason: "the session stopped before measuring"}
		}
		s.coord.End(out)
	}, nil
}

// agentIndex is this process's index in its agent run, or -1 alone.
func (s *Session) agentIndex() int {
	if s.agents == nil || s.agents.Index == nil {
		return -1
	}
	return *s.agents.Index
}
