package workload

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// readReplayFile reads testdata/replay.yaml, the tests' workload file:
// eight shapes on app.users, one of each command.
func readReplayFile(t testing.TB) *shapes.File {
	t.Helper()
	f, err := shapes.Read("testdata/replay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestAliasShares: the alias table draws each shape in its share (400,000
// draws: a share is off by more than 0.5 points with odds far below 1e-9).
func TestAliasShares(t *testing.T) {
	for _, w := range [][]float64{{0.4, 0.2, 0.1, 0.05, 0.15, 0.05, 0.03, 0.02}, {1}, {0.5, 0, 0.5}, {0.001, 0.999}} {
		a := newAlias(w)
		r := rand.New(rand.NewPCG(1, 2))
		got := make([]float64, len(w))
		const n = 400_000
		for range n {
			got[a.draw(r)]++
		}
		for i := range w {
			if math.Abs(got[i]/n-w[i]) > 0.005 {
				t.Errorf("weights %v: shape %d drawn %.4f of the time, want %.4f", w, i, got[i]/n, w[i])
			}
		}
	}
}

// TestNewReplayRoutes: reads run against the user's namespace (or the
// remapped one), writes against poolsweep's copy; a pipeline that writes
// is refused.
func TestNewReplayRoutes(t *testing.T) {
	f := readReplayFile(t)
	r, err := NewReplay(f, "replay.yaml", ReplayOptions{Remap: map[string]string{"app": "staging"}})
	if err != nil {
		t.Fatal(err)
	}
	info := r.Info()
	for _, s := range info.Shapes {
		want := "staging.users"
		if s.Class == shapes.ClassWrite {
			want = "poolsweep.replay.app.users"
		}
		if s.RanOn != want || s.Namespace != "app.users" || s.OpType != results.ShapeOpType(s.Command, s.ID) {
			t.Errorf("shape %s (%s): ran on %s as %s, want %s", s.ID, s.Command, s.RanOn, s.OpType, want)
		}
	}
	if len(r.copies) != 1 || info.Sample != DefaultReplaySample {
		t.Errorf("%d copies, sample %d", len(r.copies), info.Sample)
	}
	out := *f
	out.Shapes = append([]shapes.Shape(nil), f.Shapes...)
	out.Shapes[2].Pipeline = append(out.Shapes[2].Pipeline, bson.D{{Key: "$out", Value: "x"}})
	if _, err := NewReplay(&out, "replay.yaml", ReplayOptions{}); err == nil {
		t.Error("a pipeline with $out was accepted")
	}
	if _, err := NewReplay(f, "replay.yaml", ReplayOptions{Sample: MaxReplaySample + 1}); err == nil {
		t.Error("a sample above the bound was accepted")
	}
}

// makeUsers creates db.users: 200 documents {_id, email, age, status}
// and an index on email, as a user's collection.
func makeUsers(t testing.TB, c *mongo.Client, db string) *mongo.Collection {
	t.Helper()
	ctx := context.Background()
	coll := c.Database(db).Collection("users")
	docs := make([]any, 200)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "email", Value: fmt.Sprintf("u%d@x", i)},
			{Key: "age", Value: int32(18 + i%63)}, {Key: "status", Value: []string{"a", "b"}[i%2]}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "email", Value: 1}}, Options: options.Index().SetName("email_1")}); err != nil {
		t.Fatal(err)
	}
	return coll
}

// fingerprint is a collection's count and a hash of its documents in _id
// order, byte for byte.
func fingerprint(t testing.TB, coll *mongo.Collection) (int, [32]byte) {
	t.Helper()
	ctx := context.Background()
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	n := 0
	for cur.Next(ctx) {
		h.Write(cur.Current)
		n++
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return n, sum
}

// TestReplayFerretDB runs every shape of the file for real, over real
// data in embedded FerretDB (and on the simulator, standalone, replica set
// and sharded, which answers every shape with a real reply's shape): the user's collection (in a database of its
// own) is byte for byte what it was, the writes went to poolsweep's copy
// (with the user's index), a second Prepare reuses the copy, --drop
// rebuilds it, and a collection of the copy's name that poolsweep did not
// make is refused and left alone.
func TestReplayFerretDB(t *testing.T) {
	t.Parallel()
	for name, start := range foreignServers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			replayOn(t, start(t))
		})
	}
}

// replayOn is TestReplayFerretDB on the server at uri.
func replayOn(t *testing.T, uri string) {
	c := testsrv.Connect(t, uri)
	ctx := context.Background()
	users := makeUsers(t, c, "app")
	n0, sum0 := fingerprint(t, users)

	r, err := NewReplay(readReplayFile(t), "replay.yaml", ReplayOptions{Database: "ps_replay"})
	if err != nil {
		t.Fatal(err)
	}
	lr, err := Prepare(ctx, c, Workload{Replay: r}, PrepareOptions{})
	if err != nil || !lr.Loaded {
		t.Fatalf("prepare: %+v %v", lr, err)
	}
	copyColl := c.Database("ps_replay").Collection("replay.app.users")
	if n, _ := copyColl.CountDocuments(ctx, bson.D{}); n != 200 {
		t.Fatalf("the copy holds %d documents, want the 200 sampled", n)
	}
	names, err := copyColl.Indexes().ListSpecifications(ctx)
	if err != nil || len(names) != 2 || names[1].Name != "email_1" {
		t.Fatalf("the copy's indexes: %v %v", names, err)
	}
	_, copySum := fingerprint(t, copyColl)

	// Placeholders without a distribution are drawn from the samples: a
	// read's from the user's collection, a write's from the copy.
	for _, tt := range []struct {
		shape, path, typ string
		want             func(any) bool
	}{
		{"countstatus", "filter.status", "string", func(v any) bool { s, _ := v.(bson.RawValue).StringValueOK(); return s == "a" || s == "b" }},
		{"bystatus", "pipeline.0.$match.status", "string", func(v any) bool { return v != nil }},
		{"byage", "filter.age.$gte", "number", func(v any) bool { n, ok := v.(bson.RawValue).AsInt64OK(); return ok && n >= 18 && n <= 80 }},
		{"byage", "filter.age.$gte", "string", func(v any) bool { return v == nil }}, // a field of another type
		{"dropuser", "filter.email", "string", func(v any) bool { s, _ := v.(bson.RawValue).StringValueOK(); return len(s) > 3 && s[0] == 'u' }},
		{"byemail", "filter.nosuchfield.$eq", "string", func(v any) bool { return v == nil }},
	} {
		for _, s := range r.shapes {
			if s.shape.ID == tt.shape {
				if v := s.draw(tt.path, tt.typ); !tt.want(v) {
					t.Errorf("shape %s: %s (%s) drew %v", tt.shape, tt.path, tt.typ, v)
				}
			}
		}
	}

	conn := r.Conn(c)
	rng := rand.New(rand.NewPCG(3, 4))
	ran := make([]int, len(r.shapes))
	for range 400 {
		i := r.Pick(rng)
		if err := conn.Exec(ctx, i, rng); err != nil {
			t.Fatalf("shape %s: %v", r.shapes[i].shape.ID, err)
		}
		ran[i]++
	}
	for i, n := range ran {
		if n == 0 {
			t.Errorf("shape %s never ran in 400 calls", r.shapes[i].shape.ID)
		}
	}
	if n, sum := fingerprint(t, users); n != n0 || sum != sum0 {
		t.Fatalf("the user's collection changed: %d documents (was %d), hash changed %v", n, n0, sum != sum0)
	}
	if _, sum := fingerprint(t, copyColl); sum == copySum {
		t.Error("the copy is unchanged: the writes went nowhere")
	}

	if lr, err := Prepare(ctx, c, Workload{Replay: r}, PrepareOptions{}); err != nil || !lr.Reused {
		t.Fatalf("second prepare should reuse the copy: %+v %v", lr, err)
	}
	if lr, err := Prepare(ctx, c, Workload{Replay: r}, PrepareOptions{Drop: true}); err != nil || !lr.Loaded {
		t.Fatalf("--drop should rebuild the copy: %+v %v", lr, err)
	}
	if _, sum := fingerprint(t, copyColl); sum != copySum {
		t.Error("the rebuilt copy is not the sample again")
	}

	// A collection of the copy's name that poolsweep did not make.
	theirs := c.Database("ps_theirs").Collection("replay.app.users")
	if _, err := theirs.InsertOne(ctx, bson.D{{Key: "_id", Value: "precious"}}); err != nil {
		t.Fatal(err)
	}
	r2, err := NewReplay(readReplayFile(t), "replay.yaml", ReplayOptions{Database: "ps_theirs"})
	if err != nil {
		t.Fatal(err)
	}
	for _, drop := range []bool{false, true} {
		if _, err := Prepare(ctx, c, Workload{Replay: r2}, PrepareOptions{Drop: drop}); !errors.Is(err, ErrNotOurs) {
			t.Fatalf("drop=%v: want ErrNotOurs, got %v", drop, err)
		}
	}
	if err := CheckData(ctx, func() *options.ClientOptions { return options.Client().ApplyURI(uri) }, Workload{Replay: r2}, false); !errors.Is(err, ErrNotOurs) {
		t.Fatalf("CheckData: want ErrNotOurs, got %v", err)
	}
	if n, _ := theirs.CountDocuments(ctx, bson.D{}); n != 1 {
		t.Fatalf("their collection was changed: %d documents", n)
	}
}
