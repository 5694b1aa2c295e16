package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/runner/progress"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/sweep/agents"
)

// wireAgents makes the session one agent of the run: coordination in the
// first target's poolsweep database, through its client factory.
func (o *Options) wireAgents(session *sweep.Session, text *progress.Text) {
	a := o.Agents
	if a == nil {
		return
	}
	t := session.Targets[0]
	longest := session.Plan.LongestStep()
	session.Coordinator = &agents.Agent{RunID: session.RunID, Count: a.Count, Index: a.Index, PlanHash: agents.PlanHash(session, a.Count),
		ClientsPerAgent: session.Plan.Clients, Timeout: a.Timeout, Silence: a.Silence, NewClient: t.NewClient, Database: session.Workloads[0].Database,
		StepTime: longest + session.Plan.OpTimeout*5/4 + o.PrewarmTimeout + 20*time.Second,
		Window:   longest,
		Waiting: func(msg string) {
			text.EndLine()
			fmt.Fprintf(o.Messages, "agents: %s\n", textfmt.Line(msg))
		}}
	fmt.Fprintf(o.Messages, "agent %d of %d in run %s (coordinating through %s.%s on target %s)\n",
		a.Index, a.Count, session.RunID, session.Workloads[0].Database, agents.Collection, t.Header.Name)
}

// agentError turns what agent mode ended with into the run's errors: a
// refused agent is bad input (exit 2); a follower the leader stopped is
// interrupted (exit 130); a partial agent run exits 3 without advice to
// resume; nil when none applies.
func (o *Options) agentError(ctx context.Context, outcome sweep.Outcome, runErr error) error {
	var refused *agents.Refused
	switch {
	case errors.As(runErr, &refused):
		return errext.UsageError{Err: runErr}
	case o.Agents == nil:
		return nil
	case outcome.Status == results.StatusInterrupted && ctx.Err() == nil:
		return errext.InterruptedError{Signal: "the leader"}
	case outcome.Status == results.StatusPartial:
		return agentsPartial(outcome.Reason)
	}
	return nil
}

// agentsPartial ends an agent run whose steps did not all run with every
// agent: exit status 3, like a partial run, but with nothing to resume.
func agentsPartial(reason string) error {
	return errext.PartialError{Msg: "the run is partial: " + reason}
}

// fleetLengths says, for the plan line of an agent with auto lengths, who
// ends them; "" otherwise.
func (o *Options) fleetLengths(p plan.Plan) string {
	if o.Agents == nil || p.Auto == nil {
		return ""
	}
	return fmt.Sprintf("; agent 0 ends the auto phases of all %d agents at once, from the sum of their batches", o.Agents.Count)
}
