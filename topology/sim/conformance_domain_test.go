package sim

import (
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/corpus"
)

// consumerPaths are serverStatus fields that the field's own tools read
// from a server (mongostat, built from mongodb/mongo-tools: its status
// readers decode uptime into an integer, and dereference mem and
// globalLock, and name their columns from storageEngine), beyond what
// poolsweep reads (read-paths.txt). The
// conformance tests hold the simulator to the corpus for these too: a
// simulator those tools cannot read is no faithful instrument (mongostat failed on a fractional uptime, then panicked on a missing mem).
var consumerPaths = []string{
	"host", "uptime", "uptimeMillis", "uptimeEstimate",
	"mem.bits", "mem.resident", "mem.virtual", "mem.supported",
	"globalLock.totalTime", "globalLock.currentQueue.total", "globalLock.activeClients.total",
	"extra_info.page_faults",
	"connections.active", "network.numRequests",
	// mongostat chooses its columns by storageEngine.name; the other
	// fields are held to the captures of each version (not
	// oldestRequiredTimestampForCrashRecovery, which the 5.0.0 capture's
	// source emptied into a document).
	"storageEngine.name", "storageEngine.supportsCommittedReads", "storageEngine.supportsPendingDrops",
	"storageEngine.dropPendingIdents", "storageEngine.supportsTwoPhaseIndexBuild",
	"storageEngine.supportsSnapshotReadConcern", "storageEngine.readOnly", "storageEngine.persistent",
	"storageEngine.backupCursorOpen", "storageEngine.supportsResumableIndexBuilds",
}

// conformancePaths are the read paths and the consumer paths.
func conformancePaths(t testing.TB) []corpus.ReadPath {
	t.Helper()
	paths := readPaths(t)
	for _, p := range consumerPaths {
		paths = append(paths, corpus.ReadPath{Command: "serverStatus", Path: strings.Split(p, ".")})
	}
	return paths
}

// checkDomain holds a simulated value to the real one's domain: where the
// real server sends a whole number (any integer type, or a double with a
// whole value, as uptime), the simulator's must be whole too. A real zero
// says nothing (a double average may be 0.0 and fractional later), nor
// does a non-number.
func checkDomain(t *testing.T, path string, real, sim bson.RawValue) {
	t.Helper()
	if !inDomain(real, sim) {
		t.Errorf("%s: the simulator sends %v, the real server a whole number (%v)", path, sim, real)
	}
}

// inDomain says whether sim is in real's domain (see checkDomain).
func inDomain(real, sim bson.RawValue) bool {
	rf, ok := real.AsFloat64OK()
	if !ok || rf == 0 || rf != math.Trunc(rf) {
		return true
	}
	sf, ok := sim.AsFloat64OK()
	return !ok || sf == math.Trunc(sf) // not a number: the type check says so
}

func TestCheckDomain(t *testing.T) {
	val := func(v any) bson.RawValue {
		raw, err := bson.Marshal(bson.D{{Key: "x", Value: v}})
		if err != nil {
			t.Fatal(err)
		}
		return bson.Raw(raw).Lookup("x")
	}
	for _, tt := range []struct {
		real, sim any
		fails     bool
	}{
		{3600.0, 12.25, true},       // uptime: a whole double, a fraction: the mongostat failure
		{3600.0, 12.0, false},       // whole and whole
		{int32(36), 12.5, true},     // a relaxed capture's integer still means whole
		{0.0, 0.5, false},           // a zero says nothing
		{0.25, 0.5, false},          // a fractional real value allows fractions
		{int64(9), int64(7), false}, // integers are whole
		{"mongod", "mongos", false}, // not numbers
	} {
		if fails := !inDomain(val(tt.real), val(tt.sim)); fails != tt.fails {
			t.Errorf("real %v, sim %v: failed %v, want %v", tt.real, tt.sim, fails, tt.fails)
		}
	}
}

// TestConformanceIngressOn holds an 8.2 server whose limiter is on, after
// it queued and rejected connections, to the 8.2 replies: the limiter
// changes values, not the shape (averageTimeQueuedMicros appears once a
// connection was admitted, which poolsweep does not read).
func TestConformanceIngressOn(t *testing.T) {
	paths := conformancePaths(t)
	for _, proc := range []string{"mongod", "mongos"} {
		spec := "version=8.2,service=0s,ingress_rate=5,ingress_burst=0.4,ingress_queue=1"
		if proc == "mongos" {
			spec = "shards=1," + spec
		}
		d := startAlone(t, spec)
		release := make(chan struct{})
		connectionStorm(t, d.Hosts()[0], 5, release)
		close(release)
		sim := runCmd(t, d.fronts[0], "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
		if n := num(sim, "queues", "ingressSessionEstablishment", "rejectedAdmissions"); n < 1 {
			t.Errorf("%s: the storm was not limited (%v rejected)", proc, n)
		}
		name := "serverStatus." + proc + "-8.2.manual.json"
		t.Run(proc, func(t *testing.T) { checkConforms(t, "serverStatus", loadReply(t, name), sim, paths, true) })
	}
}
