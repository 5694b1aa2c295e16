package sim

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// getParameter and setParameter over the table answer as a real server's
// (src/mongo/db/commands/parameters.cpp): {was, ok} for a change, the
// server's codes and words for a name it lacks, a startup-only one, a
// value of the wrong type and another database than admin.
func TestSetParameterReplies(t *testing.T) {
	f := frontendFor(t, "service=0s,slots=4,version=8.2")
	set := func(name string, v any) bson.Raw {
		return runCmd(t, f, "admin", bson.D{{Key: "setParameter", Value: 1}, {Key: name, Value: v}}, nil)
	}
	r := set("storageEngineConcurrentReadTransactions", int32(9))
	wantOK(t, r)
	if got := r.Lookup("was").Int32(); got != 4 {
		t.Errorf("was = %d, want the slots before (4)", got)
	}
	if got := f.shard.reads.size(); got != 9 {
		t.Errorf("read slots = %d after setting 9", got)
	}
	// Both names are one value, as on a real 7.0+ server.
	g := runCmd(t, f, "admin", bson.D{{Key: "getParameter", Value: 1}, {Key: "wiredTigerConcurrentReadTransactions", Value: 1}, {Key: "noSuchName", Value: 1}}, nil)
	wantOK(t, g)
	if got := g.Lookup("wiredTigerConcurrentReadTransactions").Int32(); got != 9 {
		t.Errorf("getParameter wiredTigerConcurrentReadTransactions = %d, want 9", got)
	}
	// A whole double is a whole number; int64 too.
	wantOK(t, set("wiredTigerConcurrentWriteTransactions", 3.0))
	wantOK(t, set("wiredTigerConcurrentWriteTransactions", int64(5)))
	if got := f.shard.writes.size(); got != 5 {
		t.Errorf("write slots = %d after setting 5", got)
	}

	for _, tc := range []struct {
		what string
		r    bson.Raw
		code int32
		cn   string
		msg  string
	}{
		{"unknown name", set("noSuchName", int32(1)), 72, "InvalidOptions", "attempted to set unrecognized parameter [noSuchName], use help:true to see options "},
		{"startup-only", set("enableTestCommands", true), 20, "IllegalOperation", "not allowed to change [enableTestCommands] at runtime"},
		{"string for a number", set("wiredTigerConcurrentReadTransactions", "12"), 2, "BadValue", ""},
		{"fraction", set("wiredTigerConcurrentReadTransactions", 2.5), 2, "BadValue", ""},
		{"zero tickets", set("wiredTigerConcurrentReadTransactions", int32(0)), 2, "BadValue", ""},
		{"nothing to set", runCmd(t, f, "admin", bson.D{{Key: "setParameter", Value: 1}}, nil), 72, "InvalidOptions", "no option found to set, use help:true to see options "},
		{"not admin", runCmd(t, f, "db", bson.D{{Key: "setParameter", Value: 1}, {Key: "wiredTigerConcurrentReadTransactions", Value: int32(3)}}, nil), 13, "Unauthorized", ""},
	} {
		wantCode(t, tc.r, tc.code, tc.cn)
		if tc.msg != "" && tc.r.Lookup("errmsg").StringValue() != tc.msg {
			t.Errorf("%s: errmsg %q, want %q", tc.what, tc.r.Lookup("errmsg").StringValue(), tc.msg)
		}
	}
	// A refused value changes nothing.
	if got := f.shard.reads.size(); got != 9 {
		t.Errorf("read slots = %d after refused values, want 9", got)
	}

	// "*" with showDetails lists every parameter with how it may be set.
	all := runCmd(t, f, "admin", bson.D{{Key: "getParameter", Value: bson.D{{Key: "allParameters", Value: true}, {Key: "showDetails", Value: true}}}}, nil)
	wantOK(t, all)
	d, ok := all.Lookup("storageEngineConcurrentReadTransactions").DocumentOK()
	if !ok || d.Lookup("value").Int32() != 9 || !d.Lookup("settableAtRuntime").Boolean() {
		t.Errorf("showDetails of the read tickets: %v", all.Lookup("storageEngineConcurrentReadTransactions"))
	}
	if d, _ := all.Lookup("enableTestCommands").DocumentOK(); d == nil || d.Lookup("settableAtRuntime").Boolean() {
		t.Errorf("enableTestCommands must be startup-only: %v", all.Lookup("enableTestCommands"))
	}
}

// A parameter exists only on the processes and versions that have it: a
// router has no tickets, 4.4 has no storageEngine names, a shard's own
// server sets its shard's tickets.
func TestSetParameterWhoHasIt(t *testing.T) {
	old := frontendFor(t, "service=0s,slots=4,version=4.4")
	wantCode(t, runCmd(t, old, "admin", bson.D{{Key: "getParameter", Value: 1}, {Key: "storageEngineConcurrentReadTransactions", Value: 1}}, nil), 72, "InvalidOptions")
	wantOK(t, runCmd(t, old, "admin", bson.D{{Key: "getParameter", Value: 1}, {Key: "wiredTigerConcurrentReadTransactions", Value: 1}}, nil))

	d := startSim(t, "shards=2,service=0s,slots=4")
	router, shardServer := d.fronts[0], d.shardFronts[0]
	if !router.router || !shardServer.shardServer {
		t.Fatal("no router or shard server in a 2-shard deployment")
	}
	wantCode(t, runCmd(t, router, "admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "wiredTigerConcurrentReadTransactions", Value: int32(8)}}, nil), 72, "InvalidOptions")
	wantOK(t, runCmd(t, shardServer, "admin", bson.D{{Key: "setParameter", Value: 1}, {Key: "wiredTigerConcurrentReadTransactions", Value: int32(8)}}, nil))
	if got := shardServer.shard.reads.size(); got != 8 {
		t.Errorf("the shard's read slots = %d after setting 8 on its server", got)
	}
}

// Resizing the slots changes the capacity from the next op on: ops
// booked before keep their booking, a slot added is free at once.
func TestSlotPoolResize(t *testing.T) {
	p := newSlotPool(1)
	p.book(kindRead, 1e9)
	p.resize(3)
	// Two free slots: the next two ops start at once.
	if w := p.book(kindRead, 1e6); w > 5e8 {
		t.Errorf("an op after growing waited for the busy slot (%v)", w)
	}
	p.resize(1)
	if s := p.snapshot(); s.Total != 1 || s.Free < 0 {
		t.Errorf("after shrinking: total %d free %d", s.Total, s.Free)
	}
}
