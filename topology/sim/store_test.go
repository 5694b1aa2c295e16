package sim

import (
	"errors"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func val(t *testing.T, v any) bsoncore.Value {
	t.Helper()
	typ, data, err := bson.MarshalValue(v)
	if err != nil {
		t.Fatal(err)
	}
	return bsoncore.Value{Type: bsoncore.Type(typ), Data: data}
}

func doc(t *testing.T, d bson.D) bsoncore.Document {
	t.Helper()
	b, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustKey(t *testing.T, v any) idKey {
	t.Helper()
	k, err := keyOf(val(t, v))
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestKeyOrder(t *testing.T) {
	oid1, _ := bson.ObjectIDFromHex("000000000000000000000001")
	oid2, _ := bson.ObjectIDFromHex("ff0000000000000000000000")
	// Each value sorts strictly before the next, as in MongoDB.
	ordered := []any{-1e9, int32(-2), int64(-1), 0.5, int32(1), int64(300), "", "a", "ab", "b", oid1, oid2}
	for i := 1; i < len(ordered); i++ {
		a, b := mustKey(t, ordered[i-1]), mustKey(t, ordered[i])
		if a >= b {
			t.Errorf("key(%v) >= key(%v)", ordered[i-1], ordered[i])
		}
	}
	// Numbers compare by value across types.
	if mustKey(t, int32(7)) != mustKey(t, 7.0) {
		t.Error("int32 7 and double 7 differ")
	}
	if _, err := keyOf(val(t, bson.D{{Key: "a", Value: 1}})); err == nil {
		t.Error("document _id accepted")
	}
}

func TestShardOfSpreads(t *testing.T) {
	counts := make([]int, 3)
	for i := range 3000 {
		counts[mustKey(t, fmt.Sprintf("user%06d", i)).shardOf(3)]++
	}
	for i, c := range counts {
		if c < 800 || c > 1200 {
			t.Errorf("shard %d got %d of 3000 keys", i, c)
		}
	}
}

func TestParseFilter(t *testing.T) {
	tests := []struct {
		name    string
		filter  bson.D
		match   []any // _ids that must match
		nomatch []any
		wantErr bool
	}{
		{"empty matches all", bson.D{}, []any{"a", 1}, nil, false},
		{"_id equality", bson.D{{Key: "_id", Value: "b"}}, []any{"b"}, []any{"a", "bb"}, false},
		{"$eq on _id", bson.D{{Key: "_id", Value: bson.D{{Key: "$eq", Value: "b"}}}}, []any{"b"}, []any{"c"}, false},
		{"half-open range", bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: "b"}, {Key: "$lt", Value: "d"}}}},
			[]any{"b", "c", "cz"}, []any{"a", "d", "e"}, false},
		{"exclusive bounds", bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: "b"}, {Key: "$lte", Value: "d"}}}},
			[]any{"c", "d"}, []any{"b", "e"}, false},
		{"range matches only its own type", bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: 5}}}},
			[]any{6, 7.5}, []any{"z", 5}, false},
		// What the simulator does not evaluate is accepted and matches
		// nothing (opaque), never a wrong document.
		{"$in is opaque", bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: bson.A{"a"}}}}}, nil, []any{"a"}, false},
		{"top-level $or is opaque", bson.D{{Key: "$or", Value: bson.A{}}}, nil, []any{"a", 1}, false},
		{"operators on other fields are opaque", bson.D{{Key: "n", Value: bson.D{{Key: "$gt", Value: 1}}}}, nil, []any{"a", 1}, false},
		{"mixed-type bounds are opaque", bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: 1}, {Key: "$lt", Value: "a"}}}}, nil, []any{2, "0"}, false},
	}
	for _, tt := range tests {
		f, err := parseFilter(doc(t, tt.filter))
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, want error %v", tt.name, err, tt.wantErr)
			continue
		}
		var ce *cmdError
		if err != nil && (!errors.As(err, &ce) || ce.Code != 2) {
			t.Errorf("%s: err %v is not BadValue", tt.name, err)
		}
		for _, id := range tt.match {
			if !f.matchKey(mustKey(t, id)) {
				t.Errorf("%s: %v does not match", tt.name, id)
			}
		}
		for _, id := range tt.nomatch {
			if f.matches(doc(t, bson.D{{Key: "_id", Value: id}, {Key: "n", Value: 5}})) {
				t.Errorf("%s: %v matches", tt.name, id)
			}
		}
	}
}

func TestStoreScanAfterChurn(t *testing.T) {
	s := newStore()
	var docs []keyed
	for i := 9; i >= 0; i-- { // inserted out of order
		id := fmt.Sprintf("k%d", i)
		docs = append(docs, keyed{mustKey(t, id), doc(t, bson.D{{Key: "_id", Value: id}})})
	}
	if n, errs := s.insert("d", "c", docs, true); n != 10 || errs != nil {
		t.Fatalf("insert: %d %v", n, errs)
	}
	all, _ := parseFilter(nil)
	s.scan("d", "c", all, false, 0) // merge once
	s.delete("d", "c", filter{idEq: ptr(mustKey(t, "k3"))}, 1)
	s.insert("d", "c", []keyed{{mustKey(t, "k3"), doc(t, bson.D{{Key: "_id", Value: "k3"}})}, {mustKey(t, "k35"), doc(t, bson.D{{Key: "_id", Value: "k35"}})}}, true)
	var got []string
	for _, k := range s.scan("d", "c", all, false, 0) {
		got = append(got, k.doc.Lookup("_id").StringValue())
	}
	want := "[k0 k1 k2 k3 k35 k4 k5 k6 k7 k8 k9]"
	if fmt.Sprint(got) != want {
		t.Errorf("scan = %v, want %v", got, want)
	}
	rev := s.scan("d", "c", all, true, 2)
	if len(rev) != 2 || rev[0].doc.Lookup("_id").StringValue() != "k9" {
		t.Errorf("reverse limit 2 = %v", rev)
	}
	if n := s.count("d", "c", all); n != 11 {
		t.Errorf("count = %d", n)
	}
	// A duplicate in an unordered batch fails alone.
	n, errs := s.insert("d", "c", []keyed{{mustKey(t, "k1"), doc(t, bson.D{{Key: "_id", Value: "k1"}})}, {mustKey(t, "new"), doc(t, bson.D{{Key: "_id", Value: "new"}})}}, false)
	if n != 1 || len(errs) != 1 || errs[0].Index != 0 || errs[0].Code != 11000 {
		t.Errorf("unordered duplicate: n=%d errs=%v", n, errs)
	}
}

func ptr[T any](v T) *T { return &v }

func TestUpdateApply(t *testing.T) {
	base := bson.D{{Key: "_id", Value: "x"}, {Key: "i", Value: int32(1)}, {Key: "l", Value: int64(1)}, {Key: "f", Value: 1.5}, {Key: "s", Value: "a"}}
	tests := []struct {
		name    string
		update  bson.D
		want    bson.D
		wantErr int32
	}{
		{"$set replaces in place and appends new fields",
			bson.D{{Key: "$set", Value: bson.D{{Key: "s", Value: "b"}, {Key: "new", Value: true}}}},
			bson.D{{Key: "_id", Value: "x"}, {Key: "i", Value: int32(1)}, {Key: "l", Value: int64(1)}, {Key: "f", Value: 1.5}, {Key: "s", Value: "b"}, {Key: "new", Value: true}}, 0},
		{"$inc keeps int32, widens to int64 and double as MongoDB does",
			bson.D{{Key: "$inc", Value: bson.D{{Key: "i", Value: int32(2)}, {Key: "l", Value: int32(2)}, {Key: "f", Value: int32(1)}, {Key: "m", Value: int32(5)}}}},
			bson.D{{Key: "_id", Value: "x"}, {Key: "i", Value: int32(3)}, {Key: "l", Value: int64(3)}, {Key: "f", Value: 2.5}, {Key: "s", Value: "a"}, {Key: "m", Value: int32(5)}}, 0},
		{"int32 overflow becomes int64",
			bson.D{{Key: "$inc", Value: bson.D{{Key: "i", Value: int32(2147483647)}}}},
			bson.D{{Key: "_id", Value: "x"}, {Key: "i", Value: int64(2147483648)}, {Key: "l", Value: int64(1)}, {Key: "f", Value: 1.5}, {Key: "s", Value: "a"}}, 0},
		{"$unset removes",
			bson.D{{Key: "$unset", Value: bson.D{{Key: "s", Value: ""}}}},
			bson.D{{Key: "_id", Value: "x"}, {Key: "i", Value: int32(1)}, {Key: "l", Value: int64(1)}, {Key: "f", Value: 1.5}}, 0},
		{"replacement keeps _id",
			bson.D{{Key: "only", Value: 1}},
			bson.D{{Key: "_id", Value: "x"}, {Key: "only", Value: int32(1)}}, 0},
		{"$inc on a string is TypeMismatch", bson.D{{Key: "$inc", Value: bson.D{{Key: "s", Value: 1}}}}, nil, 14},
		{"$push is accepted and not applied", bson.D{{Key: "$push", Value: bson.D{{Key: "a", Value: 1}}}}, base, 0},
		{"$set on a dotted path creates the embedded document",
			bson.D{{Key: "$set", Value: bson.D{{Key: "a.b", Value: int32(1)}}}},
			bson.D{{Key: "_id", Value: "x"}, {Key: "i", Value: int32(1)}, {Key: "l", Value: int64(1)}, {Key: "f", Value: 1.5}, {Key: "s", Value: "a"}, {Key: "a", Value: bson.D{{Key: "b", Value: int32(1)}}}}, 0},
		{"a dotted path through a string is PathNotViable", bson.D{{Key: "$set", Value: bson.D{{Key: "s.b", Value: 1}}}}, nil, 28},
		{"changing a field of _id is ImmutableField", bson.D{{Key: "$set", Value: bson.D{{Key: "_id.a", Value: 1}}}}, nil, 66},
		{"changing _id is ImmutableField", bson.D{{Key: "$set", Value: bson.D{{Key: "_id", Value: "y"}}}}, nil, 66},
	}
	for _, tt := range tests {
		u, err := parseUpdate(bsoncore.Value{Type: bsoncore.TypeEmbeddedDocument, Data: doc(t, tt.update)})
		var out bsoncore.Document
		if err == nil {
			out, err = u.apply(doc(t, base))
		}
		var ce *cmdError
		switch {
		case tt.wantErr != 0 && (!errors.As(err, &ce) || ce.Code != tt.wantErr):
			t.Errorf("%s: err = %v, want code %d", tt.name, err, tt.wantErr)
		case tt.wantErr == 0 && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.wantErr == 0 && string(out) != string(doc(t, tt.want)):
			t.Errorf("%s: got %v, want %v", tt.name, out, bson.Raw(doc(t, tt.want)))
		}
	}
}

func TestUpsertBase(t *testing.T) {
	u, err := parseUpdate(val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 1}}}}))
	if err != nil {
		t.Fatal(err)
	}
	// Filter equality fields seed the new document; operators do not.
	got, id, err := upsertBase(doc(t, bson.D{{Key: "_id", Value: "u1"}, {Key: "tag", Value: "t"}, {Key: "n", Value: bson.D{{Key: "$gt", Value: 1}}}}), u)
	if err != nil {
		t.Fatal(err)
	}
	want := doc(t, bson.D{{Key: "_id", Value: "u1"}, {Key: "tag", Value: "t"}, {Key: "v", Value: int32(1)}})
	if string(got) != string(want) || id.StringValue() != "u1" {
		t.Errorf("upsert doc %v id %v, want %v", bson.Raw(got), id, bson.Raw(want))
	}
	// Without an _id in the filter an ObjectID is generated.
	_, id, err = upsertBase(doc(t, bson.D{}), u)
	if err != nil || id.Type != bsoncore.TypeObjectID {
		t.Errorf("generated id %v, %v", id, err)
	}
}

func TestStoreUpsertExistingID(t *testing.T) {
	s := newStore()
	s.insert("d", "c", []keyed{{mustKey(t, "a"), doc(t, bson.D{{Key: "_id", Value: "a"}, {Key: "v", Value: 1}})}}, true)
	u, _ := parseUpdate(val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "w", Value: 2}}}}))
	q := doc(t, bson.D{{Key: "_id", Value: "a"}, {Key: "v", Value: 99}})
	f, _ := parseFilter(q)
	// _id matches but v does not: the upsert must not overwrite the document.
	_, err := s.update("d", "c", f, q, u, false, true)
	var ce *cmdError
	if !errors.As(err, &ce) || ce.Code != 11000 {
		t.Fatalf("upsert onto an existing _id: %v", err)
	}
	if got := s.scan("d", "c", f, false, 0); len(got) != 0 {
		t.Fatalf("document was replaced: %v", got)
	}
}

// TestDottedPaths: filters and updates reach into embedded documents as
// MongoDB's do, as poolsweep's load lock needs ({"holder.run_id": X}
// with $inc, $set and $unset under holder).
func TestDottedPaths(t *testing.T) {
	lock := bson.D{{Key: "_id", Value: "lock"}, {Key: "holder", Value: bson.D{{Key: "run_id", Value: "r1"}, {Key: "pid", Value: int32(7)}}}, {Key: "beat", Value: int32(0)}}
	tests := []struct {
		name    string
		filter  bson.D
		update  bson.D
		matched int
		want    bson.D // the stored document afterwards
	}{
		{"a dotted equality matches the nested field",
			bson.D{{Key: "_id", Value: "lock"}, {Key: "holder.run_id", Value: "r1"}, {Key: "holder.pid", Value: int32(7)}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "beat", Value: int32(1)}}}}, 1,
			bson.D{{Key: "_id", Value: "lock"}, {Key: "holder", Value: bson.D{{Key: "run_id", Value: "r1"}, {Key: "pid", Value: int32(7)}}}, {Key: "beat", Value: int32(1)}}},
		{"a different nested value does not match",
			bson.D{{Key: "holder.run_id", Value: "r2"}},
			bson.D{{Key: "$inc", Value: bson.D{{Key: "beat", Value: int32(1)}}}}, 0, lock},
		{"a literal top-level key with a dot is not the nested field",
			bson.D{{Key: "holder.pid", Value: int32(8)}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "beat", Value: int32(9)}}}}, 0, lock},
		{"a path through a non-document matches nothing",
			bson.D{{Key: "beat.x", Value: int32(0)}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "beat", Value: int32(9)}}}}, 0, lock},
		{"$set and $inc on dotted paths change the nested fields in place",
			bson.D{{Key: "holder.run_id", Value: "r1"}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "holder.run_id", Value: "r3"}}}, {Key: "$inc", Value: bson.D{{Key: "holder.pid", Value: int64(1)}}}}, 1,
			bson.D{{Key: "_id", Value: "lock"}, {Key: "holder", Value: bson.D{{Key: "run_id", Value: "r3"}, {Key: "pid", Value: int64(8)}}}, {Key: "beat", Value: int32(0)}}},
		{"$unset on a dotted path removes the nested field only",
			bson.D{{Key: "_id", Value: "lock"}},
			bson.D{{Key: "$unset", Value: bson.D{{Key: "holder.pid", Value: ""}}}}, 1,
			bson.D{{Key: "_id", Value: "lock"}, {Key: "holder", Value: bson.D{{Key: "run_id", Value: "r1"}}}, {Key: "beat", Value: int32(0)}}},
		{"$set through a missing parent creates it",
			bson.D{{Key: "_id", Value: "lock"}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "a.b.c", Value: true}}}}, 1,
			bson.D{{Key: "_id", Value: "lock"}, {Key: "holder", Value: bson.D{{Key: "run_id", Value: "r1"}, {Key: "pid", Value: int32(7)}}}, {Key: "beat", Value: int32(0)},
				{Key: "a", Value: bson.D{{Key: "b", Value: bson.D{{Key: "c", Value: true}}}}}}},
	}
	for _, tt := range tests {
		st := newStore()
		st.insert("db", "meta", []keyed{{mustKey(t, "lock"), doc(t, lock)}}, true)
		fd := doc(t, tt.filter)
		f, err := parseFilter(fd)
		if err != nil {
			t.Fatalf("%s: filter: %v", tt.name, err)
		}
		u, err := parseUpdate(val(t, tt.update))
		if err != nil {
			t.Fatalf("%s: update: %v", tt.name, err)
		}
		r, err := st.update("db", "meta", f, fd, u, false, false)
		if err != nil || r.matched != tt.matched {
			t.Errorf("%s: matched %d, %v; want %d", tt.name, r.matched, err, tt.matched)
		}
		got := st.scan("db", "meta", filter{}, false, 0)
		if len(got) != 1 || string(got[0].doc) != string(doc(t, tt.want)) {
			t.Errorf("%s: stored %v, want %v", tt.name, got, bson.Raw(doc(t, tt.want)))
		}
	}
	// An upsert with a dotted filter key builds the embedded document.
	u, _ := parseUpdate(val(t, bson.D{{Key: "$set", Value: bson.D{{Key: "beat", Value: int32(0)}}}}))
	got, _, err := upsertBase(doc(t, bson.D{{Key: "_id", Value: "l2"}, {Key: "holder.run_id", Value: "r9"}}), u)
	want := doc(t, bson.D{{Key: "_id", Value: "l2"}, {Key: "holder", Value: bson.D{{Key: "run_id", Value: "r9"}}}, {Key: "beat", Value: int32(0)}})
	if err != nil || string(got) != string(want) {
		t.Errorf("dotted upsert: %v, %v; want %v", bson.Raw(got), err, bson.Raw(want))
	}
}
