package sim

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The commands that describe the server and never take capacity: hello
// (the driver's handshake and monitoring), buildInfo, ping and, on routers,
// listShards. hostInfo is in hostinfo.go, serverStatus in telemetry.go.

// simVersion is what buildInfo and serverStatus report: a real-looking
// version so version checks pass, with a suffix that says what it is.
const simVersion = "8.0.0-poolsweep-sim"

// maxWireVersion 21 is MongoDB 7.0's, which driver v2 fully supports.
const maxWireVersion = 21

func cmdEmpty(*frontend, context.Context, *connState, *cmd) (bson.D, error) { return bson.D{}, nil }

func cmdHello(f *frontend, _ context.Context, cs *connState, c *cmd) (bson.D, error) {
	primaryKey := "isWritablePrimary"
	if c.name != "hello" {
		primaryKey = "ismaster"
	}
	d := bson.D{
		{Key: primaryKey, Value: true},
		{Key: "maxBsonObjectSize", Value: int32(16 << 20)},
		{Key: "maxMessageSizeBytes", Value: int32(maxMessageSize)},
		{Key: "maxWriteBatchSize", Value: int32(100000)},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(time.Now())},
		{Key: "logicalSessionTimeoutMinutes", Value: int32(30)},
		{Key: "connectionId", Value: cs.id},
		{Key: "minWireVersion", Value: int32(0)},
		{Key: "maxWireVersion", Value: int32(maxWireVersion)},
		{Key: "readOnly", Value: false},
	}
	if f.router {
		d = append(d, bson.E{Key: "msg", Value: "isdbgrid"})
	}
	if c.bool("helloOk", false) {
		d = append(d, bson.E{Key: "helloOk", Value: true})
	}
	return d, nil
}

func cmdBuildInfo(f *frontend, _ context.Context, _ *connState, _ *cmd) (bson.D, error) {
	return bson.D{
		{Key: "version", Value: simVersion},
		{Key: "gitVersion", Value: "poolsweep-simulator"},
		{Key: "versionArray", Value: bson.A{int32(8), int32(0), int32(0), int32(0)}},
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
	for _, sh := range f.d.shards {
		shards = append(shards, bson.D{{Key: "_id", Value: sh.name}, {Key: "host", Value: sh.host}, {Key: "state", Value: int32(1)}})
	}
	return bson.D{{Key: "shards", Value: shards}}, nil
}
