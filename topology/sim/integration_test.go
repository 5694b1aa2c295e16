package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

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
