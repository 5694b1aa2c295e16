package sim

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// What a replica-set member reports about the set: replSetGetStatus, and
// the repl and opcountersRepl sections of serverStatus. The shapes follow
// the corpus (testdata/servers: the captured 4.2 replSetGetStatus and
// serverStatus of set members, and manual files for the other versions);
// the values are the simulator's own state. Every member's optime is the
// one it has really applied, so replication lag reads off the optimes as on
// a real set: optimeDate (whole seconds, from the timestamp) in every
// version, and lastAppliedWallTime (milliseconds) in optimes from 4.2 and
// in members[] from 4.4. A real member learns the others' optimes from
// heartbeats and position updates a little late; here they are current.

// heartbeatInterval is heartbeatIntervalMillis, the real default. The
// members exchange no heartbeats; lastHeartbeat is the last tick of this
// interval, so that a reader comparing it with date sees a healthy set.
const heartbeatInterval = 2 * time.Second

// Member states as replSetGetStatus numbers and names them.
const (
	statePrimary   = 1
	stateSecondary = 2
)

// cmdReplSetGetStatus answers replSetGetStatus on a member; a standalone
// answers NoReplicationEnabled.
func cmdReplSetGetStatus(f *frontend, _ context.Context, _ *connState, _ *cmd) (bson.D, error) {
	if f.member == nil {
		return nil, errNoReplication()
	}
	return f.member.replSetStatus(time.Now()), nil
}

// replSetStatus is m's replSetGetStatus reply at now, in the field order of
// the captured replies.
func (m *member) replSetStatus(now time.Time) bson.D {
	rs := m.rs
	v := rs.d.version
	view := rs.view()
	committed, committedWall := rs.commitPoint()
	applied, appliedWall := m.appliedOp()
	source, sourceID := "", int32(-1)
	if view.primary >= 0 && view.primary != m.index {
		source, sourceID = rs.members[view.primary].front.host, int32(view.primary)
	}
	d := bson.D{
		{Key: "set", Value: rs.name},
		{Key: "date", Value: bson.NewDateTimeFromTime(now)},
		{Key: "myState", Value: int32(m.state(view))},
		{Key: "term", Value: view.term},
	}
	if !v.replStatus44 {
		d = append(d, bson.E{Key: "syncingTo", Value: source})
	}
	d = append(d,
		bson.E{Key: "syncSourceHost", Value: source},
		bson.E{Key: "syncSourceId", Value: sourceID},
		bson.E{Key: "heartbeatIntervalMillis", Value: heartbeatInterval.Milliseconds()})
	if v.replWallTimes {
		d = append(d,
			bson.E{Key: "majorityVoteCount", Value: int32(rs.majority())},
			bson.E{Key: "writeMajorityCount", Value: int32(rs.majority())})
	}
	if v.replStatus44 {
		d = append(d,
			bson.E{Key: "votingMembersCount", Value: int32(len(rs.members))},
			bson.E{Key: "writableVotingMembersCount", Value: int32(len(rs.members))})
	}
	optimes := bson.D{{Key: "lastCommittedOpTime", Value: optimeDoc(committed)}}
	if v.replWallTimes {
		optimes = append(optimes, bson.E{Key: "lastCommittedWallTime", Value: bson.NewDateTimeFromTime(committedWall)})
	}
	optimes = append(optimes, bson.E{Key: "readConcernMajorityOpTime", Value: optimeDoc(committed)})
	if v.replWallTimes {
		optimes = append(optimes, bson.E{Key: "readConcernMajorityWallTime", Value: bson.NewDateTimeFromTime(committedWall)})
	}
	optimes = append(optimes,
		bson.E{Key: "appliedOpTime", Value: optimeDoc(applied)},
		bson.E{Key: "durableOpTime", Value: optimeDoc(applied)})
	if v.replWallTimes {
		optimes = append(optimes,
			bson.E{Key: "lastAppliedWallTime", Value: bson.NewDateTimeFromTime(appliedWall)},
			bson.E{Key: "lastDurableWallTime", Value: bson.NewDateTimeFromTime(appliedWall)})
	}
	members := bson.A{}
	for _, x := range rs.members {
		members = append(members, m.memberStatus(x, view, now))
	}
	return append(d, bson.E{Key: "optimes", Value: optimes}, bson.E{Key: "members", Value: members})
}

// memberStatus is x's entry in m's replSetGetStatus: what every member has
// (_id, name, health, state, stateStr, uptime, optime, optimeDate), what
// only the others have (optimeDurable and its date, heartbeat times,
// pingMs), the primary's election time and date, and self on m's own.
func (m *member) memberStatus(x *member, view view, now time.Time) bson.D {
	v := m.rs.d.version
	self := x == m
	op, wall := x.appliedOp()
	state := x.state(view)
	d := bson.D{
		{Key: "_id", Value: int32(x.index)},
		{Key: "name", Value: x.front.host},
		{Key: "health", Value: 1.0},
		{Key: "state", Value: int32(state)},
		{Key: "stateStr", Value: stateName(state)},
		{Key: "uptime", Value: int32(now.Sub(m.rs.d.started).Seconds())},
		{Key: "optime", Value: optimeDoc(op)},
	}
	if !self {
		d = append(d, bson.E{Key: "optimeDurable", Value: optimeDoc(op)})
	}
	d = append(d, bson.E{Key: "optimeDate", Value: tsDate(op.ts)})
	if !self {
		d = append(d, bson.E{Key: "optimeDurableDate", Value: tsDate(op.ts)})
	}
	if v.replStatus44 {
		d = append(d,
			bson.E{Key: "lastAppliedWallTime", Value: bson.NewDateTimeFromTime(wall)},
			bson.E{Key: "lastDurableWallTime", Value: bson.NewDateTimeFromTime(wall)})
	}
	if !self {
		beat := bson.NewDateTimeFromTime(now.Add(-now.Sub(m.rs.d.started) % heartbeatInterval))
		d = append(d,
			bson.E{Key: "lastHeartbeat", Value: beat},
			bson.E{Key: "lastHeartbeatRecv", Value: beat},
			bson.E{Key: "pingMs", Value: int64(0)},
			bson.E{Key: "lastHeartbeatMessage", Value: ""})
	}
	source, sourceID := "", int32(-1)
	if state == stateSecondary && view.primary >= 0 {
		source, sourceID = m.rs.members[view.primary].front.host, int32(view.primary)
	}
	if !v.replStatus44 {
		d = append(d, bson.E{Key: "syncingTo", Value: source})
	}
	d = append(d,
		bson.E{Key: "syncSourceHost", Value: source},
		bson.E{Key: "syncSourceId", Value: sourceID},
		bson.E{Key: "infoMessage", Value: ""})
	if state == statePrimary {
		d = append(d,
			bson.E{Key: "electionTime", Value: view.electedOp.ts},
			bson.E{Key: "electionDate", Value: tsDate(view.electedOp.ts)})
	}
	d = append(d, bson.E{Key: "configVersion", Value: int32(replSetVersion)})
	if self {
		d = append(d, bson.E{Key: "self", Value: true}, bson.E{Key: "lastHeartbeatMessage", Value: ""})
	}
	return d
}

// state is m's member state in view: primary or secondary (a primary that
// stepped down, and every member during an election, is a secondary).
func (m *member) state(v view) int {
	if v.primary == m.index {
		return statePrimary
	}
	return stateSecondary
}

func stateName(state int) string {
	if state == statePrimary {
		return "PRIMARY"
	}
	return "SECONDARY"
}

// replSections are serverStatus's opcountersRepl (the oplog entries this
// member applied as a secondary, typed as the version types opcounters)
// and repl (the member's hello fields, with ismaster renamed
// isWritablePrimary from 5.0, and rbid), as set members report them.
func (m *member) replSections(counter func(int64) any) bson.D {
	v := m.rs.d.version
	key := "ismaster"
	if v.primaryNames {
		key = "isWritablePrimary"
	}
	m.catchUp()
	r := &m.replOps
	return bson.D{
		{Key: "opcountersRepl", Value: bson.D{
			{Key: "insert", Value: counter(r.insert.Load())},
			{Key: "query", Value: counter(0)},
			{Key: "update", Value: counter(r.update.Load())},
			{Key: "delete", Value: counter(r.delete.Load())},
			{Key: "getmore", Value: counter(0)},
			{Key: "command", Value: counter(r.command.Load())},
		}},
		{Key: "repl", Value: append(m.helloFields(key), bson.E{Key: "rbid", Value: int32(1)})},
	}
}
