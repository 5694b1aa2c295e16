package sim

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// loadShapes fills db.c with n documents {_id: i, g: i%5} through the driver.
func loadShapes(t *testing.T, coll *mongo.Collection, n int) {
	t.Helper()
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "g", Value: int32(i % 5)}}
	}
	if _, err := coll.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
}

// TestShapesThroughDriver sends every command a replayed workload sends
// through the real driver and checks the replies' shapes and what the
// simulator evaluates; predicates it does not evaluate match nothing.
func TestShapesThroughDriver(t *testing.T) {
	d := startSim(t, "service=0s")
	ctx := t.Context()
	coll := connect(t, d.URI(), 4).Database("app").Collection("c")
	loadShapes(t, coll, 50)

	var got []bson.M
	cur, err := coll.Find(ctx, bson.D{{Key: "g", Value: bson.D{{Key: "$gte", Value: 2}}}}, options.Find().SetSort(bson.D{{Key: "g", Value: -1}}).SetLimit(5))
	if err != nil || cur.All(ctx, &got) != nil || len(got) != 0 {
		t.Fatalf("find with an opaque filter and a sort: %v %v, want no documents", err, got)
	}
	cur, err = coll.Find(ctx, bson.D{{Key: "g", Value: int32(3)}}, options.Find().SetSort(bson.D{{Key: "x", Value: 1}}))
	if err != nil || cur.All(ctx, &got) != nil || len(got) != 10 {
		t.Fatalf("find by equality with another field's sort: %v, %d documents, want 10", err, len(got))
	}
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "g", Value: int32(3)}})
	if err != nil || n != 10 {
		t.Fatalf("countDocuments (aggregate $match, $group): %d %v, want 10", n, err)
	}
	cur, err = coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$sample", Value: bson.D{{Key: "size", Value: 7}}}}})
	if err != nil || cur.All(ctx, &got) != nil || len(got) != 7 {
		t.Fatalf("$sample 7: %v, %d documents", err, len(got))
	}
	cur, err = coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}}}}})
	if err != nil || cur.All(ctx, &got) != nil || len(got) != 0 {
		t.Fatalf("$group by a field is not computed: %v, %v", err, got)
	}
	var values []int32
	if err := coll.Distinct(ctx, "g", bson.D{}).Decode(&values); err != nil || len(values) != 5 {
		t.Fatalf("distinct g: %v %v", values, err)
	}
	um, err := coll.UpdateMany(ctx, bson.D{{Key: "g", Value: int32(1)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: "x"}}}})
	if err != nil || um.MatchedCount != 10 || um.ModifiedCount != 10 {
		t.Fatalf("updateMany: %+v %v", um, err)
	}
	up, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(1)}}, bson.D{{Key: "$push", Value: bson.D{{Key: "a", Value: 1}}}})
	if err != nil || up.MatchedCount != 1 || up.ModifiedCount != 0 {
		t.Fatalf("updateOne $push (accepted, not applied): %+v %v", up, err)
	}
	var after bson.M
	err = coll.FindOneAndUpdate(ctx, bson.D{{Key: "_id", Value: int32(3)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "g", Value: int32(10)}}}},
		options.FindOneAndUpdate().SetReturnDocument(options.After)).Decode(&after)
	if err != nil || after["g"] != int32(13) {
		t.Fatalf("findOneAndUpdate: %v %v", after, err)
	}
	var removed bson.M
	if err := coll.FindOneAndDelete(ctx, bson.D{{Key: "g", Value: int32(4)}}).Decode(&removed); err != nil || removed["_id"] != int32(4) {
		t.Fatalf("findOneAndDelete: %v %v", removed, err)
	}
	if err := coll.FindOneAndDelete(ctx, bson.D{{Key: "g", Value: bson.D{{Key: "$in", Value: bson.A{1}}}}}).Err(); err != mongo.ErrNoDocuments {
		t.Fatalf("findOneAndDelete with an opaque filter: %v, want no document", err)
	}
	del, err := coll.DeleteMany(ctx, bson.D{{Key: "$or", Value: bson.A{bson.D{{Key: "g", Value: 1}}}}})
	if err != nil || del.DeletedCount != 0 {
		t.Fatalf("deleteMany with an opaque filter: %+v %v, want 0", del, err)
	}
	if n, err := coll.EstimatedDocumentCount(ctx); err != nil || n != 49 {
		t.Fatalf("estimatedDocumentCount: %d %v, want 49", n, err)
	}
}

// TestShapeClassCosts checks each class's slot time against the spec, in
// model time (the slot pool's booked hold), so the host's load cannot
// blur it: point 1ms, scan 3ms, aggregate 5ms, write 2ms, plus 10us per
// document examined.
func TestShapeClassCosts(t *testing.T) {
	d := startSim(t, "slots=4,service=1ms,scan_service=3ms,agg_service=5ms,write_service=2ms,examined_cost=10us")
	ctx := t.Context()
	coll := connect(t, d.URI(), 4).Database("app").Collection("c")
	loadShapes(t, coll, 50)
	sh := d.shards[0]
	const us = time.Microsecond
	tests := []struct {
		name  string
		write bool
		run   func() error
		want  time.Duration
	}{
		{"point read: service + 1 examined", false, func() error { return coll.FindOne(ctx, bson.D{{Key: "_id", Value: int32(7)}}).Err() }, 1010 * us},
		{"scan by another field: scan_service + the collection", false, func() error {
			_, err := coll.Find(ctx, bson.D{{Key: "g", Value: int32(2)}})
			return err
		}, 3500 * us},
		{"_id range: scan_service + the range", false, func() error {
			_, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: int32(10)}, {Key: "$lt", Value: int32(20)}}}})
			return err
		}, 3100 * us},
		{"a limit above 1 by _id is a scan", false, func() error {
			_, err := coll.Find(ctx, bson.D{{Key: "_id", Value: int32(3)}}, options.Find().SetLimit(5))
			return err
		}, 3010 * us},
		{"aggregate: agg_service + the collection", false, func() error {
			_, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$group", Value: bson.D{{Key: "_id", Value: "$g"}}}}})
			return err
		}, 5500 * us},
		{"update by _id: write_service + 1", true, func() error {
			_, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: int32(7)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "x", Value: 1}}}})
			return err
		}, 2010 * us},
		{"insert: write_service", true, func() error {
			_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(900)}})
			return err
		}, 2000 * us},
		{"findAndModify by another field: write_service + the collection", true, func() error {
			return coll.FindOneAndUpdate(ctx, bson.D{{Key: "g", Value: int32(2)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}).Err()
		}, 2510 * us},
	}
	for _, tt := range tests {
		pool := sh.reads
		if tt.write {
			pool = sh.writes
		}
		before := pool.snapshot()
		if err := tt.run(); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		after := pool.snapshot()
		if ops, hold := after.Acquired-before.Acquired, after.HoldTotal-before.HoldTotal; ops != 1 || hold != tt.want {
			t.Errorf("%s: %d ops holding %v, want 1 holding %v", tt.name, ops, hold, tt.want)
		}
	}
}

// TestSpecShapeKeys: the class keys parse, print back, default to service,
// and leave a spec without them printing as before.
func TestSpecShapeKeys(t *testing.T) {
	s, err := ParseSpec("service=2ms,scan_service=7ms,examined_cost=5us")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != "slots=8,service=2ms,scan_service=7ms,examined_cost=5us,conn_cost=0s,jitter=0" {
		t.Errorf("String() = %s", got)
	}
	if s.classService(classScan) != 7*time.Millisecond || s.classService(classWrite) != 2*time.Millisecond || s.classService(classAggregate) != 2*time.Millisecond {
		t.Errorf("class services: %+v", s)
	}
	if got := DefaultSpec().String(); got != "slots=8,service=2ms,conn_cost=0s,jitter=0" {
		t.Errorf("default spec prints %s", got)
	}
	if _, err := ParseSpec("agg_service=11s"); err == nil {
		t.Error("agg_service=11s accepted")
	}
}

// TestShapesSharded: on routers in front of shards, a findAndModify
// without an _id tries the shards in turn and upserts on the new _id's
// shard; aggregate and distinct gather every shard's documents.
func TestShapesSharded(t *testing.T) {
	d := startSim(t, "shards=2,service=0s,router_cost=0s")
	ctx := t.Context()
	coll := connect(t, d.URI(), 4).Database("app").Collection("c")
	loadShapes(t, coll, 50)
	var got bson.M
	err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "g", Value: int32(99)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: "new"}}}},
		options.FindOneAndUpdate().SetUpsert(true).SetReturnDocument(options.After)).Decode(&got)
	if err != nil || got["g"] != int32(99) || got["s"] != "new" {
		t.Fatalf("upsert through findAndModify: %v %v", got, err)
	}
	if err := coll.FindOneAndUpdate(ctx, bson.D{{Key: "g", Value: int32(2)}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}).Decode(&got); err != nil || got["g"] != int32(2) {
		t.Fatalf("findAndModify over the shards: %v %v", got, err)
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 51 {
		t.Fatalf("countDocuments over the shards: %d %v, want 51", n, err)
	}
	var values []int32
	if err := coll.Distinct(ctx, "g", bson.D{}).Decode(&values); err != nil || len(values) != 6 {
		t.Fatalf("distinct over the shards: %v %v", values, err)
	}
}
