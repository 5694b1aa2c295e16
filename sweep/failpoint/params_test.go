package failpoint

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// The guard's server parameters on the simulator, whose read tickets
// are a runtime parameter: the original is recorded before the first
// change and kept through later ones, RestoreParams sets it back, a
// first change the server refuses leaves nothing to undo, and a second
// guard of the same run (a resumed process) sets back what the first
// left.
func TestGuardServerParams(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=3,service=1ms").URI()
	host := testsrv.Host(t, uri)
	c := testsrv.Connect(t, uri)
	meta := c.Database("poolsweep").Collection("poolsweep_meta")
	newClient := func() *options.ClientOptions { return options.Client().ApplyURI(uri) }
	const name = "wiredTigerConcurrentReadTransactions"
	int32Value := func(n int32) bson.RawValue {
		tp, data, _ := bson.MarshalValue(n)
		return bson.RawValue{Type: tp, Value: data}
	}
	read := func(g *Guard) int32 {
		v, err := g.GetParam(t.Context(), host, name)
		if err != nil {
			t.Fatal(err)
		}
		return v.Int32()
	}

	g := NewGuard(meta, "run-a", DirectTo(newClient))
	for _, n := range []int32{5, 9} {
		back, err := g.SetParam(t.Context(), host, name, int32Value(n))
		if err != nil || back.Int32() != n {
			t.Fatalf("SetParam %d: read back %v, %v", n, back, err)
		}
	}
	recs, err := PendingParams(t.Context(), meta, "run-a")
	if err != nil || len(recs) != 1 || recs[0].Original.Lookup("v").Int32() != 3 {
		t.Fatalf("records after two changes: %+v %v; want one, with the original 3", recs, err)
	}
	if err := g.RestoreParams(t.Context()); err != nil || read(g) != 3 {
		t.Fatalf("RestoreParams: %v, reads %d", err, read(g))
	}
	if recs, _ := PendingParams(t.Context(), meta, "run-a"); len(recs) != 0 {
		t.Errorf("records not done after RestoreParams: %+v", recs)
	}

	// Refused at once: nothing changed, nothing left to undo.
	if _, err := g.SetParam(t.Context(), host, name, int32Value(0)); err == nil {
		t.Fatal("0 tickets were taken")
	}
	if g.ParamsChanged() != 0 {
		t.Errorf("a refused first change is remembered")
	}
	if recs, _ := PendingParams(t.Context(), meta, "run-a"); len(recs) != 0 {
		t.Errorf("a refused first change left its record: %+v", recs)
	}
	g.Close(t.Context())

	// A process that dies leaves its value; the run's next process
	// (Recover, as --resume) sets the original back.
	dead := NewGuard(meta, "run-b", DirectTo(newClient))
	if _, err := dead.SetParam(t.Context(), host, name, int32Value(7)); err != nil {
		t.Fatal(err)
	}
	next := NewGuard(meta, "run-b", DirectTo(newClient))
	defer next.Close(t.Context())
	msgs, err := next.Recover(t.Context())
	if err != nil || len(msgs) != 1 || read(next) != 3 {
		t.Errorf("Recover: %v %v, reads %d; want the original 3 said once", msgs, err, read(next))
	}
	if recs, _ := PendingParams(t.Context(), meta, "run-b"); len(recs) != 0 {
		t.Errorf("records not done after Recover: %+v", recs)
	}
}
