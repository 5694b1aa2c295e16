package sim

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The commands that describe the server and never take capacity: hello
// (the driver's handshake and monitoring), buildInfo, ping and, on routers,
// listShards. hostInfo is in hostinfo.go, serverStatus in telemetry.go.

func cmdEmpty(*frontend, context.Context, *connState, *cmd) (bson.D, error) { return bson.D{}, nil }

// cmdHello answers hello and isMaster as the spec's version does: hello
// only from 4.4 (before, it is an unknown command and helloOk is never
// offered, so the driver keeps to isMaster), isWritablePrimary for hello and
// ismaster for isMaster, the version's maxWireVersion. topologyVersion
// (4.4+) is left out on purpose: with it the driver would wait on awaitable
// hellos, which the simulator does not serve, instead of polling. A
// replica-set member answers as a primary or a secondary of its set
// (member.helloFields); during an election every member is a secondary and
// none names a primary.
func cmdHello(f *frontend, _ context.Context, cs *connState, c *cmd) (bson.D, error) {
	v := f.d.version
	primaryKey := "isWritablePrimary"
	if c.name != "hello" {
		primaryKey = "ismaster"
	} else if !v.hello {
		return nil, errCommandNotFound(c.name)
	}
	f.tel.hellos.Add(1)
	// A replica-set member's set fields come first, as in the captured
	// replies, and say whether it is the writable primary.
	var d bson.D
	if f.member != nil {
		d = f.member.helloFields(primaryKey)
	} else {
		d = bson.D{{Key: primaryKey, Value: true}}
	}
	d = append(d, bson.D{
		{Key: "maxBsonObjectSize", Value: int32(16 << 20)},
		{Key: "maxMessageSizeBytes", Value: int32(maxMessageSize)},
		{Key: "maxWriteBatchSize", Value: int32(100000)},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(time.Now())},
		{Key: "logicalSessionTimeoutMinutes", Value: int32(30)},
		{Key: "connectionId", Value: cs.id},
		{Key: "minWireVersion", Value: int32(0)},
		{Key: "maxWireVersion", Value: v.wire},
	}...)
	switch {
	case f.router:
		d = append(d, bson.E{Key: "msg", Value: "isdbgrid"})
	case f.shardServer:
		d = append(append(d, f.replicaSetFields()...), bson.E{Key: "readOnly", Value: false})
	default:
		d = append(d, bson.E{Key: "readOnly", Value: false})
	}
	if v.hello && c.bool("helloOk", false) {
		d = append(d, bson.E{Key: "helloOk", Value: true})
	}
	return d, nil
}

func cmdBuildInfo(f *frontend, _ context.Context, _ *connState, _ *cmd) (bson.D, error) {
	return bson.D{
		{Key: "version", Value: f.d.version.release()},
		{Key: "gitVersion", Value: "poolsweep-simulator"},
		{Key: "versionArray", Value: bson.A(f.d.version.versionArray())},
		{Key: "bits", Value: int32(64)},
		{Key: "maxBsonObjectSize", Value: int32(16 << 20)},
		{Key: "storageEngines", Value: bson.A{"poolsweep-sim-memory"}},
		{Key: "modules", Value: bson.A{}},
		{Key: "poolsweepSimulator", Value: true},
		{Key: "simulatorSpec", Value: f.d.spec.String()},
	}, nil
}

func cmdListShards(f *frontend, _ context.Context, _ *connState, _ *cmd) (bson.D, error) {
	shards := bson.A{}
	for _, d := range f.shardDocs() {
		shards = append(shards, d)
	}
	return bson.D{{Key: "shards", Value: shards}}, nil
}

// shardDocs are the cluster's config.shards documents, which listShards
// returns as they are and a router's find on config.shards reads
// (mongostat --discover does): a shard is a replica set, named set/host;
// topologyTime from 5.0.
func (f *frontend) shardDocs() []bson.D {
	var docs []bson.D
	for _, sh := range f.d.shards {
		d := bson.D{{Key: "_id", Value: sh.name}, {Key: "host", Value: sh.name + "/" + sh.host}, {Key: "state", Value: int32(1)}}
		if f.d.version.topologyTime {
			d = append(d, bson.E{Key: "topologyTime", Value: bson.Timestamp{T: uint32(f.d.started.Unix()), I: 1}})
		}
		docs = append(docs, d)
	}
	return docs
}
