package realclients_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// What mongostat and mongotop need beyond serverStatus's basic shape:
// storageEngine, config.shards through a router and top,
// which topology/sim answers (storage.go, reads.go, top.go).

// TestMongostatStorageEngine: mongostat picks its columns from
// serverStatus.storageEngine.name; without it it takes a mongod for
// MMAPv1 and prints mapped and faults instead of WiredTiger's dirty and
// used. Real mongods name wiredTiger (the 3.6.20, 4.2.8 and 5.0.0
// captures in testdata/servers); a mongos reports no storageEngine.
func TestMongostatStorageEngine(t *testing.T) {
	t.Parallel()
	for _, spec := range toolTopologies {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			srv := testsrv.SimChild(t, spec)
			for _, host := range servers(t, srv.URI) {
				c := direct(t, host)
				var st struct {
					StorageEngine *struct {
						Name string `bson:"name"`
					} `bson:"storageEngine"`
				}
				if err := c.Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
					t.Fatal(err)
				}
				router := isRouter(t, c)
				if got := st.StorageEngine != nil && st.StorageEngine.Name == "wiredTiger"; got == router {
					t.Errorf("%s (router %v): storageEngine %+v; a mongod names wiredTiger, a mongos reports none", host, router, st.StorageEngine)
				}
			}
		})
	}
}

// TestMongostatDiscoversShards: mongostat --discover on a mongos finds the
// shards in config.shards ({_id, host: "set/h1,h2"}), as on a real
// cluster; an empty answer leaves it watching the router alone.
func TestMongostatDiscoversShards(t *testing.T) {
	t.Parallel()
	srv := testsrv.SimChild(t, "shards=2,service=0s")
	c := testsrv.Connect(t, srv.URI)
	ctx := context.Background()
	var ls struct {
		Shards []struct {
			ID   string `bson:"_id"`
			Host string `bson:"host"`
		} `bson:"shards"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "listShards", Value: 1}}).Decode(&ls); err != nil {
		t.Fatal(err)
	}
	cur, err := c.Database("config").Collection("shards").Find(ctx, bson.D{})
	if err != nil {
		t.Fatalf("config.shards: %v", err)
	}
	var docs []struct {
		ID   string `bson:"_id"`
		Host string `bson:"host"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(ls.Shards) || len(docs) != 2 {
		t.Fatalf("config.shards has %d documents, listShards %d shards: want one per shard", len(docs), len(ls.Shards))
	}
	for i, d := range docs {
		if d.ID != ls.Shards[i].ID || d.Host != ls.Shards[i].Host {
			t.Errorf("config.shards %+v, listShards %+v", d, ls.Shards[i])
		}
	}
}

// topForMongotop is one namespace of the top command as mongotop's
// NSTopInfo decodes it.
type topForMongotop struct {
	Total topField `bson:"total"`
	Read  topField `bson:"readLock"`
	Write topField `bson:"writeLock"`
}

type topField struct {
	Time  int `bson:"time"`
	Count int `bson:"count"`
}

// TestMongotopTop: mongotop runs top on a mongod (it refuses a mongos
// itself, from hello) and decodes totals: a note, and per namespace
// total, readLock and writeLock, each {time µs, count}. A find and an
// update on test.user must show there.
func TestMongotopTop(t *testing.T) {
	t.Parallel()
	for _, spec := range []string{"service=0s", "rs=3,service=0s"} {
		t.Run(spec, func(t *testing.T) {
			t.Parallel()
			srv := testsrv.SimChild(t, spec)
			ctx := context.Background()
			coll := testsrv.Connect(t, srv.URI).Database("test").Collection("user")
			if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "u1"}, {Key: "password", Value: "abcd"}}); err != nil {
				t.Fatal(err)
			}
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "u1"}}).Err(); err != nil {
				t.Fatal(err)
			}
			c := direct(t, servers(t, srv.URI)[0])
			raw, err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "top", Value: 1}}).Raw()
			if err != nil {
				t.Fatalf("top: %v", err)
			}
			totals, ok := raw.Lookup("totals").DocumentOK()
			if !ok {
				t.Fatalf("top has no totals document: %v", raw)
			}
			elems, _ := totals.Elements()
			seen := false
			for _, e := range elems {
				if e.Key() == "note" {
					continue
				}
				var ns topForMongotop
				if err := bson.Unmarshal(e.Value().Document(), &ns); err != nil {
					t.Errorf("top %s: decoding as mongotop does: %v", e.Key(), err)
				}
				if e.Key() == "test.user" {
					seen = ns.Total.Count >= 2 && ns.Read.Count >= 1 && ns.Write.Count >= 1
				}
			}
			if !seen {
				t.Errorf("top does not count the insert and find on test.user: %v", totals)
			}
		})
	}
}

func isRouter(t *testing.T, c *mongo.Client) bool {
	t.Helper()
	hello, err := c.Database("admin").RunCommand(context.Background(), bson.D{{Key: "isMaster", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := hello.Lookup("msg").StringValueOK()
	return msg == "isdbgrid"
}
