package workload

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testferret"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// foreignDocs are another client's documents in poolsweep's collection:
// an ObjectId _id (what a driver gives a document without one), a
// number, and strings on both sides of poolsweep's "user<n>" keys.
var foreignDocs = []any{
	bson.D{{Key: "name", Value: "theirs"}},
	bson.D{{Key: "_id", Value: 42}, {Key: "name", Value: "theirs"}},
	bson.D{{Key: "_id", Value: "user"}, {Key: "name", Value: "theirs"}},
	bson.D{{Key: "_id", Value: "usertable-note"}, {Key: "name", Value: "theirs"}},
	bson.D{{Key: "_id", Value: "a-key"}, {Key: "name", Value: "theirs"}},
}

// foreignServers are the servers the foreign-data tests run on: the
// simulator standalone, as a replica set and sharded behind a router, and
// embedded FerretDB, which take different query operators.
var foreignServers = map[string]func(testing.TB) string{
	"sim":         func(t testing.TB) string { return testsrv.Sim(t, "slots=4,service=0s").URI() },
	"sim-rs":      func(t testing.TB) string { return testsrv.Sim(t, "rs=3,slots=4,service=0s").URI() },
	"sim-sharded": func(t testing.TB) string { return testsrv.Sim(t, "shards=2,slots=4,service=0s").URI() },
	"ferretdb":    testferret.Start,
}

// TestPrepareForeignDocuments: a collection poolsweep created that also
// holds documents another client wrote is refused, with their count, for
// a reload (another --records), a reuse (the same --records) and --drop
// alike, and nothing is dropped or written; --drop-foreign reloads it.
// On the simulator (standalone, replica set, sharded behind a router) and
// on embedded FerretDB, which take different query operators: the count
// of poolsweep's own documents is one both take.
func TestPrepareForeignDocuments(t *testing.T) {
	t.Parallel()
	for name, start := range foreignServers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			uri := start(t)
			ctx := context.Background()
			w := DefaultWorkload()
			w.Records, w.Database = 20, "ps_foreign"
			if lr, err := Prepare(ctx, testsrv.Connect(t, uri), w, PrepareOptions{}); err != nil || !lr.Loaded {
				t.Fatalf("first load: %+v %v", lr, err)
			}
			// Another client, with a driver of its own.
			other := testsrv.Connect(t, uri)
			coll := other.Database(w.Database).Collection(w.Collection)
			if _, err := coll.InsertMany(ctx, foreignDocs); err != nil {
				t.Fatal(err)
			}
			metaBefore := metaRecord(t, other, w)

			c := testsrv.Connect(t, uri)
			for _, tc := range []struct {
				name    string
				records int
				o       PrepareOptions
			}{
				{"another size", 30, PrepareOptions{}},
				{"same size", 20, PrepareOptions{}},
				{"--drop", 20, PrepareOptions{Drop: true}},
				{"--drop, another size", 30, PrepareOptions{Drop: true}},
			} {
				w := w
				w.Records = tc.records
				lr, err := Prepare(ctx, c, w, tc.o)
				var fe *ForeignError
				if !errors.As(err, &fe) || !errors.Is(err, ErrNotOurs) || fe.Foreign != 5 || fe.Total != 25 {
					t.Errorf("%s: Prepare returned %+v, %v; want a ForeignError of 5 documents of 25", tc.name, lr, err)
				}
				if err := CheckData(ctx, func() *options.ClientOptions { return options.Client().ApplyURI(uri) }, w, false); !errors.As(err, &fe) {
					t.Errorf("%s: CheckData returned %v; want a ForeignError", tc.name, err)
				}
			}
			// Nothing was dropped or written: theirs and ours are there,
			// and poolsweep_meta holds its record as it was, and no lock.
			if n, err := count(other, w.Database, w.Collection, bson.D{{Key: "name", Value: "theirs"}}); err != nil || n != 5 {
				t.Errorf("%d of their 5 documents left (%v)", n, err)
			}
			if n, err := count(other, w.Database, w.Collection, nil); err != nil || n != 25 {
				t.Errorf("%d documents left of 25 (%v)", n, err)
			}
			if after := metaRecord(t, other, w); !equalDocs(after, metaBefore) {
				t.Errorf("poolsweep_meta changed:\nbefore %v\nafter  %v", metaBefore, after)
			}

			// Named with --drop-foreign: dropped with the collection, which
			// is loaded anew with poolsweep's documents only.
			w.Records = 30
			if err := CheckData(ctx, func() *options.ClientOptions { return options.Client().ApplyURI(uri) }, w, true); err != nil {
				t.Errorf("CheckData with dropForeign: %v", err)
			}
			lr, err := Prepare(ctx, c, w, PrepareOptions{DropForeign: true})
			if err != nil || !lr.Loaded || lr.Documents != 30 {
				t.Fatalf("--drop-foreign: %+v %v; want a reload of 30", lr, err)
			}
			if n, err := count(other, w.Database, w.Collection, bson.D{{Key: "name", Value: "theirs"}}); err != nil || n != 0 {
				t.Errorf("%d of their documents are still there after --drop-foreign (%v)", n, err)
			}
			// Clean again: reused without the flag.
			if lr, err := Prepare(ctx, c, w, PrepareOptions{}); err != nil || !lr.Reused || lr.Documents != 30 {
				t.Errorf("after --drop-foreign: %+v %v; want a reuse of 30", lr, err)
			}
		})
	}
}

// TestPrepareForeignMeta: documents in poolsweep_meta that poolsweep did
// not write, under the names it uses (the collection's record, the load
// lock), are refused, not written over or removed as a dead run's lock.
func TestPrepareForeignMeta(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=4,service=0s").URI()
	ctx := context.Background()
	c := testsrv.Connect(t, uri)
	for _, tc := range []struct {
		name, db string
		doc      bson.D
	}{
		{"record of another tool", "ps_meta_record", bson.D{{Key: "_id", Value: "usertable"}, {Key: "tool", Value: "ycsb"}, {Key: "records", Value: 20}}},
		{"lock of another tool", "ps_meta_lock", bson.D{{Key: "_id", Value: lockID("usertable")}, {Key: "owner", Value: "someone"}}},
	} {
		w := DefaultWorkload()
		w.Records, w.Database = 20, tc.db
		meta := c.Database(w.Database).Collection(MetaCollection)
		if _, err := meta.InsertOne(ctx, tc.doc); err != nil {
			t.Fatal(err)
		}
		// A lock's timing short enough that taking "a dead run's lock"
		// over, the failure this guards against, happens within the test.
		lr, err := Prepare(ctx, c, w, PrepareOptions{DropForeign: true, Drop: true, LockWait: 5 * time.Second,
			lock: lockTiming{beat: 100 * time.Millisecond, staleAfter: time.Second, poll: 50 * time.Millisecond}})
		if !errors.Is(err, ErrNotOurs) {
			t.Errorf("%s: Prepare returned %+v, %v; want ErrNotOurs", tc.name, lr, err)
		}
		var got bson.D
		if err := meta.FindOne(ctx, bson.D{{Key: "_id", Value: tc.doc[0].Value}}).Decode(&got); err != nil || !equalDocs(got, tc.doc) {
			t.Errorf("%s: their document is now %v (%v)", tc.name, got, err)
		}
		if n, err := count(c, w.Database, w.Collection, nil); err != nil || n != 0 {
			t.Errorf("%s: %d documents were loaded (%v)", tc.name, n, err)
		}
	}
}

func metaRecord(t *testing.T, c *mongo.Client, w Workload) bson.D {
	t.Helper()
	var d bson.D
	if err := c.Database(w.Database).Collection(MetaCollection).FindOne(context.Background(), bson.D{{Key: "_id", Value: w.Collection}}).Decode(&d); err != nil {
		t.Fatal(err)
	}
	if n, err := count(c, w.Database, MetaCollection, nil); err != nil || n != 1 {
		t.Errorf("poolsweep_meta holds %d documents (%v), want the record alone", n, err)
	}
	return d
}

// count counts the documents of db.coll that query matches.
func count(c *mongo.Client, db, coll string, query bson.D) (int64, error) {
	return Count(context.Background(), c.Database(db), coll, query)
}

func equalDocs(a, b bson.D) bool {
	x, err1 := bson.Marshal(a)
	y, err2 := bson.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// TestPrepareEmptyForeignCollection: an empty collection that another
// client created under poolsweep's name (no poolsweep_meta record) is
// refused, not loaded into and so later dropped with its options; it is
// still there, and poolsweep_meta still empty, afterwards.
// --drop-foreign drops it and loads anew.
func TestPrepareEmptyForeignCollection(t *testing.T) {
	t.Parallel()
	for name, start := range foreignServers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			uri := start(t)
			ctx := context.Background()
			w := DefaultWorkload()
			w.Records, w.Database = 20, "ps_empty_foreign"
			other := testsrv.Connect(t, uri)
			if err := other.Database(w.Database).CreateCollection(ctx, w.Collection); err != nil {
				t.Fatal(err)
			}
			c := testsrv.Connect(t, uri)
			for _, o := range []PrepareOptions{{}, {Drop: true}} {
				lr, err := Prepare(ctx, c, w, o)
				if !errors.Is(err, ErrNotOurs) || lr.Loaded {
					t.Errorf("Prepare(%+v) on another client's empty collection: %+v, %v; want ErrNotOurs", o, lr, err)
				}
			}
			if err := CheckData(ctx, func() *options.ClientOptions { return options.Client().ApplyURI(uri) }, w, false); !errors.Is(err, ErrNotOurs) {
				t.Errorf("CheckData: %v; want ErrNotOurs", err)
			}
			names, err := other.Database(w.Database).ListCollectionNames(ctx, bson.D{})
			if err != nil || len(names) != 1 || names[0] != w.Collection {
				t.Errorf("collections after the refusals: %v (%v); want only theirs, %s", names, err, w.Collection)
			}
			if lr, err := Prepare(ctx, c, w, PrepareOptions{DropForeign: true}); err != nil || !lr.Loaded || lr.Documents != 20 {
				t.Fatalf("--drop-foreign: %+v %v; want a load of 20", lr, err)
			}
			if lr, err := Prepare(ctx, c, w, PrepareOptions{}); err != nil || !lr.Reused {
				t.Errorf("after --drop-foreign: %+v %v; want a reuse", lr, err)
			}
		})
	}
}

// copyForeignDocs are another client's documents in a replay's copy,
// whose documents are users with _ids 0 … 199: an ObjectId _id, a
// number past them, and strings, one of them poolsweep's key form.
var copyForeignDocs = []any{
	bson.D{{Key: "name", Value: "theirs"}},
	bson.D{{Key: "_id", Value: 4242}, {Key: "name", Value: "theirs"}},
	bson.D{{Key: "_id", Value: "user7"}, {Key: "name", Value: "theirs"}},
	bson.D{{Key: "_id", Value: "replay-note"}, {Key: "name", Value: "theirs"}, {Key: copyOwnField, Value: false}},
	bson.D{{Key: "_id", Value: "a-key"}, {Key: "name", Value: "theirs"}, {Key: "email", Value: "new1@x"}},
}

// TestReplayCopyForeignDocuments: a replay's copy is poolsweep's by the
// same rules as its loaded collection. Documents another client wrote
// into a copy are refused with their count, for a reuse and for --drop
// alike, and neither dropped nor written; a replayed delete {} run anyway
// deletes none of them, and what the replay itself upserts, replaces and
// inserts stays poolsweep's; --drop-foreign drops them with the copy and
// builds it anew. A collection of a copy's name that poolsweep did not
// create is refused: with documents always, empty unless --drop-foreign.
// On the simulator (standalone, replica set, sharded) and FerretDB.
func TestReplayCopyForeignDocuments(t *testing.T) {
	t.Parallel()
	for name, start := range foreignServers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			uri := start(t)
			ctx := context.Background()
			other := testsrv.Connect(t, uri)
			c := testsrv.Connect(t, uri)
			makeUsers(t, other, "shop")
			f, err := replayFile(t,
				"command: delete\ndatabase: shop\ncollection: users\nmulti: true\nfilter: {}",
				"command: update\ndatabase: shop\ncollection: users\nupsert: true\nfilter: {email: '?string'}\nupdate: {$set: {status: '?string'}}\nvalues: {filter.email: {dist: uniform, type: string, values: [new1@x], n: 1}}",
				"command: update\ndatabase: shop\ncollection: users\nfilter: {email: '?string'}\nupdate: {email: '?string', status: replaced}\nvalues: {filter.email: {dist: uniform, type: string, values: [new1@x], n: 1}}",
				"command: insert\ndatabase: shop\ncollection: users\ninsert_docs: 2",
				"command: findAndModify\ndatabase: shop\ncollection: users\nupsert: true\nfilter: {email: '?string'}\nupdate: {$inc: {n: 1}}\nvalues: {filter.email: {dist: uniform, type: string, values: [new4@x], n: 1}}",
			)
			if err != nil {
				t.Fatal(err)
			}
			r, err := NewReplay(f, "w.yaml", ReplayOptions{Database: "ps_copy_foreign"})
			if err != nil {
				t.Fatal(err)
			}
			w := Workload{Replay: r}
			if lr, err := Prepare(ctx, c, w, PrepareOptions{}); err != nil || !lr.Loaded {
				t.Fatalf("first build: %+v %v", lr, err)
			}
			cp := r.copies[0]
			copyColl := other.Database(cp.db).Collection(cp.coll)
			if _, err := copyColl.InsertMany(ctx, copyForeignDocs); err != nil {
				t.Fatal(err)
			}
			newClient := func() *options.ClientOptions { return options.Client().ApplyURI(uri) }
			theirs := func() int64 {
				t.Helper()
				n, err := count(other, cp.db, cp.coll, bson.D{{Key: "name", Value: "theirs"}})
				if err != nil {
					t.Fatal(err)
				}
				return n
			}
			refused := func(when string, foreign, total int64) {
				t.Helper()
				for _, o := range []PrepareOptions{{}, {Drop: true}} {
					lr, err := Prepare(ctx, c, w, o)
					var fe *ForeignError
					if !errors.As(err, &fe) || !errors.Is(err, ErrNotOurs) || fe.Foreign != foreign || (total > 0 && fe.Total != total) {
						t.Errorf("%s, %+v: Prepare returned %+v, %v; want a ForeignError of %d documents", when, o, lr, err, foreign)
					}
				}
				var fe *ForeignError
				if err := CheckData(ctx, newClient, w, false); !errors.As(err, &fe) {
					t.Errorf("%s: CheckData returned %v; want a ForeignError", when, err)
				}
				if n := theirs(); n != 5 {
					t.Fatalf("%s: %d of their 5 documents are left", when, n)
				}
			}
			refused("their documents in the copy", 5, 205)

			// The replay run anyway: its delete {} deletes poolsweep's
			// documents only; its upserts, replacement and inserts write
			// documents that stay poolsweep's.
			conn := r.Conn(c)
			rng := rand.New(rand.NewPCG(5, 6))
			for i := range r.shapes {
				for range 3 {
					if err := conn.Exec(ctx, i, rng); err != nil {
						t.Fatalf("shape %d: %v", i, err)
					}
				}
			}
			if n, err := count(other, cp.db, cp.coll, nil); err != nil || n <= 5 {
				t.Fatalf("after the replay the copy holds %d documents (%v): the upserts and inserts wrote nothing", n, err)
			}
			for _, q := range []bson.D{
				{{Key: "email", Value: "new4@x"}, {Key: copyOwnField, Value: true}},    // findAndModify's upsert
				{{Key: "status", Value: "replaced"}, {Key: copyOwnField, Value: true}}, // the replacement of update's upsert
			} {
				if n, err := count(other, cp.db, cp.coll, q); err != nil || n != 1 {
					t.Errorf("after the replay, %d documents match %v (%v); want the replay's one", n, q, err)
				}
			}
			refused("after the replay", 5, 0)

			// --drop-foreign: dropped with the copy, which is built anew.
			if err := CheckData(ctx, newClient, w, true); err != nil {
				t.Errorf("CheckData with dropForeign: %v", err)
			}
			if lr, err := Prepare(ctx, c, w, PrepareOptions{DropForeign: true}); err != nil || !lr.Loaded {
				t.Fatalf("--drop-foreign: %+v %v; want a rebuild", lr, err)
			}
			if n := theirs(); n != 0 {
				t.Errorf("%d of their documents are still there after --drop-foreign", n)
			}
			if n, err := count(other, cp.db, cp.coll, nil); err != nil || n != 200 {
				t.Errorf("the rebuilt copy holds %d documents (%v), want the 200 sampled", n, err)
			}
			if lr, err := Prepare(ctx, c, w, PrepareOptions{}); err != nil || !lr.Reused {
				t.Errorf("after --drop-foreign: %+v %v; want a reuse", lr, err)
			}

			// Collections of the copy's name that poolsweep did not create.
			for _, tc := range []struct {
				db   string
				docs bool
			}{{"ps_copy_theirs_empty", false}, {"ps_copy_theirs_full", true}} {
				r2, err := NewReplay(f, "w.yaml", ReplayOptions{Database: tc.db})
				if err != nil {
					t.Fatal(err)
				}
				w2 := Workload{Replay: r2}
				coll := other.Database(tc.db).Collection(cp.coll)
				if err := other.Database(tc.db).CreateCollection(ctx, cp.coll); err != nil {
					t.Fatal(err)
				}
				if tc.docs {
					if _, err := coll.InsertMany(ctx, copyForeignDocs); err != nil {
						t.Fatal(err)
					}
				}
				for _, o := range []PrepareOptions{{}, {Drop: true}, {DropForeign: tc.docs}} {
					if lr, err := Prepare(ctx, c, w2, o); !errors.Is(err, ErrNotOurs) || lr.Loaded {
						t.Errorf("%s, %+v: %+v, %v; want ErrNotOurs", tc.db, o, lr, err)
					}
				}
				if err := CheckData(ctx, newClient, w2, false); !errors.Is(err, ErrNotOurs) {
					t.Errorf("%s: CheckData: %v; want ErrNotOurs", tc.db, err)
				}
				names, err := other.Database(tc.db).ListCollectionNames(ctx, bson.D{})
				if n, _ := count(other, tc.db, cp.coll, nil); err != nil || len(names) != 1 || (tc.docs && n != 5) {
					t.Errorf("%s after the refusals: collections %v, %d documents (%v)", tc.db, names, n, err)
				}
				if !tc.docs {
					if lr, err := Prepare(ctx, c, w2, PrepareOptions{DropForeign: true}); err != nil || !lr.Loaded {
						t.Errorf("%s, --drop-foreign: %+v %v; want a build", tc.db, lr, err)
					}
				}
			}

			// A record under the copy's name that is not a replay copy's.
			r3, err := NewReplay(f, "w.yaml", ReplayOptions{Database: "ps_copy_record"})
			if err != nil {
				t.Fatal(err)
			}
			meta := other.Database("ps_copy_record").Collection(MetaCollection)
			if _, err := meta.InsertOne(ctx, bson.D{{Key: "_id", Value: cp.coll}, {Key: "tool", Value: metaTool}, {Key: "records", Value: 20}}); err != nil {
				t.Fatal(err)
			}
			if _, err := Prepare(ctx, c, Workload{Replay: r3}, PrepareOptions{Drop: true, DropForeign: true}); !errors.Is(err, ErrNotOurs) {
				t.Errorf("a load's record under the copy's name: %v; want ErrNotOurs", err)
			}
		})
	}
}
