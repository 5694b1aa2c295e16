package sweep

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
)

// Coordinator keeps a session in lock step with other processes that
// measure the same plan against the same deployment (agent mode): they
// meet before every step, start its warm-up and window at one agreed
// moment, and leave together. Agents is the implementation; a session
// without one runs alone. The session calls it from its own goroutine.
type Coordinator interface {
	// Start joins the run before any data is loaded, and returns what
	// the results header records of agent mode.
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

// startAgents joins the coordinator's run (when there is one and there is
// something to measure); the returned func ends it, once: with the
// session's outcome, or nil when the session stops before it has one.
func (s *Session) startAgents(ctx context.Context, measuring bool) (func(*Outcome), error) {
	if s.Coordinator == nil || !measuring {
		return func(*Outcome) {}, nil
	}
	h, err := s.Coordinator.Start(ctx)
	if err != nil {
		return func(*Outcome) {}, err
	}
	s.agents = h
	ended := false
	return func(out *Outcome) {
		if ended {
			return
		}
		ended = true
		if out == nil {
			out = &Outcome{Status: results.StatusFailed, Reason: "the session stopped before measuring"}
		}
		s.Coordinator.End(out)
	}, nil
}

func (s *Session) agentsBegin(ctx context.Context, spec plan.StepSpec) error {
	if s.Coordinator == nil {
		return nil
	}
	return s.Coordinator.Begin(ctx, spec)
}

func (s *Session) agentsFinish(ctx context.Context, spec plan.StepSpec, step *results.StepResult, err error) {
	if s.Coordinator != nil {
		s.Coordinator.Finish(ctx, spec, step, err)
	}
}

// agentRunner sets a runner up for agent mode: the start barrier, its
// own random streams and its own block of insert keys.
func (s *Session) agentRunner(r *Runner) {
	if s.Coordinator == nil || s.agents == nil || s.agents.Index == nil {
		return
	}
	r.StartAt = s.Coordinator.Ready
	r.Seed = uint64(*s.agents.Index) + 1
}

// agentKeys gives this agent its own block of insert keys, so that agents
// inserting at once never collide.
func (s *Session) agentKeys(k *workload.KeySpace) {
	if s.agents != nil && s.agents.Index != nil && *s.agents.Index > 0 {
		k.AgentBlock(*s.agents.Index)
	}
}

// PlanHash identifies what every agent of a run must share: the plan as
// expanded, the workloads, the targets' names and the number of agents.
// Two processes given the same flags get the same hash on any host.
func (s *Session) PlanHash(agents int) string {
	names := make([]string, len(s.Targets))
	for i, t := range s.Targets {
		names[i] = t.Header.Name
	}
	b, _ := json.Marshal(struct {
		Plan      results.PlanInfo     `json:"plan"`
		Workloads results.WorkloadInfo `json:"workloads"`
		Labels    []string             `json:"labels"`
		Targets   []string             `json:"targets"`
		Agents    int                  `json:"agents"`
	}{NewPlanInfo(s.Plan, len(s.Steps())), NewWorkloadInfo(s.Workloads), workloadLabels(s.Workloads), names, agents})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func workloadLabels(ws []workload.Workload) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Label
	}
	return out
}

// waitStart asks StartAt when to begin and waits for that moment; it
// returns how long the step waited at the barrier, in seconds.
func (r *Runner) waitStart(ctx context.Context, spec plan.StepSpec) (float64, error) {
	if r.StartAt == nil {
		return 0, nil
	}
	began := time.Now()
	at, err := r.StartAt(ctx, spec)
	if err != nil {
		return time.Since(began).Seconds(), err
	}
	if err := sleepUntil(ctx, at); err != nil {
		return time.Since(began).Seconds(), err
	}
	return time.Since(began).Seconds(), nil
}

// windowLead is how much of the warm-up an agent gives its observers'
// first samples (a serverStatus round trip, slow on a busy server), so
// that its window opens at the agreed start + warm-up and not later by
// however long they took: agents' windows then line up to the timers'
// precision. Without a barrier it is 0 and the runner is as before.
func (r *Runner) windowLead() time.Duration {
	if r.StartAt == nil {
		return 0
	}
	return min(100*time.Millisecond, r.Warmup/2)
}

// awaitWindow waits, in agent mode, until the warm-up that began at
// warmupStart has run its full length.
func (r *Runner) awaitWindow(ctx context.Context, warmupStart time.Time) {
	if r.StartAt != nil {
		_ = sleepUntil(ctx, warmupStart.Add(r.Warmup))
	}
}

// sleepUntil waits until the wall clock reads at.
func sleepUntil(ctx context.Context, at time.Time) error {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err()
	}
	return pause(ctx, d)
}
