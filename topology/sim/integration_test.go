package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testpar"
)

// TestMain runs the parallel tests (replica sets, step-downs, queues,
// restarts: they mostly wait on the simulator's service times and the
// driver's monitoring) more at once than one per core. The calibrations
// stay serial: Go runs them before the parallel group.
func TestMain(m *testing.M) { testpar.Main(m, 8) }

// startSim starts a deployment for one test and closes it when it ends.
func startSim(t testing.TB, spec string) *Deployment {
	t.Helper()
	s, err := ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return d
}

// connect opens a driver v2 client with a pool of at most pool connections;
// it is disconnected when the test ends.
func connect(t testing.TB, uri string, pool uint64) *mongo.Client {
	t.Helper()
	c := connectNoCleanup(t, uri, pool)
	t.Cleanup(func() { disconnect(c) })
	return c
}

func connectNoCleanup(t testing.TB, uri string, pool uint64) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetMaxPoolSize(pool).SetTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func disconnect(c *mongo.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.Disconnect(ctx)
}

func TestDriverCRUDRoundTrip(t *testing.T) {
	for _, spec := range []string{
		"slots=4,service=0s",                    // standalone
		"shards=3,slots=4,service=0s,routers=2", // sharded: every op routed or scattered
	} {
		t.Run(spec, func(t *testing.T) {
			d := startSim(t, spec)
			ctx := t.Context()
			coll := connect(t, d.URI(), 4).Database("db").Collection("c")

			var docs []any
			for i := range 250 {
				docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprintf("k%04d", i)}, {Key: "n", Value: int32(i)}, {Key: "tag", Value: "a"}})
			}
			ins, err := coll.InsertMany(ctx, docs)
			if err != nil {
				t.Fatal(err)
			}
			if len(ins.InsertedIDs) != 250 {
				t.Fatalf("inserted %d", len(ins.InsertedIDs))
			}
			oid, err := coll.InsertOne(ctx, bson.D{{Key: "x", Value: 1}})
			if err != nil {
				t.Fatal(err)
			}
			if _, ok := oid.InsertedID.(bson.ObjectID); !ok {
				t.Fatalf("InsertedID %T, want ObjectID", oid.InsertedID)
			}
			// Duplicate _id is a write error, not a dropped connection.
			_, err = coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "k0001"}})
			if !mongo.IsDuplicateKeyError(err) {
				t.Fatalf("duplicate insert: %v", err)
			}

			var got bson.M
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "k0042"}}).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if got["n"] != int32(42) {
				t.Fatalf("FindOne k0042 = %v", got)
			}
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "nope"}}).Err(); !errors.Is(err, mongo.ErrNoDocuments) {
				t.Fatalf("FindOne missing: %v", err)
			}

			// Range scan across shards, merged in _id order, through getMore batches.
			cur, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: "k0100"}, {Key: "$lt", Value: "k0200"}}}},
				options.Find().SetBatchSize(7).SetSort(bson.D{{Key: "_id", Value: 1}}))
			if err != nil {
				t.Fatal(err)
			}
			var rng []bson.M
			if err := cur.All(ctx, &rng); err != nil {
				t.Fatal(err)
			}
			if len(rng) != 100 || rng[0]["_id"] != "k0100" || rng[99]["_id"] != "k0199" {
				t.Fatalf("range scan: %d docs, first %v", len(rng), rng[0])
			}
			for i := 1; i < len(rng); i++ {
				if rng[i-1]["_id"].(string) >= rng[i]["_id"].(string) {
					t.Fatalf("range scan out of order at %d", i)
				}
			}
			lim, err := coll.Find(ctx, bson.D{}, options.Find().SetLimit(5).SetSkip(3))
			if err != nil {
				t.Fatal(err)
			}
			var five []bson.M
			if err := lim.All(ctx, &five); err != nil || len(five) != 5 || five[0]["_id"] != "k0003" {
				t.Fatalf("limit/skip: %v %v", err, five)
			}

			up, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "k0007"}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "tag", Value: "b"}}}, {Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1000)}}}})
			if err != nil || up.MatchedCount != 1 || up.ModifiedCount != 1 {
				t.Fatalf("UpdateOne: %v %+v", err, up)
			}
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "k0007"}}).Decode(&got); err != nil || got["n"] != int32(1007) || got["tag"] != "b" {
				t.Fatalf("after update: %v %v", err, got)
			}
			many, err := coll.UpdateMany(ctx, bson.D{{Key: "tag", Value: "a"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "tag", Value: "c"}}}})
			if err != nil || many.MatchedCount != 249 {
				t.Fatalf("UpdateMany: %v %+v", err, many)
			}
			ups, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "new"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(1)}}}}, options.UpdateOne().SetUpsert(true))
			if err != nil || ups.UpsertedID != "new" {
				t.Fatalf("upsert: %v %+v", err, ups)
			}
			rep, err := coll.ReplaceOne(ctx, bson.D{{Key: "_id", Value: "new"}}, bson.D{{Key: "whole", Value: true}})
			if err != nil || rep.ModifiedCount != 1 {
				t.Fatalf("ReplaceOne: %v %+v", err, rep)
			}
			got = bson.M{} // Decode merges into an existing map
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "new"}}).Decode(&got); err != nil || got["whole"] != true || got["n"] != nil {
				t.Fatalf("after replace: %v %v", err, got)
			}

			n, err := coll.EstimatedDocumentCount(ctx)
			if err != nil || n != 252 {
				t.Fatalf("count: %v %d", err, n)
			}
			del, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: "k0010"}}}})
			if err != nil || del.DeletedCount != 10 {
				t.Fatalf("DeleteMany: %v %+v", err, del)
			}
			if n, _ := coll.EstimatedDocumentCount(ctx); n != 242 {
				t.Fatalf("count after delete: %d", n)
			}

			if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "tag", Value: 1}}}); err != nil {
				t.Fatal(err)
			}
			names, err := coll.Database().ListCollectionNames(ctx, bson.D{})
			if err != nil || !slices.Equal(names, []string{"c"}) {
				t.Fatalf("ListCollectionNames: %v %v", err, names)
			}
			dbs, err := coll.Database().Client().ListDatabaseNames(ctx, bson.D{})
			if err != nil || !slices.Contains(dbs, "db") {
				t.Fatalf("ListDatabaseNames: %v %v", err, dbs)
			}
			if err := coll.Drop(ctx); err != nil {
				t.Fatal(err)
			}
			if n, _ := coll.EstimatedDocumentCount(ctx); n != 0 {
				t.Fatalf("count after drop: %d", n)
			}
		})
	}
}

func TestDriverCommandNotFound(t *testing.T) {
	d := startSim(t, "service=0s")
	c := connect(t, d.URI(), 1)
	ctx := t.Context()
	err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "frobnicate", Value: 1}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 59 || ce.Name != "CommandNotFound" {
		t.Fatalf("unknown command: %v", err)
	}
	// The same connection (pool of one) still works afterwards.
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatalf("ping after error: %v", err)
	}
	if got := d.Stats().Servers[0].ConnectionsCreated; got > 2 {
		t.Errorf("%d connections created; the error must not drop the connection", got)
	}
}

func TestDriverTwoRouters(t *testing.T) {
	d := startSim(t, "shards=3,slots=8,service=0s,routers=2")
	hosts := d.Hosts()
	if len(hosts) != 2 || hosts[0] == hosts[1] {
		t.Fatalf("hosts %v", hosts)
	}
	if want := "mongodb://" + hosts[0] + "," + hosts[1] + "/"; d.URI() != want {
		t.Fatalf("URI %q, want %q", d.URI(), want)
	}
	c := connect(t, d.URI(), 4)
	ctx := t.Context()
	var hello bson.M
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatal(err)
	}
	if hello["msg"] != "isdbgrid" {
		t.Fatalf("hello via the URI: %v", hello)
	}
	coll := c.Database("db").Collection("c")
	// At least n inserts, and on until both routers took some, for at most
	// 10 s: the driver spreads ops over the routers it has discovered, and
	// on a busy host its monitor of the second may still be connecting
	// when the first 300 are done (seen in CI: 0 + 300).
	n := 0
	deadline := time.Now().Add(10 * time.Second)
	for n < 300 || (time.Now().Before(deadline) && (d.Stats().Servers[0].Insert == 0 || d.Stats().Servers[1].Insert == 0)) {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("id%d", n)}}); err != nil {
			t.Fatal(err)
		}
		n++
	}
	st := d.Stats()
	// The driver spreads ops over both mongos; every insert went through one.
	if st.Servers[0].Insert == 0 || st.Servers[1].Insert == 0 || int(st.Servers[0].Insert+st.Servers[1].Insert) != n {
		t.Errorf("inserts per router: %d + %d, want both > 0 summing to %d", st.Servers[0].Insert, st.Servers[1].Insert, n)
	}
	docs := 0
	for _, sh := range st.Shards {
		if sh.Documents == 0 {
			t.Errorf("%s holds no documents: _id hashing does not spread", sh.Name)
		}
		docs += sh.Documents
	}
	if docs != n {
		t.Errorf("shards hold %d documents, want %d", docs, n)
	}
	var ls struct {
		Shards []struct {
			ID   string `bson:"_id"`
			Host string `bson:"host"`
		} `bson:"shards"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "listShards", Value: 1}}).Decode(&ls); err != nil {
		t.Fatal(err)
	}
	if len(ls.Shards) != 3 || ls.Shards[0].ID != "shard0" || ls.Shards[0].Host == "" {
		t.Errorf("listShards: %+v", ls)
	}
	// At rest every router→shard connection is idle, and each was counted.
	var pool struct {
		InUse     int32 `bson:"totalInUse"`
		Available int32 `bson:"totalAvailable"`
		Created   int32 `bson:"totalCreated"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "connPoolStats", Value: 1}}).Decode(&pool); err != nil {
		t.Fatal(err)
	}
	if pool.Created < 3 || pool.InUse != 0 || pool.Available != pool.Created {
		t.Errorf("connPoolStats after serial inserts: %+v, want ≥3 created, all available", pool)
	}
}

// serverStatus runs serverStatus on the one server of a standalone.
func serverStatus(t *testing.T, c *mongo.Client) bson.Raw {
	t.Helper()
	r, err := c.Database("admin").RunCommand(t.Context(), bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestDriverServerStatusCounts(t *testing.T) {
	d := startSim(t, "slots=4,service=0s")
	c := connect(t, d.URI(), 2)
	ctx := t.Context()
	coll := c.Database("db").Collection("c")
	before := serverStatus(t, c)
	docs := []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		coll.FindOne(ctx, bson.D{{Key: "_id", Value: i}})
	}
	if _, err := coll.UpdateMany(ctx, bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	after := serverStatus(t, c)
	delta := func(path ...string) int64 {
		a, _ := after.Lookup(path...).AsInt64OK()
		b, _ := before.Lookup(path...).AsInt64OK()
		return a - b
	}
	tests := []struct {
		path []string
		want int64
	}{
		{[]string{"opcounters", "insert"}, 3},         // one per document
		{[]string{"opcounters", "query"}, 5},          // five finds
		{[]string{"opcounters", "update"}, 1},         // one statement
		{[]string{"opcounters", "delete"}, 1},         // one statement
		{[]string{"opLatencies", "reads", "ops"}, 5},  // the finds
		{[]string{"opLatencies", "writes", "ops"}, 3}, // insert, update, delete commands
	}
	for _, tt := range tests {
		if got := delta(tt.path...); got != tt.want {
			t.Errorf("Δ%v = %d, want %d", tt.path, got, tt.want)
		}
	}
	// Monitoring hellos and the serverStatus calls are commands; at least
	// the second serverStatus is.
	if delta("opcounters", "command") < 1 {
		t.Errorf("Δcommand = %d", delta("opcounters", "command"))
	}
	if delta("network", "numRequests") < 9 || delta("network", "bytesIn") <= 0 || delta("network", "bytesOut") <= 0 {
		t.Errorf("network deltas: requests %d in %d out %d", delta("network", "numRequests"), delta("network", "bytesIn"), delta("network", "bytesOut"))
	}
	st := d.Stats()
	cur := after.Lookup("connections", "current").Int32()
	if int64(cur) != st.Servers[0].ConnectionsCurrent || cur < 2 {
		t.Errorf("connections.current %d, Stats %d (pool + monitor ≥ 2)", cur, st.Servers[0].ConnectionsCurrent)
	}
	if after.Lookup("host").StringValue() != d.Hosts()[0] {
		t.Errorf("host %v, want %s", after.Lookup("host"), d.Hosts()[0])
	}
}

func TestDriverServerStatusSeesQueue(t *testing.T) {
	t.Parallel()
	// 2 slots of 200ms and 6 concurrent finds: while they run, serverStatus
	// (which takes no slot) sees 2 active and 4 queued readers.
	d := startSim(t, "slots=2,service=200ms")
	loader := connect(t, d.URI(), 1)
	if _, err := loader.Database("db").Collection("c").InsertOne(t.Context(), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	c := connect(t, d.URI(), 8)
	coll := c.Database("db").Collection("c")
	errs := make(chan error, 6)
	for range 6 {
		go func() { errs <- coll.FindOne(t.Context(), bson.D{{Key: "_id", Value: 1}}).Err() }()
	}
	var queued, active int32
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !(queued == 4 && active == 2) {
		s := serverStatus(t, loader)
		queued = s.Lookup("globalLock", "currentQueue", "readers").Int32()
		active = s.Lookup("globalLock", "activeClients", "readers").Int32()
		if out := s.Lookup("queues", "execution", "read", "out").Int32(); out != active {
			t.Fatalf("queues.execution.read.out %d != activeClients.readers %d", out, active)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if queued != 4 || active != 2 {
		t.Errorf("never saw 2 active + 4 queued readers; last %d + %d", active, queued)
	}
	for range 6 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

func TestCloseUnblocksQueuedOps(t *testing.T) {
	t.Parallel()
	s, _ := ParseSpec("slots=1,service=10s")
	d, err := Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	c := connectNoCleanup(t, d.URI(), 4)
	defer func() {
		// Disconnect's endSessions would wait out server selection.
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		c.Disconnect(ctx)
	}()
	done := make(chan error, 3)
	for range 3 {
		go func() {
			// The driver retries the read after the connection drops and
			// would wait out server selection; 2s bounds that.
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			done <- c.Database("db").Collection("c").FindOne(ctx, bson.D{}).Err()
		}()
	}
	time.Sleep(200 * time.Millisecond) // let them queue
	start := time.Now()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("Close took %v with ops in a 10s service", el)
	}
	for range 3 {
		if err := <-done; err == nil {
			t.Error("an op succeeded on a closed server")
		}
	}
	if err := d.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// TestDeploymentOutlivesStartContext guards this: the context given to
// Start bounds starting only. A deployment whose start context ends (as a
// 60-s start timeout does a minute into a sweep) must keep serving, for
// standalone and routed deployments alike, until Close.
func TestDeploymentOutlivesStartContext(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"slots=2,service=0s", "shards=2,slots=2,service=0s,routers=2"} {
		t.Run(spec, func(t *testing.T) {
			s, err := ParseSpec(spec)
			if err != nil {
				t.Fatal(err)
			}
			startCtx, cancel := context.WithTimeout(context.Background(), time.Minute)
			d, err := Start(startCtx, s)
			cancel() // the start timeout's end, brought forward
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { d.Close() })
			// Give a context watcher, if one came back, time to act.
			time.Sleep(100 * time.Millisecond)
			c := connect(t, d.URI(), 2)
			coll := c.Database("db").Collection("c")
			for i := range 20 {
				if _, err := coll.InsertOne(t.Context(), bson.D{{Key: "_id", Value: i}}); err != nil {
					t.Fatalf("insert %d after the start context ended: %v", i, err)
				}
			}
			if n, err := coll.EstimatedDocumentCount(t.Context()); err != nil || n != 20 {
				t.Fatalf("count after the start context ended = %d, %v; want 20", n, err)
			}
			// Every router still accepts connections.
			for _, h := range d.Hosts() {
				conn, err := net.DialTimeout("tcp", h, 5*time.Second)
				if err != nil {
					t.Fatalf("%s refuses connections after the start context ended: %v", h, err)
				}
				conn.Close()
			}
			// Close still stops it.
			if err := d.Close(); err != nil {
				t.Fatal(err)
			}
			if conn, err := net.DialTimeout("tcp", d.Hosts()[0], time.Second); err == nil {
				conn.Close()
				t.Fatal("still accepting after Close")
			}
		})
	}
}

// TestStartRefusesEndedContext: an already-ended start context starts nothing.
func TestStartRefusesEndedContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if d, err := Start(ctx, DefaultSpec()); err == nil {
		d.Close()
		t.Fatal("Start with an ended context succeeded")
	}
}

func TestReadsAndWritesQueueApart(t *testing.T) {
	t.Parallel()
	// One read slot and one write slot of 300ms: two finds and one insert at
	// once run one read and the insert side by side; only the second find
	// queues, for its own kind's slot (as on a real server's tickets).
	d := startSim(t, "read_slots=1,write_slots=1,service=300ms")
	loader := connect(t, d.URI(), 1)
	c := connect(t, d.URI(), 8)
	coll := c.Database("db").Collection("c")
	errs := make(chan error, 3)
	for range 2 {
		go func() { errs <- coll.FindOne(t.Context(), bson.D{{Key: "_id", Value: 1}}).Err() }()
	}
	go func() {
		_, err := coll.InsertOne(t.Context(), bson.D{{Key: "_id", Value: "w"}})
		errs <- err
	}()
	seen := false
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && !seen {
		s := serverStatus(t, loader)
		q, a := s.Lookup("globalLock", "currentQueue"), s.Lookup("globalLock", "activeClients")
		r, w := s.Lookup("queues", "execution", "read"), s.Lookup("queues", "execution", "write")
		seen = q.Document().Lookup("readers").Int32() == 1 && q.Document().Lookup("writers").Int32() == 0 &&
			a.Document().Lookup("readers").Int32() == 1 && a.Document().Lookup("writers").Int32() == 1 &&
			r.Document().Lookup("normalPriority", "queueLength").Int64() == 1 && w.Document().Lookup("out").Int32() == 1 &&
			r.Document().Lookup("totalTickets").Int32() == 1 && w.Document().Lookup("available").Int32() == 0
		time.Sleep(5 * time.Millisecond)
	}
	if !seen {
		t.Error("never saw 1 read + 1 write running and 1 read queued for the read slot")
	}
	for range 3 {
		if err := <-errs; err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
			t.Error(err)
		}
	}
	if st := d.Stats().Shards[0]; st.Reads.Acquired != 2 || st.Writes.Acquired != 1 || st.Reads.MaxQueue != 1 || st.Writes.MaxQueue != 0 {
		t.Errorf("read pool %+v, write pool %+v", st.Reads, st.Writes)
	}
}
