package agents

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/beat"
	"github.com/poolsweep/poolsweep/internal/buildinfo"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

func replaceUpsert() options.Lister[options.ReplaceOptions] { return options.Replace().SetUpsert(true) }

// Begin starts coordinating the next step. A follower stops here when the
// leader has stopped the run (Ctrl-C on the leader, a failure, its end)
// or stopped answering, before it opens any connection for the step.
func (a *Agent) Begin(ctx context.Context, spec plan.StepSpec) error {
	a.seq++
	a.posted, a.started, a.missing, a.startAt = false, nil, nil, time.Time{}
	if msg := a.lost(); msg != "" {
		return &sweep.AgentsStopped{Status: results.StatusFailed, Reason: msg}
	}
	if a.leader() {
		return nil
	}
	return a.checkLeader(ctx)
}

// checkLeader returns *sweep.AgentsStopped when the leader has stopped the run,
// left, or stopped answering.
func (a *Agent) checkLeader(ctx context.Context) error {
	var d agentDoc
	err := a.coll.FindOne(ctx, bson.D{{Key: "_id", Value: a.agentID(0)}}).Decode(&d)
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return &sweep.AgentsStopped{Status: results.StatusFailed, Reason: fmt.Sprintf("the leader (agent 0) of run %s has left the run", a.RunID)}
	case err != nil:
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil // a read that failed says nothing; staleness will
	}
	now := time.Now()
	p := a.peer(0)
	p.observe(d, now)
	leader := a.name(0, d.Host)
	switch {
	case d.Stopped != "":
		status := results.StatusFailed
		switch d.Stopped {
		case results.StatusInterrupted:
			status = results.StatusInterrupted
		case results.StatusComplete, results.StatusPartial:
			status = results.StatusPartial
		}
		return &sweep.AgentsStopped{Status: status, Reason: fmt.Sprintf("%s stopped the run (%s): %s", leader, d.Stopped, d.StopReason)}
	case a.stale(p, now):
		return &sweep.AgentsStopped{Status: results.StatusFailed, Reason: fmt.Sprintf("%s stopped answering (no heartbeat for %s)", leader, a.silent(p, now).Round(time.Second))}
	}
	return nil
}

// Ready is the barrier: this agent's pools are warm. A follower says so
// and waits for the leader's start time; the leader waits until every
// agent is ready, has dropped out, or --agent-timeout has passed, and
// publishes the start time (on the reference clock) with the agents it
// runs without.
func (a *Agent) Ready(ctx context.Context, spec plan.StepSpec) (time.Time, error) {
	if !a.leader() {
		return a.followerReady(ctx, spec)
	}
	key := spec.Key()
	deadline := time.Now().Add(a.Timeout)
	pending := map[int]bool{}
	for i := 1; i < a.Count; i++ {
		pending[i] = true
	}
	told := false
	for len(pending) > 0 {
		docs, err := a.readAgents(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return time.Time{}, ctx.Err()
			}
			return time.Time{}, err
		}
		now := time.Now()
		for i := range pending {
			in, reason := a.judgeReady(i, docs, key, now, now.After(deadline))
			switch {
			case in:
				a.started = append(a.started, i)
			case reason != "":
				a.missing = append(a.missing, results.MissingAgent{Index: i, Host: docs[i].Host, Reason: reason})
			default:
				continue
			}
			delete(pending, i)
		}
		if len(pending) == 0 {
			break
		}
		if !told && time.Until(deadline) < a.Timeout-5*time.Second && a.Waiting != nil {
			a.Waiting(fmt.Sprintf("step %d: waiting for %s to be ready (up to --agent-timeout %s)", a.seq, indexList(pending), a.Timeout))
			told = true
		}
		if err := beat.Pause(ctx, agentPoll); err != nil {
			return time.Time{}, err
		}
	}
	sortMissing(a.missing)
	a.startAt = a.refNow().Add(agentLead).Truncate(time.Millisecond) // as the document stores it
	sd := stepDoc{ID: a.stepID(a.seq), Kind: "step", RunID: a.RunID, Seq: a.seq, Key: key, StartAt: a.startAt, Missing: a.missing}
	if _, err := a.coll.InsertOne(ctx, sd); err != nil {
		return time.Time{}, fmt.Errorf("agents: publish the start of step %d: %w", a.seq, err)
	}
	a.posted = true
	a.keepQuiet(a.toLocal(a.startAt))
	return a.toLocal(a.startAt), nil
}

// judgeReady says whether follower i is in the step (in), out of it
// (reason), or not yet decided (neither).
func (a *Agent) judgeReady(i int, docs map[int]agentDoc, key string, now time.Time, late bool) (in bool, reason string) {
	d, ok := docs[i]
	if !ok {
		if late {
			return false, fmt.Sprintf("not registered within --agent-timeout %s", a.Timeout)
		}
		return false, ""
	}
	p := a.peer(i)
	p.observe(d, now)
	switch {
	case d.Stopped != "":
		return false, "stopped: " + cmp.Or(d.StopReason, d.Stopped)
	case !p.live:
		if late {
			return false, fmt.Sprintf("not registered within --agent-timeout %s (its document shows no heartbeat)", a.Timeout)
		}
		return false, ""
	case d.PlanHash != a.PlanHash:
		return false, fmt.Sprintf("refused: its plan (hash %s) is not this run's (hash %s); give every agent the same flags", d.PlanHash, a.PlanHash)
	case d.ToolVersion != buildinfo.Version():
		return false, fmt.Sprintf("refused: it runs poolsweep %s, the leader %s", d.ToolVersion, buildinfo.Version())
	case d.Ready == a.seq && d.ReadyKey == key:
		return true, ""
	case d.Ready == a.seq:
		return false, fmt.Sprintf("it is ready for another step (%s): the plans diverged", d.ReadyKey)
	case d.Done >= a.seq:
		return false, "it could not run the step: " + cmp.Or(d.DoneError, "no reason given")
	case a.stale(p, now):
		return false, fmt.Sprintf("stopped answering (no heartbeat for %s)", a.silent(p, now).Round(time.Second))
	case late:
		return false, fmt.Sprintf("not ready within --agent-timeout %s", a.Timeout)
	}
	return false, ""
}

// followerReady says this agent is warm and waits for the leader's start.
func (a *Agent) followerReady(ctx context.Context, spec plan.StepSpec) (time.Time, error) {
	key := spec.Key()
	if err := a.setMine(ctx, bson.D{{Key: "ready", Value: a.seq}, {Key: "ready_key", Value: key}}); err != nil {
		if ctx.Err() != nil {
			return time.Time{}, ctx.Err()
		}
		return time.Time{}, fmt.Errorf("agents: report ready: %w", err)
	}
	for polls := 0; ; polls++ {
		var sd stepDoc
		err := a.coll.FindOne(ctx, bson.D{{Key: "_id", Value: a.stepID(a.seq)}}).Decode(&sd)
		switch {
		case err == nil:
			a.missing = sd.Missing
			switch {
			case sd.Key != key:
				return time.Time{}, &sweep.AgentsStopped{Status: results.StatusFailed, Reason: fmt.Sprintf("the leader's step %d is %s, this agent's %s: give every agent the same flags", a.seq, sd.Key, key)}
			case sd.Cancel != "":
				return time.Time{}, fmt.Errorf("%w: the leader could not measure it: %s", sweep.ErrStepSkipped, sd.Cancel)
			}
			start := a.toLocal(sd.StartAt)
			a.keepQuiet(start)
			for _, m := range sd.Missing {
				if m.Index == a.Index {
					// Out of this step: keep off the server until the others'
					// window has ended.
					if err := beat.Until(ctx, start.Add(a.Window)); err != nil {
						return time.Time{}, err
					}
					return time.Time{}, fmt.Errorf("%w: %s", sweep.ErrStepSkipped, m.Reason)
				}
			}
			a.startAt = sd.StartAt
			return start, nil
		case ctx.Err() != nil:
			return time.Time{}, ctx.Err()
		case !errors.Is(err, mongo.ErrNoDocuments):
			// A failed read: try again; the leader's staleness decides.
		}
		if msg := a.lost(); msg != "" {
			return time.Time{}, &sweep.AgentsStopped{Status: results.StatusFailed, Reason: msg}
		}
		if polls%4 == 0 {
			if err := a.checkLeader(ctx); err != nil {
				return time.Time{}, err
			}
		}
		if polls%8 == 7 {
			// Say it again: a write the server lost (an update applied
			// as a read and a write, beside another) would leave the
			// leader waiting for it until --agent-timeout.
			_ = a.setMine(ctx, bson.D{{Key: "ready", Value: a.seq}, {Key: "ready_key", Value: key}})
		}
		if err := beat.Pause(ctx, agentPoll); err != nil {
			return time.Time{}, err
		}
	}
}

// doneTries bounds the follower's attempts to report a step done.
const doneTries = 5

// Finish ends a step. A measured step gets this agent's window times and
// the agents it ran without. A follower reports the step done; the leader
// publishes a step it could not measure as cancelled (so nobody waits for
// it), and after a measured step waits for every agent that started it to
// finish: one that stops answering instead is named, and the step is
// partial.
func (a *Agent) Finish(ctx context.Context, spec plan.StepSpec, step *results.StepResult, err error) {
	a.closeFleet()
	if step.DurationS > 0 && !a.startAt.IsZero() {
		a.fillStep(step)
	}
	switch {
	case !a.leader():
		set := bson.D{{Key: "done", Value: a.seq}}
		if err != nil && !errors.Is(err, sweep.ErrStepSkipped) {
			set = append(set, bson.E{Key: "done_error", Value: oneLine(err.Error())})
		}
		// An event of the step (a reset, a router restart, a step-down)
		// may have closed the connection this write goes over, and a
		// write to a standalone or a router is not retried by the driver:
		// the leader waits for it, so it is sent again a few times.
		for try := 0; a.setMine(ctx, set) != nil && try < doneTries && beat.Pause(ctx, agentPoll) == nil; try++ {
		}
	case !a.posted:
		if err != nil && ctx.Err() == nil {
			sd := stepDoc{ID: a.stepID(a.seq), Kind: "step", RunID: a.RunID, Seq: a.seq, Key: spec.Key(), Cancel: oneLine(err.Error())}
			_, _ = a.coll.InsertOne(ctx, sd)
		}
		return
	case err == nil && len(a.started) > 0:
		a.awaitDone(ctx, step)
	}
	if err == nil && len(step.MissingAgents) > 0 {
		var names []string
		for _, m := range step.MissingAgents {
			names = append(names, fmt.Sprintf("%s: %s", a.name(m.Index, m.Host), m.Reason))
		}
		a.partial = append(a.partial, fmt.Sprintf("%s C=%d P=%s trial %d without %s", spec.Target, spec.Concurrency, spec.PoolSetting, spec.Trial, strings.Join(names, "; ")))
	}
}

// fillStep records this agent's part in the step.
func (a *Agent) fillStep(step *results.StepResult) {
	start := step.StartedAt
	end := start.Add(time.Duration(step.DurationS * float64(time.Second)))
	as := &results.AgentStep{Index: a.Index, Of: a.Count, Host: a.host, StartAt: a.startAt.UTC(),
		WindowStart: a.toRef(start).UTC(), WindowEnd: a.toRef(end).UTC()}
	if a.offset != nil {
		ms := float64(*a.offset) / float64(time.Millisecond)
		as.ClockOffsetMS = &ms
	}
	step.Agent = as
	if len(a.missing) > 0 {
		step.Partial = true
		step.MissingAgents = append(step.MissingAgents, a.missing...)
	}
}

// awaitDone waits until every agent that started the step has finished
// it; those that stop answering, leave, or exceed --agent-timeout are
// added to the step's missing agents.
func (a *Agent) awaitDone(ctx context.Context, step *results.StepResult) {
	deadline := time.Now().Add(a.Timeout)
	pending := map[int]bool{}
	for _, i := range a.started {
		pending[i] = true
	}
	var gone []results.MissingAgent
	for len(pending) > 0 {
		docs, err := a.readAgents(ctx)
		if err != nil {
			return
		}
		now := time.Now()
		for i := range pending {
			d, ok := docs[i]
			p := a.peer(i)
			if ok {
				p.observe(d, now)
			}
			reason := ""
			switch {
			case ok && d.Done >= a.seq:
			case !ok:
				reason = "left during the step (its document is gone)"
			case d.Stopped != "":
				reason = "stopped during the step: " + cmp.Or(d.StopReason, d.Stopped)
			case a.stale(p, now):
				reason = fmt.Sprintf("stopped answering during the step (no heartbeat for %s after the window); its window is missing", a.silent(p, now).Round(time.Second))
			case now.After(deadline):
				reason = fmt.Sprintf("did not finish the step within --agent-timeout %s of the leader", a.Timeout)
			default:
				continue
			}
			if reason != "" {
				gone = append(gone, results.MissingAgent{Index: i, Host: d.Host, Reason: reason})
			}
			delete(pending, i)
		}
		if len(pending) > 0 && beat.Pause(ctx, agentPoll) != nil {
			return
		}
	}
	if len(gone) > 0 {
		sortMissing(gone)
		step.Partial = true
		step.MissingAgents = append(step.MissingAgents, gone...)
	}
}

func sortMissing(m []results.MissingAgent) {
	slices.SortFunc(m, func(x, y results.MissingAgent) int { return x.Index - y.Index })
}

func indexList(set map[int]bool) string {
	idx := slices.Sorted(maps.Keys(set))
	parts := make([]string, len(idx))
	for i, v := range idx {
		parts[i] = fmt.Sprint(v)
	}
	if len(parts) == 1 {
		return "agent " + parts[0]
	}
	return "agents " + strings.Join(parts, ", ")
}

func oneLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
