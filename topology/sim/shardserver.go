package sim

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A sharded deployment's shards are servers of their own, as a real
// cluster's are: each listens on a loopback port and answers as the primary
// of a one-member replica set named after the shard, so that a client can
// find and sample it the way it would a real shard's primary (listShards
// gives shardN/host:port). What it reports (serverStatus, hostInfo,
// buildInfo) is a mongod's, with the tickets, queues and latencies of the
// shard's own slot pools and the ops its routers sent it. It serves the
// monitoring commands only; data goes through the routers.

// shardServerCommands are the commands a shard's own server answers; any
// other is refused with shardServerOnly.
var shardServerCommands = map[string]bool{
	"hello": true, "isMaster": true, "ismaster": true, "ping": true, "endSessions": true,
	"buildInfo": true, "buildinfo": true, "serverStatus": true, "hostInfo": true,
	"connPoolStats": true, "saslStart": true, "saslContinue": true, "top": true,
	// getParameter and setParameter (a shard's own parameters are set on
	// its server), and the simulator's event command: a shard's data can
	// be slowed through its own server.
	"getParameter": true, "setParameter": true, simEventCommand: true,
}

// errShardServerOnly refuses a data command sent to a shard directly.
func errShardServerOnly(name string) *cmdError {
	return &cmdError{Code: 2, Name: "BadValue",
		Msg: "the simulated shard serves monitoring commands only (" + name + "): send data through the routers"}
}

// replicaSetFields are the hello fields of a one-member replica set's
// primary: setName, setVersion, hosts, primary, me, secondary and an
// electionId, as a real shard's primary answers (corpus:
// isMaster.mongod-replset-primary-4.2.json).
func (f *frontend) replicaSetFields() bson.D {
	return bson.D{
		{Key: "hosts", Value: bson.A{f.host}},
		{Key: "setName", Value: f.shard.name},
		{Key: "setVersion", Value: int32(1)},
		{Key: "secondary", Value: false},
		{Key: "primary", Value: f.host},
		{Key: "me", Value: f.host},
		{Key: "electionId", Value: bson.ObjectID{0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 1}},
	}
}

// shardOp is what a routed data op counts in its shard's opcounters: the
// command it is part of and, for an insert, the documents it carries to
// that shard (a mongod counts inserts per document, updates and deletes per
// statement, a find as a query, a getMore as a getmore, and a count as a
// command).
type shardOp struct {
	command string
	docs    int
	ns      string // the namespace top books it on
}

type shardOpKey struct{}

// withShardOp records on ctx the command a routed data op belongs to.
func withShardOp(ctx context.Context, op shardOp) context.Context {
	return context.WithValue(ctx, shardOpKey{}, op)
}

// shardOpOf returns the command recorded on ctx (zero when none).
func shardOpOf(ctx context.Context) shardOp {
	op, _ := ctx.Value(shardOpKey{}).(shardOp)
	return op
}

// count adds the op to a shard server's opcounters.
func (op shardOp) count(t *telemetry) {
	switch op.command {
	case "find":
		t.query.Add(1)
	case "getMore":
		t.getmore.Add(1)
	case "insert":
		t.insert.Add(int64(max(op.docs, 1)))
	case "update":
		t.update.Add(1)
	case "delete":
		t.delete.Add(1)
	default:
		t.command.Add(1)
	}
}
