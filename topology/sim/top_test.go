package sim

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// topEntry reads one namespace's entry of a top reply as {time, count},
// failing unless both are int32 or int64 (appendNumber's types).
func topEntry(t *testing.T, top bson.Raw, ns, entry string) (time, count int64) {
	t.Helper()
	v, err := top.LookupErr("totals", ns, entry)
	if err != nil {
		t.Fatalf("top has no %s.%s: %v", ns, entry, top)
	}
	get := func(key string) int64 {
		x := v.Document().Lookup(key)
		if x.Type != bson.TypeInt32 && x.Type != bson.TypeInt64 {
			t.Fatalf("%s.%s.%s is %s, want an integer", ns, entry, key, x.Type)
		}
		n, _ := x.AsInt64OK()
		return n
	}
	return get("time"), get("count")
}

// TestTopBooksServedOps runs known operations on a standalone whose every
// data op takes 2 ms of service, and holds top to them: one query per
// find, one getmore per getMore, one insert per insert command, one
// update or remove per statement, a count among the commands; reads under
// readLock, writes under writeLock, total their sum; every operation's time
// at least its service time (ground truth: the simulator books the slot's
// 2 ms before it answers).
func TestTopBooksServedOps(t *testing.T) {
	f := frontendFor(t, "service=2ms")
	var docs []bson.D
	for i := range 5 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}})
	}
	wantOK(t, runCmd(t, f, "test", bson.D{{Key: "insert", Value: "user"}}, map[string][]bson.D{"documents": docs}))
	find := runCmd(t, f, "test", bson.D{{Key: "find", Value: "user"}, {Key: "batchSize", Value: 2}}, nil)
	wantOK(t, find)
	id := find.Lookup("cursor", "id").Int64()
	wantOK(t, runCmd(t, f, "test", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "user"}}, nil))
	wantOK(t, runCmd(t, f, "test", bson.D{{Key: "update", Value: "user"}}, map[string][]bson.D{"updates": {
		{{Key: "q", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}}},
		{{Key: "q", Value: bson.D{{Key: "_id", Value: int32(2)}}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}}},
	}}))
	wantOK(t, runCmd(t, f, "test", bson.D{{Key: "delete", Value: "user"}}, map[string][]bson.D{"deletes": {
		{{Key: "q", Value: bson.D{{Key: "_id", Value: int32(3)}}}, {Key: "limit", Value: int32(1)}},
	}}))
	wantOK(t, runCmd(t, f, "test", bson.D{{Key: "count", Value: "user"}}, nil))
	wantOK(t, runCmd(t, f, "other", bson.D{{Key: "find", Value: "c"}}, nil))

	top := runCmd(t, f, "admin", bson.D{{Key: "top", Value: 1}}, nil)
	wantOK(t, top)
	totals, _ := top.Lookup("totals").Document().Elements()
	if len(totals) != 3 || totals[0].Key() != "note" || totals[0].Value().StringValue() != "all times in microseconds" ||
		totals[1].Key() != "other.c" || totals[2].Key() != "test.user" {
		t.Fatalf("totals: the note, then the namespaces in name order: %v", top)
	}
	ns, _ := totals[2].Value().Document().Elements()
	for i, e := range ns {
		if e.Key() != topEntries[i] {
			t.Fatalf("entry %d is %s, want %s", i, e.Key(), topEntries[i])
		}
	}
	want := map[string]int64{"total": 7, "readLock": 3, "writeLock": 4, "queries": 1, "getmore": 1, "insert": 1, "update": 2, "remove": 1, "commands": 1}
	times := map[string]int64{}
	for entry, n := range want {
		us, count := topEntry(t, top, "test.user", entry)
		times[entry] = us
		if count != n {
			t.Errorf("%s count %d, want %d", entry, count, n)
		}
		// Each operation booked took at least one 2-ms data op (update's
		// two statements one each), less what the sleeper takes off for
		// the wake-up lateness it has learnt (capacity.go): that estimate
		// follows a busy host's lateness, so on a quieter moment one op
		// can end that much early (CI read 1994 and 1974 µs for one 2-ms
		// command); the mean over many ops is what holds the service time.
		slack := maxOvershootSample / 1000 // ns to µs
		if floor := (2000 - slack) * n; us < floor {
			t.Errorf("%s time %d µs, want at least %d (the service times booked, less the sleeper's largest lateness correction)", entry, us, floor)
		}
	}
	if times["total"] != times["readLock"]+times["writeLock"] {
		t.Errorf("total %d µs, readLock %d + writeLock %d", times["total"], times["readLock"], times["writeLock"])
	}
	if times["readLock"] != times["queries"]+times["getmore"]+times["commands"] {
		t.Errorf("readLock %d µs: queries %d + getmore %d + commands %d", times["readLock"], times["queries"], times["getmore"], times["commands"])
	}
	if _, n := topEntry(t, top, "other.c", "queries"); n != 1 {
		t.Errorf("other.c queries %d, want 1", n)
	}
}

// TestTopWhereServed: a router has no top (CommandNotFound, as a real
// mongos); a shard's own server books the ops its routers send it, one per
// shard a scattered find reaches; top is refused outside admin.
func TestTopWhereServed(t *testing.T) {
	d := startSim(t, "shards=2,service=0s")
	router := d.fronts[0]
	wantCode(t, runCmd(t, router, "admin", bson.D{{Key: "top", Value: 1}}, nil), 59, "CommandNotFound")
	if msg := runCmd(t, router, "admin", bson.D{{Key: "top", Value: 1}}, nil).Lookup("errmsg").StringValue(); msg != "no such command: 'top'" {
		t.Errorf("router's top errmsg %q", msg)
	}
	var docs []bson.D
	for i := range 8 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}})
	}
	wantOK(t, runCmd(t, router, "test", bson.D{{Key: "insert", Value: "user"}}, map[string][]bson.D{"documents": docs}))
	wantOK(t, runCmd(t, router, "test", bson.D{{Key: "find", Value: "user"}}, nil))
	for i, sf := range d.shardFronts {
		top := runCmd(t, sf, "admin", bson.D{{Key: "top", Value: 1}}, nil)
		wantOK(t, top)
		if _, n := topEntry(t, top, "test.user", "queries"); n != 1 {
			t.Errorf("shard %d: queries %d, want 1 (the scattered find)", i, n)
		}
		if _, n := topEntry(t, top, "test.user", "insert"); n != 1 {
			t.Errorf("shard %d: insert %d, want 1 (the insert command's share of this shard)", i, n)
		}
	}
	wantCode(t, runCmd(t, frontendFor(t, "service=0s"), "test", bson.D{{Key: "top", Value: 1}}, nil), 13, "Unauthorized")
}

func TestAppendNumber(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want any
	}{
		{0, int32(0)},
		{math.MaxInt32, int32(math.MaxInt32)},
		{math.MaxInt32 + 1, int64(math.MaxInt32 + 1)},
		{math.MinInt32, int32(math.MinInt32)},
		{math.MinInt32 - 1, int64(math.MinInt32 - 1)},
	} {
		if got := appendNumber(tt.n); got != tt.want {
			t.Errorf("appendNumber(%d) = %T %v, want %T %v", tt.n, got, got, tt.want, tt.want)
		}
	}
}

// TestConfigShards: a router's find on config.shards answers listShards'
// documents, one per shard, with the filter applied (mongostat --discover
// reads them); a standalone has no such collection and finds nothing.
func TestConfigShards(t *testing.T) {
	for _, v := range []string{"4.4", "8.0"} {
		router := frontendFor(t, "shards=3,service=0s,version="+v)
		ls := runCmd(t, router, "admin", bson.D{{Key: "listShards", Value: 1}}, nil)
		want, _ := ls.Lookup("shards").Array().Values()
		got := runCmd(t, router, "config", bson.D{{Key: "find", Value: "shards"}}, nil)
		wantOK(t, got)
		docs, _ := got.Lookup("cursor", "firstBatch").Array().Values()
		if len(docs) != 3 || len(want) != 3 {
			t.Fatalf("%s: config.shards %d documents, listShards %d: %v", v, len(docs), len(want), got)
		}
		for i := range docs {
			if !docs[i].Equal(want[i]) {
				t.Errorf("%s: config.shards[%d] %v, listShards %v", v, i, docs[i], want[i])
			}
		}
		one := runCmd(t, router, "config", bson.D{{Key: "find", Value: "shards"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: "shard1"}}}}, nil)
		if docs, _ := one.Lookup("cursor", "firstBatch").Array().Values(); len(docs) != 1 || docs[0].Document().Lookup("_id").StringValue() != "shard1" {
			t.Errorf("%s: config.shards filtered on shard1: %v", v, one)
		}
	}
	empty := runCmd(t, frontendFor(t, "service=0s"), "config", bson.D{{Key: "find", Value: "shards"}}, nil)
	if docs, _ := empty.Lookup("cursor", "firstBatch").Array().Values(); len(docs) != 0 {
		t.Errorf("a standalone's config.shards: %v", empty)
	}
}
