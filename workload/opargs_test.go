package workload

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// sameBSON fails unless got and want encode to the same bytes: what the
// server receives is all that matters.
func sameBSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, err := bson.Marshal(got)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	w, _ := bson.Marshal(want)
	if !bytes.Equal(g, w) {
		t.Errorf("%s encodes as %v, want %v", what, bson.Raw(g), bson.Raw(w))
	}
}

// The reused buffers must send exactly what a filter built per op would,
// including after a longer key or value shrinks to a shorter one.
func TestOpArgsEncodeAsPerOpFilters(t *testing.T) {
	a := NewOpArgs()
	for _, tc := range []struct {
		n     int64
		field string
		len   int
	}{{123456789, "field9", 100}, {0, "field0", 1}, {42, "field3", 0}, {-7, "x", 17}, {1 << 62, "field1", 10}} {
		a.SetKey(tc.n)
		sameBSON(t, "byID", a.ByID, bson.D{{Key: "_id", Value: Key(tc.n)}})
		sameBSON(t, "fromID", a.FromID, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: Key(tc.n)}}}})
		r1, r2 := rand.New(rand.NewPCG(1, uint64(tc.n))), rand.New(rand.NewPCG(1, uint64(tc.n)))
		a.SetField(tc.field, r1, tc.len)
		want := randomString(r2, tc.len)
		sameBSON(t, "update", a.Update, bson.D{{Key: "$set", Value: bson.D{{Key: tc.field, Value: want}}}})
	}
}

func FuzzOpArgsKey(f *testing.F) {
	for _, n := range []int64{0, 1, -1, 99, 1 << 40} {
		f.Add(n)
	}
	a := NewOpArgs()
	f.Fuzz(func(t *testing.T, n int64) {
		a.SetKey(n)
		sameBSON(t, "byID", a.ByID, bson.D{{Key: "_id", Value: Key(n)}})
	})
}
