package agents

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/beat"
	"github.com/poolsweep/poolsweep/internal/buildinfo"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

// Collection holds agent mode's coordination documents, in poolsweep's
// own database on the (first) target: one document per agent
// (registration, heartbeat, ready and done marks) and one per step (the
// agreed start). They are a few hundred bytes each and removed at the end.
const Collection = "poolsweep_agents"

// Agent mode's timing. Every agent bumps its heartbeat once a second,
// except from the agreed start of a step to the end of its window: the
// coordination documents are written outside measured windows only. A
// peer whose heartbeat stands still for agentStaleAfter, not counting the
// window, on the observer's own clock (so that clock skew between hosts
// does not matter), has stopped.
const (
	agentBeat       = time.Second
	agentStaleAfter = 10 * time.Second
	agentPoll       = 50 * time.Millisecond
	// agentLead is how far ahead of now the leader sets a step's start:
	// room for every agent to see it, so that all begin on time.
	agentLead = 500 * time.Millisecond
)

// DefaultSilence and MinSilence bound Agent.Silence: ten beats missed by
// default, three at the least (a busier host than that misses beats
// without having stopped).
const (
	DefaultSilence = agentStaleAfter
	MinSilence     = 3 * agentBeat
)

// Agent is this process as one agent of a run, and the session's
// sweep.Coordinator: Count processes, on one host or many, measuring one
// plan against one deployment in lock step. Index 0 leads: it waits
// before each step until every agent has warmed its pools (or
// --agent-timeout passes), then publishes one start time that all of
// them keep. Coordination goes through the deployment under test, the
// one system every agent already reaches.
type Agent struct {
	RunID           string
	Count           int
	Index           int
	PlanHash        string // PlanHash(session, Count)
	ClientsPerAgent int
	Timeout         time.Duration // --agent-timeout
	// StepTime bounds a step's wall time past its barrier (warm-up,
	// window, teardown): how long the leader's goodbye waits for agents
	// still measuring.
	StepTime time.Duration
	// Window is a step's warm-up plus its measured window: how long every
	// agent keeps quiet from the agreed start.
	Window    time.Duration
	NewClient sweep.ClientFactory // the first target, with the real URI
	Database  string
	// Waiting is told what this agent is waiting for (may be nil).
	Waiting func(msg string)
	// Silence is how long another agent's heartbeat (bumped every
	// agentBeat) may stand still, outside the measured windows, before
	// this agent takes it for stopped and goes on without it
	// (--agent-silence; 0: agentStaleAfter).
	Silence time.Duration

	client *mongo.Client
	coll   *mongo.Collection
	host   string
	pid    int
	nonce  string
	offset *time.Duration // reference clock minus this host's
	seq    int            // the step being coordinated, from 1
	beat   *heartbeat
	// ownDoc serialises this agent's writes to its own document (the
	// heartbeat's and the steps'): a server that applies an update as a
	// read and a write (FerretDB) would otherwise let one overwrite the
	// other, and a follower's "ready" was seen lost that way.
	ownDoc  sync.Mutex
	quiet   [2]atomic.Int64 // this host's clock, unix ns: no beats from [0] to [1]
	peers   map[int]*peer
	startAt time.Time              // the current step's agreed start (reference clock)
	started []int                  // leader: agents in the current step
	missing []results.MissingAgent // the current step's missing agents
	posted  bool                   // leader: the current step's start is published
	partial []string               // steps that ran without some agents
	fleet   *fleet                 // the current step's auto lengths (fleet.go)
	ended   bool
}

// Refused is the error of an agent that may not join its run:
// another plan or poolsweep version than the leader's, or an index that
// another live agent holds. The fix is in the flags, so it is bad input.
type Refused struct{ Reason string }

func (a *Refused) Error() string { return a.Reason }

// Start connects, measures this host's clock against the target's,
// registers this agent and starts its heartbeat; a follower then waits
// for a live leader and checks that it runs the same plan and version.
func (a *Agent) Start(ctx context.Context) (*results.AgentsHeader, error) {
	if a.Count < 1 || a.Index < 0 || a.Index >= a.Count || a.RunID == "" || a.NewClient == nil {
		return nil, fmt.Errorf("agents: index %d of %d, run %q: not a valid agent", a.Index, a.Count, a.RunID)
	}
	var err error
	if a.client, err = mongo.Connect(a.NewClient().SetMaxPoolSize(4).SetTimeout(10 * time.Second)); err != nil {
		return nil, fmt.Errorf("agents: connect: %w", err)
	}
	a.coll = a.client.Database(a.Database).Collection(Collection)
	a.host, _ = os.Hostname()
	a.pid = os.Getpid()
	a.nonce = randomHex(8)
	a.offset = a.clockOffset(ctx)
	if err := a.register(ctx); err != nil {
		a.close()
		return nil, err
	}
	if !a.leader() {
		if err := a.awaitLeader(ctx); err != nil {
			a.stopBeat()
			a.leave(ctx, results.StatusFailed, err.Error())
			a.close()
			return nil, err
		}
	}
	idx := a.Index
	return &results.AgentsHeader{Count: a.Count, Index: &idx, PlanHash: a.PlanHash, ClientsPerAgent: a.ClientsPerAgent,
		Host: a.host, TimeoutS: a.Timeout.Seconds()}, nil
}

// register writes this agent's document, refusing an index that another
// live agent of the run holds; a leader first removes an earlier run's
// step documents under the same name.
func (a *Agent) register(ctx context.Context) error {
	id := a.agentID(a.Index)
	var old agentDoc
	err := a.coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&old)
	switch {
	case err == nil && old.Stopped == "":
		// A leftover of a run that died, or an agent running now: only
		// a moving heartbeat tells them apart.
		var p peer
		p.observe(old, time.Now())
		deadline := time.Now().Add(agentBeat*5/2 + agentPoll)
		for time.Now().Before(deadline) {
			if err := beat.Pause(ctx, agentPoll*4); err != nil {
				return err
			}
			var d agentDoc
			if a.coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&d) != nil {
				break
			}
			if p.observe(d, time.Now()); p.live {
				return &Refused{fmt.Sprintf("--agent-index: agent %d of run %s is already running on %s (pid %d); give each agent its own --agent-index, or use another --run-id",
					a.Index, a.RunID, d.Host, d.PID)}
			}
		}
	case err != nil && !errors.Is(err, mongo.ErrNoDocuments):
		return fmt.Errorf("agents: read %s: %w", Collection, err)
	}
	if a.leader() {
		if _, err := a.coll.DeleteMany(ctx, a.own(bson.D{{Key: "run_id", Value: a.RunID}, {Key: "kind", Value: "step"}})); err != nil {
			return fmt.Errorf("agents: clear an earlier run's steps: %w", err)
		}
	}
	doc := agentDoc{ID: id, Kind: "agent", RunID: a.RunID, Index: a.Index, Count: a.Count, Host: a.host, PID: a.pid, Nonce: a.nonce,
		PlanHash: a.PlanHash, ToolVersion: buildinfo.Version(), Registered: time.Now().UTC()}
	if _, err := a.coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: id}}, doc, replaceUpsert()); err != nil {
		return fmt.Errorf("agents: register in %s: %w", Collection, err)
	}
	a.beat = startHeartbeat(a)
	return nil
}

// awaitLeader waits for the leader's document to be live, then refuses
// this agent if the leader runs another plan or poolsweep build.
func (a *Agent) awaitLeader(ctx context.Context) error {
	deadline := time.Now().Add(a.Timeout)
	told := false
	p := a.peer(0)
	for {
		var d agentDoc
		err := a.coll.FindOne(ctx, bson.D{{Key: "_id", Value: a.agentID(0)}}).Decode(&d)
		if err != nil && !errors.Is(err, mongo.ErrNoDocuments) && ctx.Err() == nil {
			return fmt.Errorf("agents: read the leader's document: %w", err)
		}
		if err == nil {
			p.observe(d, time.Now())
			if d.Stopped != "" {
				// The leader ended the run before this agent saw it begin
				// (it failed at the start): waiting for it is in vain. The
				// leader removes its document at its end, so a stopped one
				// is this run's.
				return &sweep.AgentsStopped{Status: results.StatusFailed, Reason: fmt.Sprintf("%s stopped the run before it began (%s): %s",
					a.name(0, d.Host), d.Stopped, d.StopReason)}
			}
			if p.live {
				switch {
				case d.PlanHash != a.PlanHash:
					return &Refused{fmt.Sprintf("--agents: this agent's plan (hash %s) is not the leader's, %s (hash %s); give every agent the same flags",
						a.PlanHash, a.name(0, d.Host), d.PlanHash)}
				case d.ToolVersion != buildinfo.Version():
					return &Refused{fmt.Sprintf("--agents: this agent runs poolsweep %s, the leader, %s, runs %s; run the same build everywhere",
						buildinfo.Version(), a.name(0, d.Host), d.ToolVersion)}
				}
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("agents: the leader (agent 0) of run %s did not join within --agent-timeout %s", a.RunID, a.Timeout)
		}
		if !told && a.Waiting != nil {
			a.Waiting(fmt.Sprintf("agent %d of %d: waiting for the leader (agent 0) of run %s to join", a.Index, a.Count, a.RunID))
			told = true
		}
		if err := beat.Pause(ctx, agentPoll*4); err != nil {
			return err
		}
	}
}

// setMine updates this agent's own document (while it is still ours).
func (a *Agent) setMine(ctx context.Context, set bson.D) error {
	a.ownDoc.Lock()
	defer a.ownDoc.Unlock()
	_, err := a.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: a.agentID(a.Index)}, {Key: "nonce", Value: a.nonce}}, bson.D{{Key: "$set", Value: set}})
	return err
}

// leave marks this agent stopped, so that the leader stops waiting for it.
func (a *Agent) leave(ctx context.Context, status, reason string) {
	_ = a.setMine(ctx, bson.D{{Key: "stopped", Value: status}, {Key: "stop_reason", Value: reason}})
}

// End says goodbye. The leader marks the run stopped, waits (bounded)
// until every agent has left or gone silent, and removes the run's
// documents; a follower marks itself stopped, or removes its document
// when the leader has already gone.
func (a *Agent) End(out *sweep.Outcome) {
	if a.ended || a.client == nil {
		return
	}
	a.ended = true
	a.closeFleet()
	ctx, cancel := context.WithTimeout(context.Background(), a.Timeout+a.StepTime+a.silenceRule()+10*time.Second)
	defer cancel()
	a.stopBeat()
	defer a.close()
	if (out.Status == results.StatusComplete || out.Status == results.StatusPartial) && len(a.partial) > 0 {
		note := fmt.Sprintf("%d step(s) ran without some agents: %s", len(a.partial), a.partial[0])
		if len(a.partial) > 1 {
			note += fmt.Sprintf(" (and %d more)", len(a.partial)-1)
		}
		out.Status = results.StatusPartial
		if out.Reason != "" {
			note = out.Reason + "; " + note
		}
		out.Reason = note
	}
	if !a.leader() {
		var d agentDoc
		err := a.coll.FindOne(ctx, bson.D{{Key: "_id", Value: a.agentID(0)}}).Decode(&d)
		if err != nil || d.Stopped != "" {
			_, _ = a.coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: a.agentID(a.Index)}, {Key: "nonce", Value: a.nonce}})
			return
		}
		a.leave(ctx, out.Status, out.Reason)
		return
	}
	a.leave(ctx, out.Status, out.Reason)
	a.awaitGoodbyes(ctx)
	if _, err := a.coll.DeleteMany(ctx, a.own(bson.D{{Key: "run_id", Value: a.RunID}})); err != nil && a.Waiting != nil {
		a.Waiting(fmt.Sprintf("could not remove the coordination documents of run %s from %s: %v", a.RunID, Collection, err))
	}
}

// awaitGoodbyes waits until every follower has left, stopped or gone
// silent, or ctx ends.
func (a *Agent) awaitGoodbyes(ctx context.Context) {
	told, began := false, time.Now()
	for {
		docs, err := a.readAgents(ctx)
		if err != nil {
			return
		}
		now := time.Now()
		waiting := 0
		for i := 1; i < a.Count; i++ {
			d, ok := docs[i]
			if !ok || d.Stopped != "" {
				continue
			}
			p := a.peer(i)
			if p.observe(d, now); !a.stale(p, now) {
				waiting++
			}
		}
		if waiting == 0 {
			return
		}
		if !told && time.Since(began) > 2*time.Second && a.Waiting != nil {
			a.Waiting(fmt.Sprintf("the run has ended; waiting for %d agent(s) to finish their step and leave", waiting))
			told = true
		}
		if beat.Pause(ctx, agentPoll*4) != nil {
			return
		}
	}
}

// readAgents reads every agent document of the run, by index.
func (a *Agent) readAgents(ctx context.Context) (map[int]agentDoc, error) {
	cur, err := a.coll.Find(ctx, bson.D{{Key: "run_id", Value: a.RunID}, {Key: "kind", Value: "agent"}})
	if err != nil {
		return nil, fmt.Errorf("agents: read %s: %w", Collection, err)
	}
	var docs []agentDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, fmt.Errorf("agents: read %s: %w", Collection, err)
	}
	out := map[int]agentDoc{}
	for _, d := range docs {
		out[d.Index] = d
	}
	return out, nil
}

func (a *Agent) close() {
	if a.client != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = a.client.Disconnect(ctx)
		cancel()
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
