package sim

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// Replica sets through the real Go driver (v2) over loopback sockets:
// discovery, reads by read preference, a secondary's data, write concern.

// topologyWatch follows the driver's view of the deployment through its
// SDAM events.
type topologyWatch struct {
	mu   sync.Mutex
	last event.TopologyDescription
}

func (w *topologyWatch) monitor() *event.ServerMonitor {
	return &event.ServerMonitor{TopologyDescriptionChanged: func(e *event.TopologyDescriptionChangedEvent) {
		w.mu.Lock()
		w.last = e.NewDescription
		w.mu.Unlock()
	}}
}

// primary is the address of the server the driver takes for the primary
// ("" when it knows none), with the kind of the topology.
func (w *topologyWatch) primary() (string, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.last.Servers {
		if s.Kind == "RSPrimary" {
			return s.Addr.String(), w.last.Kind
		}
	}
	return "", w.last.Kind
}

// kinds counts the driver's servers by kind.
func (w *topologyWatch) kinds() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for _, s := range w.last.Servers {
		out[s.Kind]++
	}
	return out
}

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", within, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitApplied waits until every member of d has applied every write.
func waitApplied(t *testing.T, d *Deployment) {
	t.Helper()
	waitFor(t, 10*time.Second, "every member applies every write", func() bool {
		for _, m := range d.Stats().Members {
			if m.Pending > 0 {
				return false
			}
		}
		return true
	})
}

// connectWatched connects to the set's URI with a topology watch.
func connectWatched(t *testing.T, uri string, pool uint64, opts ...*options.ClientOptions) (*mongo.Client, *topologyWatch) {
	t.Helper()
	w := &topologyWatch{}
	o := options.Client().ApplyURI(uri).SetMaxPoolSize(pool).SetTimeout(10 * time.Second).SetServerMonitor(w.monitor())
	c, err := mongo.Connect(append([]*options.ClientOptions{o}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disconnect(c) })
	return c, w
}

// memberStatus runs serverStatus on one member over a direct connection,
// as poolsweep samples every member of a set.
func memberStatus(t *testing.T, host string) bson.Raw {
	t.Helper()
	c := connectNoCleanup(t, "mongodb://"+host+"/?directConnection=true", 1)
	defer disconnect(c)
	return serverStatus(t, c)
}

// counter reads an int32 or int64 counter at a dotted path.
func counter(t *testing.T, r bson.Raw, path ...string) int64 {
	t.Helper()
	v, err := r.LookupErr(path...)
	if err != nil {
		t.Fatalf("%v: %v", path, err)
	}
	n, ok := v.AsInt64OK()
	if !ok {
		t.Fatalf("%v is %s", path, v.Type)
	}
	return n
}

func TestReplicaSetDiscovery(t *testing.T) {
	for _, version := range []string{"4.4", "8.0"} {
		t.Run(version, func(t *testing.T) {
			d := startSim(t, "rs=3,service=0s,version="+version)
			c, w := connectWatched(t, d.URI(), 2)
			if err := c.Ping(t.Context(), readpref.Primary()); err != nil {
				t.Fatal(err)
			}
			waitFor(t, 5*time.Second, "the driver sees one primary and two secondaries", func() bool {
				k := w.kinds()
				return k["RSPrimary"] == 1 && k["RSSecondary"] == 2
			})
			primary, kind := w.primary()
			if kind != "ReplicaSetWithPrimary" || primary != d.Primary() || primary != d.Hosts()[0] {
				t.Errorf("driver: %s with primary %s; the set's primary is %s", kind, primary, d.Primary())
			}
			if w.last.SetName != "rs0" {
				t.Errorf("set name %q, want rs0", w.last.SetName)
			}
		})
	}
}

// queries are the members' opcounters.query, in member order.
func queries(t *testing.T, d *Deployment) []int64 {
	t.Helper()
	out := make([]int64, len(d.Hosts()))
	for i, h := range d.Hosts() {
		out[i] = counter(t, memberStatus(t, h), "opcounters", "query")
	}
	return out
}

func TestReplicaSetReadPreference(t *testing.T) {
	t.Parallel()
	d := startSim(t, "rs=3,slots=4,service=0s")
	// nearest picks among the members within the driver's latency window
	// (15 ms past the fastest heartbeat RTT). On a busy machine one
	// member's RTT can stray past it and nearest then skips it (CI saw
	// [0 97 103]); a wide window leaves the choice to the simulator's
	// replies, which is what this test is about.
	c, _ := connectWatched(t, d.URI(), 4, options.Client().SetLocalThreshold(time.Minute))
	ctx := t.Context()
	coll := c.Database("db").Collection("c")
	for i := range 20 {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}}); err != nil {
			t.Fatal(err)
		}
	}
	const reads = 200
	for _, tt := range []struct {
		mode *readpref.ReadPref
		// check holds the queries each member served in member order
		// (the primary first).
		check func(got []int64) error
	}{
		{readpref.Primary(), func(got []int64) error {
			if got[0] != reads || got[1]+got[2] != 0 {
				return errors.New("want every read on the primary")
			}
			return nil
		}},
		{readpref.SecondaryPreferred(), func(got []int64) error {
			// The driver picks the less busy of two random secondaries, so
			// both serve; the primary serves none while they are up.
			if got[0] != 0 || got[1]+got[2] != reads || got[1] < reads/5 || got[2] < reads/5 {
				return errors.New("want every read on the secondaries, each a fair share")
			}
			return nil
		}},
		{readpref.Nearest(), func(got []int64) error {
			if got[0]+got[1]+got[2] != reads || slices.Contains(got, 0) {
				return errors.New("want reads on every member")
			}
			return nil
		}},
	} {
		t.Run(tt.mode.Mode().String(), func(t *testing.T) {
			before := queries(t, d)
			pc := coll.Database().Collection("c", options.Collection().SetReadPreference(tt.mode))
			for i := range reads {
				if err := pc.FindOne(ctx, bson.D{{Key: "_id", Value: i % 20}}).Err(); err != nil {
					t.Fatalf("read %d: %v", i, err)
				}
			}
			after := queries(t, d)
			got := make([]int64, len(after))
			for i := range after {
				got[i] = after[i] - before[i]
			}
			if err := tt.check(got); err != nil {
				t.Errorf("%s: queries per member %v: %v", tt.mode.Mode(), got, err)
			}
		})
	}
}

// TestReplicaSetSecondaryHoldsWhatItApplied: a secondary's data shows a
// write only once it has applied it, repl_lag after the primary did.
func TestReplicaSetSecondaryHoldsWhatItApplied(t *testing.T) {
	t.Parallel()
	d := startSim(t, "rs=2,service=0s,repl_lag=300ms")
	c, _ := connectWatched(t, d.URI(), 2)
	ctx := t.Context()
	coll := c.Database("db").Collection("c", options.Collection().SetWriteConcern(writeconcern.W1()))
	secondary := c.Database("db").Collection("c", options.Collection().SetReadPreference(readpref.Secondary()))
	// Let the driver discover the secondary first.
	if err := secondary.FindOne(ctx, bson.D{{Key: "_id", Value: "warm"}}).Err(); !errors.Is(err, mongo.ErrNoDocuments) {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "x"}}); err != nil {
		t.Fatal(err)
	}
	err := secondary.FindOne(ctx, bson.D{{Key: "_id", Value: "x"}}).Err()
	if early := time.Since(start); early < 300*time.Millisecond && !errors.Is(err, mongo.ErrNoDocuments) {
		t.Errorf("%v after a w:1 insert the secondary has the document (%v); it applies it 300ms later", early, err)
	}
	waitFor(t, 5*time.Second, "the secondary applies the insert", func() bool {
		return secondary.FindOne(ctx, bson.D{{Key: "_id", Value: "x"}}).Err() == nil
	})
	if took := time.Since(start); took < 300*time.Millisecond {
		t.Errorf("the secondary had the document %v after the insert, before the replication lag", took)
	}
	// A read without secondaryOk on the secondary is refused, as a real
	// secondary refuses it.
	direct := connect(t, "mongodb://"+d.Hosts()[1]+"/?directConnection=true", 1)
	err = direct.Database("db").RunCommand(ctx, bson.D{{Key: "find", Value: "c"}, {Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "primary"}}}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 13435 || ce.Name != "NotPrimaryNoSecondaryOk" {
		t.Errorf("find with read preference primary on a secondary: %v, want NotPrimaryNoSecondaryOk", err)
	}
	// A write on it is refused; without retryWrites=false the driver would
	// retry this retryable error until its timeout, as against a real one.
	once := connect(t, "mongodb://"+d.Hosts()[1]+"/?directConnection=true&retryWrites=false", 1)
	_, err = once.Database("db").Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: "y"}})
	var we mongo.WriteException
	if code := commandCode(err); code != 10107 || (!errors.As(err, &ce) && !errors.As(err, &we)) {
		t.Errorf("insert on a secondary: %v, want NotWritablePrimary", err)
	}
}

// timedInserts runs n inserts one after another with the collection's
// write concern and returns each one's latency.
func timedInserts(t *testing.T, coll *mongo.Collection, prefix string, n int) []time.Duration {
	t.Helper()
	out := make([]time.Duration, n)
	for i := range out {
		start := time.Now()
		if _, err := coll.InsertOne(t.Context(), bson.D{{Key: "_id", Value: fmt.Sprintf("%s%d", prefix, i)}}); err != nil {
			t.Fatalf("%s insert %d: %v", prefix, i, err)
		}
		out[i] = time.Since(start)
	}
	slices.Sort(out)
	return out
}

// TestReplicaSetWriteConcernLatency holds w:1 below the replication lag, an
// upper bound a busy CPU could break: it runs serially, not beside the
// parallel group; its two versions, each mostly waiting out the lag, run
// side by side.
func TestReplicaSetWriteConcernLatency(t *testing.T) {
	const lag = 80 * time.Millisecond
	for _, version := range []string{"4.4", "8.0"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			d := startSim(t, fmt.Sprintf("rs=3,slots=4,service=1ms,repl_lag=%s,version=%s", lag, version))
			c, _ := connectWatched(t, d.URI(), 4)
			db := c.Database("db")
			with := func(wc *writeconcern.WriteConcern) *mongo.Collection {
				return db.Collection("c", options.Collection().SetWriteConcern(wc))
			}
			w1 := timedInserts(t, with(writeconcern.W1()), "w1-", 7)
			maj := timedInserts(t, with(writeconcern.Majority()), "maj-", 5)
			all := timedInserts(t, with(&writeconcern.WriteConcern{W: 3}), "all-", 3)
			def := timedInserts(t, db.Collection("c"), "default-", 5)
			t.Logf("w:1 median %v; w:majority min %v; w:3 min %v; no write concern median %v", w1[3], maj[0], all[0], def[2])
			if w1[3] >= lag {
				t.Errorf("w:1 median latency %v, want below the replication lag %v (the primary alone acknowledges)", w1[3], lag)
			}
			if maj[0] < lag || all[0] < lag {
				t.Errorf("w:majority fastest %v, w:3 fastest %v: want at least the replication lag %v", maj[0], all[0], lag)
			}
			// The implicit default is w:majority from 5.0, w:1 before.
			if majorityDefault := version != "4.4"; majorityDefault != (def[0] >= lag) {
				t.Errorf("%s without a write concern: fastest %v, median %v; want majority (≥ %v) from 5.0, w:1 before", version, def[0], def[2], lag)
			}
		})
	}
}

func TestReplicaSetWriteConcernErrors(t *testing.T) {
	d := startSim(t, "rs=3,service=0s,repl_lag=200ms")
	c, _ := connectWatched(t, d.URI(), 2)
	ctx := t.Context()
	db := c.Database("db")
	var wce mongo.WriteException
	// wtimeout shorter than the lag: acknowledged with a writeConcernError,
	// and the write stays. Driver v2 sends no wtimeout (it has timeouts of
	// its own), so the command is written by hand, as an older driver's.
	start := time.Now()
	reply, err := db.RunCommand(ctx, bson.D{
		{Key: "insert", Value: "c"},
		{Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: "t"}}}},
		{Key: "writeConcern", Value: bson.D{{Key: "w", Value: "majority"}, {Key: "wtimeout", Value: int32(20)}}},
	}).Raw()
	took := time.Since(start)
	code, _ := reply.Lookup("writeConcernError", "code").AsInt64OK()
	timedOut, _ := reply.Lookup("writeConcernError", "errInfo", "wtimeout").BooleanOK()
	if n, _ := reply.Lookup("n").AsInt64OK(); code != 64 || !timedOut || n != 1 || took > 150*time.Millisecond {
		t.Errorf("w:majority, wtimeout 20ms, lag 200ms: %v (%v) after %v; want n:1 and writeConcernError 64 with errInfo.wtimeout after about 20ms", reply, err, took)
	}
	if err := db.Collection("c").FindOne(ctx, bson.D{{Key: "_id", Value: "t"}}).Err(); err != nil {
		t.Errorf("the timed-out write is not on the primary: %v", err)
	}
	// More members than the set has.
	_, err = db.Collection("c", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: 4})).InsertOne(ctx, bson.D{{Key: "_id", Value: "u"}})
	if !errors.As(err, &wce) || wce.WriteConcernError == nil || wce.WriteConcernError.Code != 100 {
		t.Errorf("w:4 on three members: %v, want UnsatisfiableWriteConcern (100)", err)
	}
	// A tag the set does not define.
	_, err = db.Collection("c", options.Collection().SetWriteConcern(&writeconcern.WriteConcern{W: "dc2"})).InsertOne(ctx, bson.D{{Key: "_id", Value: "v"}})
	var ce mongo.CommandError
	if !errors.As(err, &ce) && !errors.As(err, &wce) {
		t.Errorf("w:\"dc2\": %v, want UnknownReplWriteConcern (79)", err)
	} else if code := commandCode(err); code != 79 {
		t.Errorf("w:\"dc2\": code %d, want UnknownReplWriteConcern (79)", code)
	}
}

// commandCode is the server's error code in a driver error.
func commandCode(err error) int32 {
	var se mongo.ServerError
	if !errors.As(err, &se) {
		return 0
	}
	for _, code := range []int32{79, 64, 100, 10107, 11602, 13435} {
		if se.HasErrorCode(int(code)) {
			return code
		}
	}
	return -1
}

// TestReplicaSetDataAndCatalogueReplicate: every member ends with the same
// documents and collections after a mix of writes.
func TestReplicaSetDataAndCatalogueReplicate(t *testing.T) {
	d := startSim(t, "rs=3,slots=4,service=0s,repl_lag=5ms")
	c, _ := connectWatched(t, d.URI(), 4)
	ctx := t.Context()
	coll := c.Database("db").Collection("c")
	var docs []any
	for i := range 50 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "n", Value: int32(i)}})
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: int32(100)}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 40}}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Database("db").Collection("other").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Database("db").Collection("gone").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	waitApplied(t, d)
	for _, h := range d.Hosts() {
		direct := connect(t, "mongodb://"+h+"/?directConnection=true", 1)
		dc := direct.Database("db").Collection("c")
		n, err := dc.EstimatedDocumentCount(ctx)
		var three bson.M
		err2 := dc.FindOne(ctx, bson.D{{Key: "_id", Value: 3}}).Decode(&three)
		names, err3 := direct.Database("db").ListCollectionNames(ctx, bson.D{})
		slices.Sort(names)
		if err != nil || err2 != nil || err3 != nil || n != 40 || three["n"] != int32(103) || !slices.Equal(names, []string{"c", "other"}) {
			t.Errorf("%s: %d documents, _id 3 = %v, collections %v (%v %v %v); want 40, n 103, [c other]", h, n, three, names, err, err2, err3)
		}
	}
	// The secondaries counted what they applied as opcountersRepl.
	st := memberStatus(t, d.Hosts()[1])
	if ins, del := counter(t, st, "opcountersRepl", "insert"), counter(t, st, "opcountersRepl", "delete"); ins != 50 || del != 10 {
		t.Errorf("a secondary's opcountersRepl insert %d delete %d, want 50 and 10", ins, del)
	}
	if q := counter(t, st, "opcounters", "insert"); q != 0 {
		t.Errorf("a secondary's own opcounters.insert %d, want 0: clients wrote only to the primary", q)
	}
}

// A write that changes nothing on a set that has written nothing yet (a
// delete that matches nothing) waits, as a real primary does, for the
// set's first entry, which every member holds from the start: w:majority
// and w:3 are acknowledged at once, without a writeConcernError.
func TestReplicaSetNoOpWriteOnNewSet(t *testing.T) {
	d := startSim(t, "rs=3,service=0s,repl_lag=50ms")
	c, _ := connectWatched(t, d.URI(), 2)
	for _, wc := range []*writeconcern.WriteConcern{writeconcern.Majority(), {W: 3}} {
		coll := c.Database("db").Collection("c", options.Collection().SetWriteConcern(wc))
		if _, err := coll.DeleteMany(t.Context(), bson.D{{Key: "run", Value: "x"}}); err != nil {
			t.Errorf("w:%v, a delete that matches nothing on a new set: %v", wc.W, err)
		}
	}
}
