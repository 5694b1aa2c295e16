package workload

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// TestCallerOps: each built-in workload's calls send the ops it promises,
// in order, and a mix draws its calls by their shares.
func TestCallerOps(t *testing.T) {
	for _, tt := range []struct {
		name, mix string
		want      []OpType // every call's ops; nil: checked by shares
	}{
		{"read", "", []OpType{TypeFind}},
		{"update", "", []OpType{TypeUpdate}},
		{"insert", "", []OpType{TypeInsert}},
		{"scan", "", []OpType{TypeScan}},
		// The seeds' API call is 2 finds and 1 update, whatever its mix.
		{"api", "", []OpType{TypeFind, TypeFind, TypeUpdate}},
		// A read-modify-write is a find, then an update.
		{"mixed", "rmw=100", []OpType{TypeFind, TypeUpdate}},
		{"mixed", "read=70,scan=30", nil},
	} {
		w, err := BuiltinWorkload(tt.name, tt.mix)
		if err != nil {
			t.Fatal(err)
		}
		c := w.NewCaller(nil, NewKeySpace(w.Distribution, 1000, 1000), rand.New(rand.NewPCG(1, 2)), time.Second)
		const calls = 20_000
		byType := map[OpType]int{}
		for range calls {
			var got []OpType
			for i := range c.Next() {
				got = append(got, c.Prepare(i))
			}
			if tt.want != nil && !slices.Equal(got, tt.want) {
				t.Fatalf("%s %s: a call sent %v, want %v", tt.name, tt.mix, got, tt.want)
			}
			for _, typ := range got {
				byType[typ]++
			}
		}
		if tt.want == nil {
			// Four standard errors of a binomial share of 0.7.
			if got := float64(byType[TypeFind]) / calls; math.Abs(got-0.7) > 4*math.Sqrt(0.7*0.3/calls) {
				t.Errorf("%s: %.3f of calls were reads, want 0.70", tt.mix, got)
			}
			if byType[TypeFind]+byType[TypeScan] != calls {
				t.Errorf("%s: ops of other types: %v", tt.mix, byType)
			}
		}
	}
}

// TestOpTypes: a workload's op types are indexed by OpType, the built-in
// ones first, as the recorder files them.
func TestOpTypes(t *testing.T) {
	w := DefaultWorkload()
	got := w.OpTypes()
	if len(got) != BuiltinOpTypes {
		t.Fatalf("op types %v, want %d built-in", got, BuiltinOpTypes)
	}
	for typ, name := range map[OpType]string{TypeFind: "find", TypeUpdate: "update", TypeInsert: "insert", TypeScan: "scan"} {
		if got[typ] != name {
			t.Errorf("op type %d is %q, want %q", typ, got[typ], name)
		}
	}
	if shapeType(0) != OpType(BuiltinOpTypes) {
		t.Errorf("a replay's first shape is op type %d, want %d", shapeType(0), BuiltinOpTypes)
	}
}

// TestCallerLookupOnSim: against a server, an op by a loaded key says
// whether it found its document, which is how a step notices a target
// that lost its data; an op by a key poolsweep did not load (an insert's)
// says nothing.
func TestCallerLookupOnSim(t *testing.T) {
	ctx := context.Background()
	uri := testsrv.Sim(t, "slots=8").URI()
	c := testsrv.Connect(t, uri)
	w := DefaultWorkload()
	w.Records, w.Database = 100, "ps_caller"
	lr, err := Prepare(ctx, c, w, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	coll := c.Database(w.Database).Collection(w.Collection)
	keys := NewKeySpace("uniform", int64(w.Records), lr.NextInsert)
	keys.SetLoaded(int64(w.Records))
	lookups := func(name, mix string) map[Lookup]int {
		t.Helper()
		wl, err := BuiltinWorkload(name, mix)
		if err != nil {
			t.Fatal(err)
		}
		wl.Records, wl.Database = w.Records, w.Database
		caller := wl.NewCaller(coll, keys, rand.New(rand.NewPCG(3, 4)), time.Second)
		got := map[Lookup]int{}
		for range 50 {
			for i := range caller.Next() {
				caller.Prepare(i)
				l, err := caller.Exec(ctx, i)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				got[l]++
			}
		}
		return got
	}
	for _, name := range []string{"read", "update", "scan"} {
		if got := lookups(name, ""); got[LookupFound] != 50 {
			t.Errorf("%s of loaded keys: %v, want 50 found", name, got)
		}
	}
	if got := lookups("insert", ""); got[LookupNone] != 50 {
		t.Errorf("insert: %v, want 50 that say nothing", got)
	}
	if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: "user999"}}}}); err != nil {
		t.Fatal(err)
	}
	if got := lookups("read", ""); got[LookupMissed] != 50 {
		t.Errorf("read after the loaded documents were deleted: %v, want 50 missed", got)
	}
}
