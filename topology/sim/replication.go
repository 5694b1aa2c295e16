package sim

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Replication: the primary logs each write it applies as an oplog entry and
// sends it to every secondary. The entry reaches a secondary repl_lag later
// and then queues, in log order, for one of the secondary's write slots,
// which it holds for a service time drawn as for any write there. A
// secondary has applied an entry once that entry and every earlier one have
// finished (a real secondary applies in batches and advances its optime
// only over a finished prefix), and only then does its data show the write.
//
// Every entry is booked on every secondary's write pool the moment the
// primary logs it (slotPool.bookAt), so when each secondary will have
// applied it is known at once: a w:"majority" write waits until enough
// members have, and a secondary that falls behind under load shows it in
// its optime.

// oplogEntry is one write of the primary: its optime, when the primary
// applied it, the changes to replay, and when each member has applied it
// (with every entry before it).
type oplogEntry struct {
	op      opTime
	wall    time.Time
	changes []change
	applied []time.Time // by member index
}

// applier is one member's replication state.
type applier struct {
	mu sync.Mutex
	// pending are the entries sent to this member and not yet applied to
	// its data, in log order, each with when it will have been applied.
	pending []pendingEntry
	// done is when this member will have applied everything sent to it.
	done time.Time
	// applied is the last entry this member has applied, appliedWall the
	// time its primary applied it.
	applied     opTime
	appliedWall time.Time
}

type pendingEntry struct {
	e    *oplogEntry
	done time.Time
}

// write applies a client write on m, which must be the primary of the term
// the command started in (else the write was interrupted by a step-down,
// as a real primary kills the writes in progress when it steps down), and
// logs the changes it made for the secondaries.
func (m *member) write(ctx context.Context, fn func(*store)) error {
	w := writeOf(ctx)
	rs := m.rs
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.primary != m.index || (w != nil && w.term != rs.term) {
		return errInterrupted()
	}
	changes := m.shard.store.journaled(fn)
	if len(changes) == 0 {
		return nil
	}
	e := rs.appendLocked(changes)
	if w != nil {
		w.logged(e)
	}
	return nil
}

// appendLocked logs an entry of the current primary and sends it to every
// secondary. The caller holds rs.mu, so entries are logged, and booked on
// each secondary, in the order the primary applied them.
func (rs *replSet) appendLocked(changes []change) *oplogEntry {
	now := time.Now()
	ts := bson.Timestamp{T: uint32(now.Unix()), I: 1}
	if prev := rs.last.op.ts; !ts.After(prev) {
		// The same second (or a clock that stepped back): the next increment.
		ts = bson.Timestamp{T: prev.T, I: prev.I + 1}
	}
	e := &oplogEntry{op: opTime{ts: ts, term: rs.term}, wall: now, changes: changes, applied: make([]time.Time, len(rs.members))}
	arrival := now.Add(rs.d.spec.ReplLag)
	for i, m := range rs.members {
		if i == rs.primary {
			e.applied[i] = now
			m.repl.mu.Lock()
			m.repl.applied, m.repl.appliedWall = e.op, now
			m.repl.mu.Unlock()
			continue
		}
		e.applied[i] = m.send(e, arrival)
	}
	rs.last = e
	return e
}

// send books e on m's oplog applier and write slots for when it arrives
// and returns when m will have applied it and everything before it. The
// entry first gets an applier slot (repl_writers of them) and then, from
// that start, a write slot: the fewer of the two binds (exactly, since on
// a secondary only the applier books write slots).
func (m *member) send(e *oplogEntry, arrival time.Time) time.Time {
	spec := m.rs.d.spec
	sh := m.shard
	service := slowed(serviceTime(spec.Service, spec.ConnCost, sh.openConns.Load(), spec.Jitter, rand.Float64), sh.slow.at(arrival))
	start := m.appliers.bookAt(arrival, kindWrite, service).Add(-service)
	finish := sh.writes.bookAt(start, kindWrite, service)
	a := &m.repl
	a.mu.Lock()
	a.done = later(a.done, finish)
	done := a.done
	a.pending = append(a.pending, pendingEntry{e: e, done: done})
	a.mu.Unlock()
	m.catchUp()
	return done
}

// catchUp applies to m's data every entry m has finished applying by now.
// Reads on m, and every reply that reports m's optime, call it first, so
// what they see is exactly what m has applied.
func (m *member) catchUp() {
	a := &m.repl
	now := time.Now()
	a.mu.Lock()
	defer a.mu.Unlock()
	n := 0
	for n < len(a.pending) && !a.pending[n].done.After(now) {
		n++
	}
	if n == 0 {
		return
	}
	for _, p := range a.pending[:n] {
		m.shard.store.apply(p.e.changes)
		m.countReplicated(p.e.changes)
	}
	last := a.pending[n-1].e
	a.applied, a.appliedWall = last.op, last.wall
	clear(a.pending[:n])
	a.pending = a.pending[n:]
}

// countReplicated counts applied changes in opcountersRepl: documents
// inserted, updated and deleted, and catalogue changes as commands.
func (m *member) countReplicated(changes []change) {
	for _, ch := range changes {
		switch ch.op {
		case chInsert:
			m.replOps.insert.Add(1)
		case chUpdate:
			m.replOps.update.Add(1)
		case chDelete:
			m.replOps.delete.Add(1)
		case chCreate, chIndexes, chDropColl, chDropDB:
			m.replOps.command.Add(1)
		}
	}
}

// catchUp brings a replica-set member's data up to date before a read
// (a no-op on any other server).
func (f *frontend) catchUp() {
	if f.member != nil {
		f.member.catchUp()
	}
}

// appliedOp is m's last applied optime now, and its primary's wall time.
func (m *member) appliedOp() (opTime, time.Time) {
	m.catchUp()
	m.repl.mu.Lock()
	defer m.repl.mu.Unlock()
	return m.repl.applied, m.repl.appliedWall
}

// doneBy is when m will have applied everything sent to it so far.
func (m *member) doneBy() time.Time {
	m.repl.mu.Lock()
	defer m.repl.mu.Unlock()
	return m.repl.done
}

// commitPoint is the newest optime a majority of members has applied
// (lastCommittedOpTime), with its primary's wall time: the majority-th
// newest of the members' applied optimes.
func (rs *replSet) commitPoint() (opTime, time.Time) {
	type point struct {
		op   opTime
		wall time.Time
	}
	points := make([]point, len(rs.members))
	for i, m := range rs.members {
		points[i].op, points[i].wall = m.appliedOp()
	}
	slices.SortFunc(points, func(a, b point) int {
		switch {
		case a.op.after(b.op):
			return -1
		case b.op.after(a.op):
			return 1
		}
		return 0
	})
	p := points[rs.majority()-1]
	return p.op, p.wall
}

// ackedBy is when n members (the primary included) have applied e, or
// false when the set has fewer members.
func (e *oplogEntry) ackedBy(n int) (time.Time, bool) {
	if n < 1 {
		return time.Time{}, true
	}
	if n > len(e.applied) {
		return time.Time{}, false
	}
	times := slices.Clone(e.applied)
	slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
	return times[n-1], true
}

// stats are the members' replication states now.
func (rs *replSet) stats() []MemberStats {
	v := rs.view()
	out := make([]MemberStats, len(rs.members))
	for i, m := range rs.members {
		_, wall := m.appliedOp()
		m.repl.mu.Lock()
		pending := len(m.repl.pending)
		m.repl.mu.Unlock()
		out[i] = MemberStats{Host: m.front.host, Primary: v.primary == i, Applied: wall,
			Behind: max(v.last.wall.Sub(wall), 0), Pending: pending, Applier: slotStats(m.appliers.snapshot())}
	}
	return out
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
