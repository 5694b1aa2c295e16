package agents

import (
	"fmt"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// The coordination documents in Collection, and what an agent makes of
// its peers' documents.

// agentDoc is one agent's document.
type agentDoc struct {
	ID          string    `bson:"_id"`
	Kind        string    `bson:"kind"`
	RunID       string    `bson:"run_id"`
	Index       int       `bson:"index"`
	Count       int       `bson:"count"`
	Host        string    `bson:"host"`
	PID         int       `bson:"pid"`
	Nonce       string    `bson:"nonce"`
	PlanHash    string    `bson:"plan_hash"`
	ToolVersion string    `bson:"tool_version"`
	Registered  time.Time `bson:"registered_at"`
	Beat        int64     `bson:"beat"`
	Ready       int       `bson:"ready"` // the step it is warm for
	ReadyKey    string    `bson:"ready_key"`
	Done        int       `bson:"done"` // the last step it finished or gave up
	DoneError   string    `bson:"done_error,omitempty"`
	Stopped     string    `bson:"stopped,omitempty"` // its run's end status
	StopReason  string    `bson:"stop_reason,omitempty"`
}

// stepDoc is the leader's word on one step.
type stepDoc struct {
	ID      string                 `bson:"_id"`
	Kind    string                 `bson:"kind"`
	RunID   string                 `bson:"run_id"`
	Seq     int                    `bson:"seq"`
	Key     string                 `bson:"key"`
	StartAt time.Time              `bson:"start_at"` // reference clock
	Missing []results.MissingAgent `bson:"missing"`
	Cancel  string                 `bson:"cancel,omitempty"` // the leader could not measure it
	// With auto lengths (fleet.go): the leader's end of the warm-up and
	// of the window, in base batches after each began; its beat while
	// the step runs; and its record of the step (results.StepSteady as
	// JSON), the same for every agent.
	WarmupAt  *int   `bson:"warmup_at,omitempty"`
	WindowAt  *int   `bson:"window_at,omitempty"`
	FleetBeat int64  `bson:"fleet_beat,omitempty"`
	Steady    string `bson:"steady,omitempty"`
}

func (a *Agent) agentID(i int) string  { return a.RunID + "/agent/" + fmt.Sprint(i) }
func (a *Agent) stepID(seq int) string { return a.RunID + "/step/" + fmt.Sprint(seq) }
func (a *Agent) leader() bool          { return a.Index == 0 }

// peer is what an agent knows of another from its document.
type peer struct {
	doc   agentDoc
	nonce string
	beat  int64
	seen  time.Time // when its beat last moved, on this host's clock
	live  bool      // its beat has been seen moving: a process, not a leftover
}

func (p *peer) observe(d agentDoc, now time.Time) {
	switch {
	case d.Nonce != p.nonce:
		*p = peer{nonce: d.Nonce, beat: d.Beat, seen: now}
	case d.Beat != p.beat:
		p.beat, p.seen, p.live = d.Beat, now, true
	}
	p.doc = d
}

func (a *Agent) peer(i int) *peer {
	if a.peers == nil {
		a.peers = map[int]*peer{}
	}
	if a.peers[i] == nil {
		a.peers[i] = &peer{}
	}
	return a.peers[i]
}

func (a *Agent) name(i int, host string) string {
	role := ""
	if i == 0 {
		role = ", the leader"
	}
	if host == "" {
		return fmt.Sprintf("agent %d%s", i, role)
	}
	return fmt.Sprintf("agent %d (on %s%s)", i, host, role)
}
