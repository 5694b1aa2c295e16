package sim

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A simulated replica set (rs=N): N members, each a mongod on a port of its
// own with its own read and write slots and its own data. One is primary:
// it alone takes writes, and each write it applies is sent to every
// secondary, which applies it through its own write slots after the
// replication lag (replication.go). Reads go wherever the driver sends them.
// A step-down leaves the set without a primary until a secondary is elected
// (election.go). The members answer hello, serverStatus and
// replSetGetStatus as real members of the spec's version do (replstatus.go).

// setName is the simulated replica set's name, which the URI gives.
const setName = "rs0"

// replSetVersion is the set's configuration version (setVersion,
// configVersion): elections do not change the configuration.
const replSetVersion = 1

// opTime is a replication optime: the oplog timestamp and the term in which
// the primary wrote it.
type opTime struct {
	ts   bson.Timestamp
	term int64
}

// after reports whether o is later than p (terms first, as the server
// compares optimes).
func (o opTime) after(p opTime) bool {
	if o.term != p.term {
		return o.term > p.term
	}
	return o.ts.After(p.ts)
}

// replSet is the set's shared state: which member is primary, in which
// term, and the newest oplog entry.
type replSet struct {
	d       *Deployment
	name    string
	members []*member

	mu      sync.Mutex
	primary int // index of the primary; -1 while an election runs
	term    int64
	// electedAt is when the current primary was elected (electionDate).
	electedAt time.Time
	electedOp opTime // the primary's first optime (electionTime)
	last      *oplogEntry
	election  *time.Timer // the election in progress, if any
}

// member is one member of the set.
type member struct {
	rs    *replSet
	index int
	front *frontend
	shard *shard
	// appliers are the oplog applier's slots (repl_writers): an entry
	// holds one of them and one of the member's write slots.
	appliers *slotPool

	// repl is this member's replication: what it has been sent and
	// applied (replication.go).
	repl applier
	// replOps count the oplog entries this member applied as a secondary
	// (serverStatus opcountersRepl): per document inserted, updated or
	// deleted, and per catalogue change as a command.
	replOps struct{ insert, update, delete, command atomic.Int64 }
	// barred is when m may be elected again after stepping down (rs.mu).
	barred time.Time
	// elections are m's serverStatus electionMetrics counters (rs.mu).
	elections electionCounts
}

// newReplSet makes the deployment's members a replica set whose first
// member is primary in term 1, each member's data starting at the set's
// initiation entry.
func newReplSet(d *Deployment) *replSet {
	rs := &replSet{d: d, name: setName, term: 1}
	for i, f := range d.fronts {
		m := &member{rs: rs, index: i, front: f, shard: f.shard, appliers: newSlotPool(d.spec.ReplWriters)}
		f.shard.name = f.host
		f.member = m
		rs.members = append(rs.members, m)
	}
	now := time.Now()
	// Every member holds the set's first entry from the start, so a write
	// that changes nothing before the first write (it waits for the last
	// entry) is acknowledged at once, whatever its write concern.
	first := &oplogEntry{op: opTime{ts: bson.Timestamp{T: uint32(now.Unix()), I: 1}, term: 1}, wall: now, applied: make([]time.Time, len(rs.members))}
	for i, m := range rs.members {
		m.repl.applied, m.repl.appliedWall = first.op, now
		first.applied[i] = now
	}
	rs.last = first
	rs.primary, rs.electedAt, rs.electedOp = 0, now, first.op
	// The first primary won the set's first election, called when its
	// election timeout passed, and was caught up (a new set's 4.2.8
	// capture counts exactly this).
	rs.members[0].elections.won(false)
	return rs
}

// stop cancels an election in progress (Close).
func (rs *replSet) stop() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.election != nil {
		rs.election.Stop()
	}
}

// majority is how many members a majority write needs (writeMajorityCount):
// every member votes and bears data.
func (rs *replSet) majority() int { return rs.d.spec.Majority() }

// hosts are the members' host:port, in order.
func (rs *replSet) hosts() []string {
	out := make([]string, len(rs.members))
	for i, m := range rs.members {
		out[i] = m.front.host
	}
	return out
}

// view is a consistent copy of the set's state for one reply.
type view struct {
	primary   int // -1 during an election
	term      int64
	electedAt time.Time
	electedOp opTime
	last      *oplogEntry
}

func (rs *replSet) view() view {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return view{primary: rs.primary, term: rs.term, electedAt: rs.electedAt, electedOp: rs.electedOp, last: rs.last}
}

// isPrimary reports whether m is the primary now.
func (m *member) isPrimary() bool { return m.rs.view().primary == m.index }

// electionID is the primary's electionId: 0x7fffffff and then the term, as
// a real primary of protocol version 1 makes it (the corpus's primary of
// term 11 reports 7fffffff000000000000000b). A newer term gives a greater
// id, by which the driver tells the new primary from a stale one.
func electionID(term int64) bson.ObjectID {
	var id bson.ObjectID
	binary.BigEndian.PutUint32(id[:4], 0x7fffffff)
	binary.BigEndian.PutUint64(id[4:], uint64(term))
	return id
}

// helloFields are a member's replica-set fields of hello (and of
// serverStatus.repl), in the order the captured 4.2 replies give them:
// hosts, setName, setVersion, the writable-primary flag under key,
// secondary, primary (left out while no member is primary), me, electionId
// (the primary's only, as the server appends it for the leader) and
// lastWrite (this member's last applied optime and the set's majority
// point, with their dates in whole seconds, as the timestamps carry them).
// topologyVersion is left out on purpose (see cmdHello).
func (m *member) helloFields(key string) bson.D {
	v := m.rs.view()
	primary := v.primary == m.index
	d := bson.D{
		{Key: "hosts", Value: bson.A(toAny(m.rs.hosts()))},
		{Key: "setName", Value: m.rs.name},
		{Key: "setVersion", Value: int32(replSetVersion)},
		{Key: key, Value: primary},
		{Key: "secondary", Value: !primary},
	}
	if v.primary >= 0 {
		d = append(d, bson.E{Key: "primary", Value: m.rs.members[v.primary].front.host})
	}
	d = append(d, bson.E{Key: "me", Value: m.front.host})
	if primary {
		d = append(d, bson.E{Key: "electionId", Value: electionID(v.term)})
	}
	applied, _ := m.appliedOp()
	committed, _ := m.rs.commitPoint()
	return append(d, bson.E{Key: "lastWrite", Value: bson.D{
		{Key: "opTime", Value: optimeDoc(applied)},
		{Key: "lastWriteDate", Value: tsDate(applied.ts)},
		{Key: "majorityOpTime", Value: optimeDoc(committed)},
		{Key: "majorityWriteDate", Value: tsDate(committed.ts)},
	}})
}

// optimeDoc is an optime as replies give it: {ts, t}, t an int64.
func optimeDoc(o opTime) bson.D {
	return bson.D{{Key: "ts", Value: o.ts}, {Key: "t", Value: o.term}}
}

// tsDate is the date of a timestamp: its seconds, as optimeDate and
// lastWriteDate report it.
func tsDate(ts bson.Timestamp) bson.DateTime {
	return bson.DateTime(int64(ts.T) * 1000)
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
