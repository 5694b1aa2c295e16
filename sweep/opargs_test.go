package sweep

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"
	"time"

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
	a := newOpArgs()
	for _, tc := range []struct {
		n     int64
		field string
		len   int
	}{{123456789, "field9", 100}, {0, "field0", 1}, {42, "field3", 0}, {-7, "x", 17}, {1 << 62, "field1", 10}} {
		a.setKey(tc.n)
		sameBSON(t, "byID", a.byID, bson.D{{Key: "_id", Value: Key(tc.n)}})
		sameBSON(t, "fromID", a.fromID, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: Key(tc.n)}}}})
		r1, r2 := rand.New(rand.NewPCG(1, uint64(tc.n))), rand.New(rand.NewPCG(1, uint64(tc.n)))
		a.setField(tc.field, r1, tc.len)
		want := randomString(r2, tc.len)
		sameBSON(t, "update", a.update, bson.D{{Key: "$set", Value: bson.D{{Key: tc.field, Value: want}}}})
	}
}

func FuzzOpArgsKey(f *testing.F) {
	for _, n := range []int64{0, 1, -1, 99, 1 << 40} {
		f.Add(n)
	}
	a := newOpArgs()
	f.Fuzz(func(t *testing.T, n int64) {
		a.setKey(n)
		sameBSON(t, "byID", a.byID, bson.D{{Key: "_id", Value: Key(n)}})
	})
}

// TestWorkerOwnPathAllocatesNothing: everything a worker does per op
// around the driver call (draw the op and its arguments, time it, keep
// its op context, classify and record the outcome) allocates nothing, so
// that the client's allocations are the driver's alone. Inserts make a
// new document by nature and are left out.
func TestWorkerOwnPathAllocatesNothing(t *testing.T) {
	wl := DefaultWorkload()
	for _, mix := range []string{"read", "update", "scan", "rmw"} {
		wl.Mix = []MixEntry{{Op: mix, Weight: 1}}
		rec := newRecorder(5*time.Second, 1)
		rec.openWindow()
		w := worker{rng: rand.New(rand.NewPCG(1, 2)), wl: &wl, keys: NewKeySpace("zipfian", 10000, 10000), rec: rec,
			parent: context.Background(), timeout: 5 * time.Second}
		defer w.release()
		one := func() {
			op := w.pickOp()
			if typ, ok := opTypeOf(op); ok {
				w.prepare(typ)
				start := rec.startOne(0, typ)
				w.opContext()
				kind, err := w.outcome(start, nil)
				rec.endOne(0, typ, start, kind, err, true)
				return
			}
			start := rec.callStart(0)
			for _, typ := range []int{0, 1} {
				w.prepare(typ)
				s := rec.opStart(0, typ)
				w.opContext()
				kind, err := w.outcome(s, nil)
				rec.opEnd(0, typ, s, kind, err, true)
			}
			rec.callEnd(0, start, true)
		}
		one() // the first op makes the worker's buffers and op context
		if n := testing.AllocsPerRun(1000, one); n != 0 {
			t.Errorf("%s: %.1f allocations per op in the worker's own path, want 0", mix, n)
		}
	}
}
