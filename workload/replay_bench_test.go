package workload

import (
	"context"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// The replay's hot path against the find-by-_id loop a worker runs, on
// one simulator with no service time: the same find by _id, the first
// sent as a replayed shape (Instantiate, then RunCommandCursor), the
// second as the worker sends it (OpArgs, FindOne). Compare ns/op and
// allocs/op: the replay's extra is its command document.
//
//	go test ./workload/ -run '^$' -bench 'ByID' -benchmem

func benchSetup(b *testing.B) (*ReplayConn, *OpArgs, func() error) {
	d := testsrv.Sim(b, "slots=64,service=0s")
	c := testsrv.Connect(b, d.URI())
	coll := c.Database("app").Collection("users")
	docs := make([]any, 100)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: Key(int64(i))}, {Key: "f", Value: "x"}}
	}
	if _, err := coll.InsertMany(context.Background(), docs); err != nil {
		b.Fatal(err)
	}
	vals := make([]any, 100)
	for i := range vals {
		vals[i] = Key(int64(i))
	}
	f := &shapes.File{Kind: shapes.Kind, Version: shapes.Version, Source: shapes.Source{Format: shapes.FormatMongodLog}, Shapes: []shapes.Shape{{
		ID: "byid", Database: "app", Collection: "users", Command: shapes.CmdFind, Share: 1, Count: 1,
		Filter: bson.D{{Key: "_id", Value: "?string"}},
		Values: map[string]shapes.Distribution{"filter._id": {Dist: shapes.DistUniform, Type: "string", Values: vals, N: 100}},
	}}}
	if err := f.Validate(); err != nil {
		b.Fatal(err)
	}
	r, err := NewReplay(f, "bench", ReplayOptions{})
	if err != nil {
		b.Fatal(err)
	}
	args := NewOpArgs()
	return r.Conn(c), args, func() error { return coll.FindOne(context.Background(), args.ByID).Err() }
}

func BenchmarkReplayByID(b *testing.B) {
	conn, _, _ := benchSetup(b)
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if err := conn.Exec(ctx, 0, rng); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFindByID(b *testing.B) {
	_, args, find := benchSetup(b)
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	for b.Loop() {
		args.SetKey(rng.Int64N(100))
		if err := find(); err != nil {
			b.Fatal(err)
		}
	}
}
