package agents

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/beat"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

// A step with auto lengths in agent mode (sweep.Fleet): every follower
// posts its new batch rates to the coordination collection fleetSync
// apart, one small insert each, and reads the leader's word on the step's
// document; the leader reads the new posts (one _id range query per phase
// still running), ends the phases from the sums, and marks the step's
// document alive every fleetBeatEvery. These are the only coordination
// writes during a measured window, and only with auto lengths.
var (
	fleetSync      = 250 * time.Millisecond
	fleetBeatEvery = time.Second
)

// batchDoc is one post of an agent's base-batch rates of one phase
// (0 warm-up, 1 window) of one step, from base batch From on; Final says
// the phase has ended for that agent.
type batchDoc struct {
	ID    string    `bson:"_id"`
	Kind  string    `bson:"kind"`
	RunID string    `bson:"run_id"`
	Seq   int       `bson:"seq"`
	Index int       `bson:"index"`
	Phase int       `bson:"phase"`
	From  int       `bson:"from"`
	Rates []float64 `bson:"rates"`
	Final bool      `bson:"final"`
}

// batchID orders a step's posts by phase, then first batch, then agent,
// so that one range from the least batch still missing finds every new
// post of every agent.
func (a *Agent) batchID(seq, phase, from, index int) string {
	return fmt.Sprintf("%s/b/%d/%07d/%04d", a.stepID(seq), phase, from, index)
}

func phaseOf(name string) int {
	if name == sweep.PhaseMeasure {
		return 1
	}
	return 0
}

// series is what an agent has posted of one phase.
type series struct {
	rates []float64
	final bool
}

// fleet is the Agent's sweep.Fleet for its current step.
type fleet struct {
	a       *Agent
	seq     int
	start   time.Time // the agreed start, this host's clock
	members []int     // leader: the agents in the step, itself first

	mu      sync.Mutex
	mine    [2]series // this agent's own rates
	sent    [2]int    // follower: rates posted
	sentFin [2]bool
	got     map[int]*[2]series // leader: the followers' rates
	heard   map[int]time.Time  // leader: when each follower's rates last grew (its clock)
	dropped map[int]bool       // leader: followers left out of the sums
	word    [2]int             // the leader's end of each phase; -1 unknown
	written [2]bool            // leader: the word is on the step's document
	beatN   int64              // leader: the step document's fleet_beat
	beatAt  time.Time
	seenN   int64 // follower: the leader's fleet_beat last read
	seenAt  time.Time
	steady  *results.StepSteady // follower: the leader's record
	lost    error               // follower: the leader stopped answering

	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// Fleet is the current step's link to the other agents (sweep.Fleet),
// started on the first call after Ready.
func (a *Agent) Fleet() sweep.Fleet {
	if a.fleet != nil && a.fleet.seq == a.seq {
		return a.fleet
	}
	a.closeFleet()
	now := time.Now()
	f := &fleet{a: a, seq: a.seq, start: a.toLocal(a.startAt), word: [2]int{-1, -1}, seenAt: now,
		got: map[int]*[2]series{}, heard: map[int]time.Time{}, dropped: map[int]bool{}, wake: make(chan struct{}, 1), done: make(chan struct{})}
	if a.leader() {
		f.members = append([]int{0}, a.started...)
		for _, i := range a.started {
			f.got[i], f.heard[i] = &[2]series{}, now
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	go f.run(ctx)
	a.fleet = f
	return f
}

// closeFleet stops the current step's link; the leader removes its posts.
func (a *Agent) closeFleet() {
	if a.fleet == nil {
		return
	}
	a.fleet.Close()
	if a.leader() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, _ = a.coll.DeleteMany(ctx, a.own(bson.D{{Key: "run_id", Value: a.RunID}, {Key: "kind", Value: "batches"}, {Key: "seq", Value: a.fleet.seq}}))
		cancel()
	}
	a.fleet = nil
}

func (f *fleet) Leader() bool     { return f.a.leader() }
func (f *fleet) Start() time.Time { return f.start }

func (f *fleet) Post(phase string, rates []float64, final bool) {
	p := phaseOf(phase)
	f.mu.Lock()
	defer f.mu.Unlock()
	m := &f.mine[p]
	if len(rates) > len(m.rates) {
		m.rates = append(m.rates, rates[len(m.rates):]...)
	}
	if final && !m.final {
		m.final = true
		f.poke()
	}
}

func (f *fleet) Series(phase string) []float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sums(phaseOf(phase))
}

// sums is the fleet's rates of phase p as far as every agent still in
// the sums has them; the caller holds mu. A follower is dropped first
// when its posts stood still as long as a silent heartbeat before it
// ended the phase, or it ended the phase short of the leader while the
// leader's goes on (it was interrupted, or lost the leader).
func (f *fleet) sums(p int) []float64 {
	now := time.Now()
	for i, g := range f.got {
		s, mine := g[p], f.mine[p]
		if !f.dropped[i] && ((!s.final && now.Sub(f.heard[i]) >= f.a.silenceRule()) || (s.final && !mine.final && len(s.rates) < len(mine.rates))) {
			f.dropped[i] = true
		}
	}
	n := len(f.mine[p].rates)
	for i, g := range f.got {
		if !f.dropped[i] {
			n = min(n, len(g[p].rates))
		}
	}
	out := slices.Clone(f.mine[p].rates[:n])
	for i, g := range f.got {
		if f.dropped[i] {
			continue
		}
		for k := range out {
			out[k] += g[p].rates[k]
		}
	}
	return out
}

func (f *fleet) Decide(phase string, at int) {
	p := phaseOf(phase)
	f.mu.Lock()
	f.word[p], f.written[p] = at, false
	f.mu.Unlock()
	f.poke()
}

func (f *fleet) Decided(phase string) (int, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if at := f.word[phaseOf(phase)]; at >= 0 {
		return at, true, nil
	}
	return -1, false, f.lost
}

func (f *fleet) Ending(end time.Time) {
	f.a.quiet[1].Store(end.Add(agentLead).UnixNano())
}

func (f *fleet) Complete(ctx context.Context) (warmup, window []float64, agents int, err error) {
	for {
		f.mu.Lock()
		f.sums(0)
		f.sums(1)
		done := f.mine[0].final && f.mine[1].final
		for i, g := range f.got {
			done = done && (f.dropped[i] || (g[0].final && g[1].final))
		}
		if done {
			warmup, window = f.sums(0), f.sums(1)
			agents = len(f.members) - len(f.dropped)
			f.mu.Unlock()
			return warmup, window, agents, nil
		}
		f.mu.Unlock()
		if err := beat.Pause(ctx, agentPoll); err != nil {
			return nil, nil, 0, err
		}
	}
}

func (f *fleet) Publish(ctx context.Context, s *results.StepSteady) error {
	b, err := json.Marshal(s)
	if err != nil {
		return err
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = f.a.coll.UpdateOne(pctx, bson.D{{Key: "_id", Value: f.a.stepID(f.seq)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "steady", Value: string(b)}}}})
	return err
}

func (f *fleet) Await(ctx context.Context) (*results.StepSteady, error) {
	for {
		f.mu.Lock()
		s, lost := f.steady, f.lost
		f.mu.Unlock()
		switch {
		case s != nil:
			return s, nil
		case lost != nil:
			return nil, lost
		}
		if err := beat.Pause(ctx, agentPoll); err != nil {
			return nil, err
		}
	}
}

func (f *fleet) Close() {
	f.cancel()
	<-f.done
}

// poke makes the link sync now rather than at its next tick.
func (f *fleet) poke() {
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// run syncs the link until Close: a follower posts its new rates and reads
// the leader's word; the leader reads the new posts and writes its word.
func (f *fleet) run(ctx context.Context) {
	defer close(f.done)
	t := time.NewTicker(fleetSync)
	defer t.Stop()
	for {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if f.Leader() {
			f.readPosts(sctx)
			f.writeWord(sctx)
		} else {
			f.post(sctx)
			f.readWord(sctx)
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-f.wake:
		}
	}
}

// post sends this follower's rates not yet posted, per phase. A post that
// seemed to fail but landed is found by its _id and counted.
func (f *fleet) post(ctx context.Context) {
	for p := range 2 {
		f.mu.Lock()
		from, final := f.sent[p], f.mine[p].final
		rates := slices.Clone(f.mine[p].rates[from:])
		skip := len(rates) == 0 && (!final || f.sentFin[p])
		f.mu.Unlock()
		if skip {
			continue
		}
		d := batchDoc{ID: f.a.batchID(f.seq, p, from, f.a.Index), Kind: "batches", RunID: f.a.RunID, Seq: f.seq, Index: f.a.Index,
			Phase: p, From: from, Rates: rates, Final: final}
		_, err := f.a.coll.InsertOne(ctx, d)
		if mongo.IsDuplicateKeyError(err) {
			err = f.a.coll.FindOne(ctx, bson.D{{Key: "_id", Value: d.ID}}).Decode(&d)
		}
		if err != nil {
			continue // the next sync tries again
		}
		f.mu.Lock()
		f.sent[p], f.sentFin[p] = d.From+len(d.Rates), d.Final
		f.mu.Unlock()
	}
}

// readWord reads the leader's word, its record of the step, and whether it
// still answers.
func (f *fleet) readWord(ctx context.Context) {
	var sd stepDoc
	err := f.a.coll.FindOne(ctx, bson.D{{Key: "_id", Value: f.a.stepID(f.seq)}}).Decode(&sd)
	now := time.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	if err == nil {
		for p, at := range [2]*int{sd.WarmupAt, sd.WindowAt} {
			if at != nil {
				f.word[p] = *at
			}
		}
		if sd.FleetBeat != f.seenN {
			f.seenN, f.seenAt = sd.FleetBeat, now
		}
		if sd.Steady != "" && f.steady == nil {
			var s results.StepSteady
			if json.Unmarshal([]byte(sd.Steady), &s) == nil {
				f.steady = &s
			}
		}
	}
	if f.lost == nil && now.Sub(f.seenAt) >= f.a.silenceRule() {
		f.lost = &sweep.AgentsStopped{Status: results.StatusFailed, Reason: fmt.Sprintf("%s stopped answering during step %d (its word on the step's windows stood still for %s)",
			f.a.name(0, ""), f.seq, now.Sub(f.seenAt).Round(time.Second))}
	}
}

// readPosts reads the followers' new posts: per phase still running, the
// posts from the least batch some follower still misses.
func (f *fleet) readPosts(ctx context.Context) {
	for p := range 2 {
		f.mu.Lock()
		from, open := -1, false
		for i, g := range f.got {
			if !f.dropped[i] && !g[p].final {
				from, open = cmpMin(from, len(g[p].rates)), true
			}
		}
		f.mu.Unlock()
		if !open {
			continue
		}
		filter := bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: f.a.batchID(f.seq, p, from, 0)},
			{Key: "$lt", Value: fmt.Sprintf("%s/b/%d/~", f.a.stepID(f.seq), p)}}}}
		cur, err := f.a.coll.Find(ctx, filter)
		if err != nil {
			continue
		}
		var docs []batchDoc
		if cur.All(ctx, &docs) != nil {
			continue
		}
		slices.SortFunc(docs, func(x, y batchDoc) int { return cmp.Or(x.Index-y.Index, x.From-y.From) })
		now := time.Now()
		f.mu.Lock()
		for _, d := range docs {
			g := f.got[d.Index]
			if g == nil || f.dropped[d.Index] {
				continue
			}
			s := &g[p]
			if n := len(s.rates); d.From <= n && d.From+len(d.Rates) > n {
				s.rates, f.heard[d.Index] = append(s.rates, d.Rates[n-d.From:]...), now
			}
			if d.Final && d.From+len(d.Rates) == len(s.rates) {
				s.final, f.heard[d.Index] = true, now
			}
		}
		f.mu.Unlock()
	}
}

// writeWord puts the leader's word on the step's document, with its
// fleet_beat, when the word is new or a beat is due.
func (f *fleet) writeWord(ctx context.Context) {
	f.mu.Lock()
	due := time.Since(f.beatAt) >= fleetBeatEvery || (f.word[0] >= 0 && !f.written[0]) || (f.word[1] >= 0 && !f.written[1])
	set := bson.D{{Key: "fleet_beat", Value: f.beatN + 1}}
	for p, key := range [2]string{"warmup_at", "window_at"} {
		if f.word[p] >= 0 {
			set = append(set, bson.E{Key: key, Value: f.word[p]})
		}
	}
	word := f.word
	f.mu.Unlock()
	if !due {
		return
	}
	if _, err := f.a.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: f.a.stepID(f.seq)}}, bson.D{{Key: "$set", Value: set}}); err != nil {
		return
	}
	f.mu.Lock()
	f.beatN, f.beatAt = f.beatN+1, time.Now()
	for p := range 2 {
		if f.word[p] == word[p] && word[p] >= 0 {
			f.written[p] = true
		}
	}
	f.mu.Unlock()
}

// cmpMin is the lesser of a and b, where a < 0 means none yet.
func cmpMin(a, b int) int {
	if a < 0 {
		return b
	}
	return min(a, b)
}
