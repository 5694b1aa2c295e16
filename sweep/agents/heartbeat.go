package agents

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/beat"
)

// silent is how long p has given no sign of life, not counting the
// current step's quiet time (a peer beats again only after its window).
func (a *Agent) silent(p *peer, now time.Time) time.Duration {
	last := p.seen
	if q := time.Unix(0, a.quiet[1].Load()); q.After(last) {
		last = q
	}
	return now.Sub(last)
}

func (a *Agent) stale(p *peer, now time.Time) bool { return a.silent(p, now) >= a.silenceRule() }

// silenceRule is how long a peer may stay silent before it counts as
// stopped: agentStaleAfter unless this agent was given its own.
func (a *Agent) silenceRule() time.Duration {
	if a.Silence > 0 {
		return a.Silence
	}
	return agentStaleAfter
}

// keepQuiet stops this agent's heartbeat from the step's start (on this
// host's clock) to the end of its window, with a little room for skew.
func (a *Agent) keepQuiet(start time.Time) {
	a.quiet[0].Store(start.Add(-agentLead).UnixNano())
	a.quiet[1].Store(start.Add(a.Window + agentLead).UnixNano())
}

func (a *Agent) quietNow(now time.Time) bool {
	n := now.UnixNano()
	return n >= a.quiet[0].Load() && n < a.quiet[1].Load()
}

// heartbeat bumps this agent's beat until stopped. When its document is
// gone or taken over, lost says why, and the agent stops at its next step.
type heartbeat struct {
	*beat.Beating
	lost atomic.Pointer[string]
}

func startHeartbeat(a *Agent) *heartbeat {
	h := &heartbeat{}
	id := a.agentID(a.Index)
	h.Beating = beat.Start(agentBeat, func(ctx context.Context) bool {
		if a.quietNow(time.Now()) {
			return true
		}
		bctx, bcancel := context.WithTimeout(ctx, 2*agentBeat)
		defer bcancel()
		a.ownDoc.Lock()
		res, err := a.coll.UpdateOne(bctx, bson.D{{Key: "_id", Value: id}, {Key: "nonce", Value: a.nonce}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "beat", Value: 1}}}})
		a.ownDoc.Unlock()
		if err == nil && res.MatchedCount == 0 {
			var d agentDoc
			msg := fmt.Sprintf("the coordination documents of run %s were removed (the leader ended the run)", a.RunID)
			if a.coll.FindOne(bctx, bson.D{{Key: "_id", Value: id}}).Decode(&d) == nil {
				msg = fmt.Sprintf("another agent (on %s, pid %d) registered as agent %d of run %s; give each agent its own --agent-index", d.Host, d.PID, a.Index, a.RunID)
			}
			h.lost.Store(&msg)
			return false
		}
		return true
	})
	return h
}

func (a *Agent) stopBeat() {
	if a.beat != nil {
		a.beat.Stop()
	}
}

// lost says why this agent's registration is gone, or "".
func (a *Agent) lost() string {
	if a.beat != nil {
		if p := a.beat.lost.Load(); p != nil {
			return *p
		}
	}
	return ""
}
