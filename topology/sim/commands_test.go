package sim

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// runCmd drives a server's handler directly, as if the command had arrived
// in an OP_MSG with the given document sequences.
func runCmd(t *testing.T, f *frontend, db string, body bson.D, seqs map[string][]bson.D) bson.Raw {
	t.Helper()
	req := &request{opcode: wiremessage.OpMsg, body: doc(t, body), db: db}
	for ident, docs := range seqs {
		if req.seqs == nil {
			req.seqs = map[string][]bsoncore.Document{}
		}
		for _, d := range docs {
			req.seqs[ident] = append(req.seqs[ident], doc(t, d))
		}
	}
	reply := f.handle(context.Background(), &connState{id: 7}, req)
	if err := reply.Validate(); err != nil {
		t.Fatalf("%v: invalid reply: %v", body, err)
	}
	return bson.Raw(reply)
}

func wantOK(t *testing.T, r bson.Raw) {
	t.Helper()
	if ok, _ := r.Lookup("ok").AsFloat64OK(); ok != 1 {
		t.Fatalf("reply not ok: %v", r)
	}
}

func wantCode(t *testing.T, r bson.Raw, code int32, name string) {
	t.Helper()
	if ok, _ := r.Lookup("ok").AsFloat64OK(); ok != 0 || r.Lookup("code").Int32() != code || r.Lookup("codeName").StringValue() != name {
		t.Fatalf("reply %v, want error %d %s", r, code, name)
	}
}

// frontendFor starts a deployment and returns its first server.
func frontendFor(t *testing.T, spec string) *frontend {
	return startSim(t, spec).fronts[0]
}

func TestHandlersErrors(t *testing.T) {
	f := frontendFor(t, "service=0s")
	tests := []struct {
		name string
		cmd  bson.D
		code int32
		cn   string
	}{
		{"unknown command", bson.D{{Key: "frobnicate", Value: 1}}, 59, "CommandNotFound"},
		{"listShards exists only on routers", bson.D{{Key: "listShards", Value: 1}}, 59, "CommandNotFound"},
		{"aggregate without a pipeline", bson.D{{Key: "aggregate", Value: "c"}}, 2, "BadValue"},
		{"a filter operator the simulator does not evaluate is answered", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "a", Value: bson.D{{Key: "$regex", Value: "x"}}}}}}, 0, ""},
		{"a sort on another field is answered", bson.D{{Key: "find", Value: "c"}, {Key: "sort", Value: bson.D{{Key: "a", Value: 1}}}}, 0, ""},
		{"collection name of the wrong type", bson.D{{Key: "find", Value: 3}}, 14, "TypeMismatch"},
		{"getMore on an unknown cursor", bson.D{{Key: "getMore", Value: int64(12345)}, {Key: "collection", Value: "c"}}, 43, "CursorNotFound"},
		{"insert without documents", bson.D{{Key: "insert", Value: "c"}}, 2, "BadValue"},
		{"create twice", bson.D{{Key: "create", Value: "dup"}}, 0, ""},
		{"create twice, second time", bson.D{{Key: "create", Value: "dup"}}, 48, "NamespaceExists"},
	}
	for _, tt := range tests {
		r := runCmd(t, f, "db", tt.cmd, nil)
		if tt.code == 0 {
			wantOK(t, r)
			continue
		}
		wantCode(t, r, tt.code, tt.cn)
	}
}

func TestHandlerHello(t *testing.T) {
	standalone := frontendFor(t, "service=0s")
	r := runCmd(t, standalone, "admin", bson.D{{Key: "hello", Value: 1}, {Key: "helloOk", Value: true}}, nil)
	wantOK(t, r)
	if !r.Lookup("isWritablePrimary").Boolean() || !r.Lookup("helloOk").Boolean() || r.Lookup("connectionId").Int32() != 7 ||
		r.Lookup("maxWireVersion").Int32() != 25 {
		t.Errorf("hello: %v", r)
	}
	if _, err := r.LookupErr("msg"); err == nil {
		t.Errorf("standalone hello has msg: %v", r)
	}
	legacy := runCmd(t, standalone, "admin", bson.D{{Key: "isMaster", Value: 1}}, nil)
	if !legacy.Lookup("ismaster").Boolean() {
		t.Errorf("isMaster: %v", legacy)
	}
	// 4.2 has no hello: the driver must stay on isMaster, so isMaster
	// offers no helloOk either.
	old := frontendFor(t, "service=0s,version=4.2")
	wantCode(t, runCmd(t, old, "admin", bson.D{{Key: "hello", Value: 1}}, nil), 59, "CommandNotFound")
	legacy = runCmd(t, old, "admin", bson.D{{Key: "isMaster", Value: 1}, {Key: "helloOk", Value: true}}, nil)
	if _, err := legacy.LookupErr("helloOk"); err == nil || legacy.Lookup("maxWireVersion").Int32() != 8 {
		t.Errorf("4.2 isMaster: %v", legacy)
	}
	router := frontendFor(t, "shards=2,service=0s")
	r = runCmd(t, router, "admin", bson.D{{Key: "hello", Value: 1}}, nil)
	if r.Lookup("msg").StringValue() != "isdbgrid" {
		t.Errorf("router hello: %v", r)
	}
	bi := runCmd(t, router, "admin", bson.D{{Key: "buildInfo", Value: 1}}, nil)
	if bi.Lookup("version").StringValue() != "8.0.0-poolsweep-sim" || !bi.Lookup("poolsweepSimulator").Boolean() {
		t.Errorf("buildInfo: %v", bi)
	}
	ls := runCmd(t, router, "admin", bson.D{{Key: "listShards", Value: 1}}, nil)
	shards, _ := ls.Lookup("shards").Array().Values()
	if len(shards) != 2 || shards[1].Document().Lookup("_id").StringValue() != "shard1" {
		t.Errorf("listShards: %v", ls)
	}
}

func TestHandlerCursorAndSequences(t *testing.T) {
	f := frontendFor(t, "service=0s")
	var docs []bson.D
	for i := range 25 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}})
	}
	// Documents as an OP_MSG kind-1 sequence, as the driver sends them.
	r := runCmd(t, f, "db", bson.D{{Key: "insert", Value: "c"}}, map[string][]bson.D{"documents": docs})
	wantOK(t, r)
	if r.Lookup("n").Int32() != 25 {
		t.Fatalf("insert: %v", r)
	}
	r = runCmd(t, f, "db", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 5}}}}}, {Key: "batchSize", Value: int32(8)}}, nil)
	wantOK(t, r)
	first, _ := r.Lookup("cursor", "firstBatch").Array().Values()
	id := r.Lookup("cursor", "id").Int64()
	if len(first) != 8 || id == 0 || first[0].Document().Lookup("_id").Int32() != 5 {
		t.Fatalf("find: %v", r)
	}
	r = runCmd(t, f, "db", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}, {Key: "batchSize", Value: int32(8)}}, nil)
	next, _ := r.Lookup("cursor", "nextBatch").Array().Values()
	if len(next) != 8 || r.Lookup("cursor", "id").Int64() != id || next[0].Document().Lookup("_id").Int32() != 13 {
		t.Fatalf("getMore: %v", r)
	}
	r = runCmd(t, f, "db", bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{id, int64(99)}}}, nil)
	killed, _ := r.Lookup("cursorsKilled").Array().Values()
	missing, _ := r.Lookup("cursorsNotFound").Array().Values()
	if len(killed) != 1 || len(missing) != 1 {
		t.Fatalf("killCursors: %v", r)
	}
	wantCode(t, runCmd(t, f, "db", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}}, nil), 43, "CursorNotFound")

	// Update statements as a sequence: one match, one upsert, one failure.
	r = runCmd(t, f, "db", bson.D{{Key: "update", Value: "c"}, {Key: "ordered", Value: false}}, map[string][]bson.D{"updates": {
		{{Key: "q", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}}},
		{{Key: "q", Value: bson.D{{Key: "_id", Value: int32(100)}}}, {Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "x", Value: 1}}}}}, {Key: "upsert", Value: true}},
		{{Key: "q", Value: bson.D{{Key: "_id", Value: int32(2)}}}, {Key: "u", Value: bson.D{{Key: "$inc", Value: bson.D{{Key: "a", Value: "b"}}}}}},
	}})
	wantOK(t, r)
	ups, _ := r.Lookup("upserted").Array().Values()
	werrs, _ := r.Lookup("writeErrors").Array().Values()
	if r.Lookup("n").Int32() != 2 || r.Lookup("nModified").Int32() != 1 || len(ups) != 1 || len(werrs) != 1 ||
		ups[0].Document().Lookup("index").Int32() != 1 || werrs[0].Document().Lookup("index").Int32() != 2 {
		t.Fatalf("update: %v", r)
	}
	r = runCmd(t, f, "db", bson.D{{Key: "delete", Value: "c"}, {Key: "deletes", Value: bson.A{
		bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 10}}}}}, {Key: "limit", Value: 0}},
	}}}, nil)
	if r.Lookup("n").Int32() != 10 {
		t.Fatalf("delete: %v", r)
	}
	r = runCmd(t, f, "db", bson.D{{Key: "count", Value: "c"}}, nil)
	if r.Lookup("n").Int32() != 16 {
		t.Fatalf("count: %v", r)
	}
}

func TestHandlerServerStatusShape(t *testing.T) {
	f := frontendFor(t, "slots=5,service=0s")
	runCmd(t, f, "db", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}}}}, nil)
	runCmd(t, f, "db", bson.D{{Key: "find", Value: "c"}}, nil)
	runCmd(t, f, "db", bson.D{{Key: "nope", Value: 1}}, nil)
	r := runCmd(t, f, "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
	wantOK(t, r)
	// Field path, BSON type MongoDB uses, and the value counted so far.
	tests := []struct {
		path []string
		typ  bson.Type
		want int64 // -1: only the type is checked
	}{
		{[]string{"opcounters", "insert"}, bson.TypeInt64, 2},  // per document
		{[]string{"opcounters", "query"}, bson.TypeInt64, 1},   // one find
		{[]string{"opcounters", "command"}, bson.TypeInt64, 2}, // the unknown command and serverStatus itself
		{[]string{"opLatencies", "reads", "ops"}, bson.TypeInt64, 1},
		{[]string{"opLatencies", "writes", "ops"}, bson.TypeInt64, 1},
		{[]string{"opLatencies", "commands", "ops"}, bson.TypeInt64, 1}, // serverStatus is not finished yet
		{[]string{"connections", "current"}, bson.TypeInt32, 0},         // driven directly, no sockets
		{[]string{"connections", "available"}, bson.TypeInt32, maxIncomingConnections},
		{[]string{"queues", "execution", "read", "totalTickets"}, bson.TypeInt32, 5},
		{[]string{"queues", "execution", "write", "available"}, bson.TypeInt32, 5},
		{[]string{"queues", "execution", "read", "normalPriority", "queueLength"}, bson.TypeInt64, 0},
		{[]string{"queues", "execution", "read", "normalPriority", "newAdmissions"}, bson.TypeInt64, 1},  // the find
		{[]string{"queues", "execution", "write", "normalPriority", "newAdmissions"}, bson.TypeInt64, 1}, // the insert
		{[]string{"globalLock", "currentQueue", "readers"}, bson.TypeInt32, 0},
		{[]string{"globalLock", "activeClients", "total"}, bson.TypeInt32, 0},
		{[]string{"network", "bytesIn"}, bson.TypeInt64, 0}, // counted at the socket
		{[]string{"uptime"}, bson.TypeDouble, -1},
		{[]string{"localTime"}, bson.TypeDateTime, -1},
		{[]string{"process"}, bson.TypeString, -1},
	}
	for _, tt := range tests {
		v, err := r.LookupErr(tt.path...)
		if err != nil {
			t.Errorf("%v missing", tt.path)
			continue
		}
		if v.Type != tt.typ {
			t.Errorf("%v is %s, want %s", tt.path, v.Type, tt.typ)
			continue
		}
		if tt.want >= 0 {
			if n, _ := v.AsInt64OK(); n != tt.want {
				t.Errorf("%v = %d, want %d", tt.path, n, tt.want)
			}
		}
	}
	if r.Lookup("process").StringValue() != "mongod" {
		t.Errorf("process = %v", r.Lookup("process"))
	}
	for _, section := range []string{"extra_info", "mem", "poolsweepSimulator"} {
		if _, err := r.LookupErr(section); err == nil {
			t.Errorf("%s reported by a simulator not alone in its process", section)
		}
	}
	if _, err := r.LookupErr("wiredTiger", "concurrentTransactions"); err == nil {
		t.Error("8.0 reports tickets under queues.execution only")
	}
}
