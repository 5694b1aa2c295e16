package realclients_test

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/realclients"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// deployment is one simulated deployment the clients are pointed at.
type deployment struct {
	version, topology, uri string
}

// topologies are the three kinds of deployment, each small and quick:
// the clients check what the servers say, not how fast they are. The
// sharded one has two routers so that the URI lists two mongos and a
// driver that treats a single seed as a direct connection (pymongo 3.11)
// still discovers a sharded cluster.
var topologies = []struct{ name, spec string }{
	{"standalone", "slots=4,service=100us"},
	{"replset", "rs=3,slots=4,service=100us"},
	{"sharded", "shards=2,routers=2,slots=4,service=100us"},
}

// TestRealClientsOnSimulator points pymongo and the Java driver 3.6, which
// nobody here wrote, at the simulated standalone, replica set and sharded
// cluster of every simulated version. Each must discover the topology as
// a real one of that kind, and run hello (isMaster before 4.4),
// serverStatus, an insert, a find and an update by _id; on the replica
// set also a find with the secondary read preference, answered by a
// secondary.
func TestRealClientsOnSimulator(t *testing.T) {
	t.Parallel()
	tl := realclients.Need(t)
	var deps []deployment
	var uris []string
	for _, v := range sim.Versions() {
		for _, tp := range topologies {
			d := testsrv.Sim(t, tp.spec+",version="+v)
			deps = append(deps, deployment{v, tp.name, d.URI()})
			uris = append(uris, d.URI())
		}
	}
	// Each client goes through every deployment in one process (a JVM
	// starts once), the two clients at the same time.
	const bound = 2 * time.Minute
	var py, java realclients.Output
	var wg sync.WaitGroup
	wg.Go(func() { py = tl.Pymongo(bound, uris...) })
	wg.Go(func() { java = tl.JavaMain(bound, "Probe", uris...) })
	wg.Wait()
	t.Logf("Java driver: %s", tl.JavaJar)
	check(t, "pymongo", py, deps, pythonWords)
	check(t, "java", java, deps, javaWords)
}

// words are how a client names the topologies it discovers and the BSON
// double it decoded uptime into.
type words struct {
	topology map[string]string
	double   string
}

var pythonWords = words{map[string]string{"standalone": "Single", "replset": "ReplicaSetWithPrimary", "sharded": "Sharded"}, "float"}
var javaWords = words{map[string]string{"standalone": "STANDALONE", "replset": "REPLICA_SET", "sharded": "SHARDED"}, "Double"}

// check holds one client's lines to what a real deployment of each kind
// and version would have given it.
func check(t *testing.T, client string, out realclients.Output, deps []deployment, w words) {
	t.Helper()
	lines, err := realclients.ParseLines(out.Stdout)
	if err != nil {
		t.Fatalf("%s: %v", client, err)
	}
	if out.Err != nil {
		t.Errorf("%s: %v\nstderr (tail): %s", client, out.Err, tail(out.Stderr, 2000))
	}
	seen := map[int]realclients.Line{}
	for _, l := range lines {
		seen[l.Index] = l
	}
	for i, d := range deps {
		name := client + " " + d.topology + " " + d.version
		l, ok := seen[i]
		switch {
		case !ok:
			t.Errorf("%s: no line", name)
			continue
		case !l.OK:
			t.Errorf("%s: %s", name, l.Reason)
			continue
		}
		f := l.Fields
		t.Logf("%s: topology=%s hello=%s msg=%s setName=%s process=%s version=%s uptime=%s secondaryRead=%s",
			name, f["topology"], f["hello"], f["msg"], f["setName"], f["process"], f["version"], f["uptime"], f["secondaryRead"])
		want := map[string]string{
			"topology": w.topology[d.topology],
			"hello":    "isMaster",
			"msg":      "-",
			"setName":  "-",
			"process":  "mongod",
			"uptime":   w.double, // a real server sends a double
			"found":    "true",
			"matched":  "1",
			"modified": "1",
			"updated":  "true",
		}
		if strings.HasPrefix(f["driver"], "pymongo") {
			// The shapes a replayed workload sends beyond find and update
			// (topology/sim answers any shape): pymongo's own helpers.
			want["count"], want["aggregate"], want["distinct"], want["findAndModify"] = "1", "1", "li2", "true"
		}
		if d.version >= "4.4" { // hello is 4.4's (one-digit majors compare as strings)
			want["hello"] = "hello"
		}
		switch d.topology {
		case "replset":
			want["setName"] = "rs0"
			want["secondaries"] = "2"
			want["fromSecondary"] = "true"
		case "sharded":
			want["msg"] = "isdbgrid"
			want["process"] = "mongos"
		}
		for k, v := range want {
			if !strings.EqualFold(f[k], v) {
				t.Errorf("%s: %s=%q, want %q", name, k, f[k], v)
			}
		}
		if !strings.HasPrefix(f["version"], d.version+".") {
			t.Errorf("%s: serverStatus.version %q is not %s's", name, f["version"], d.version)
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
