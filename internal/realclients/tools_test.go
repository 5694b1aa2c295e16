package realclients_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// The shapes mongostat and mongotop (mongodb/mongo-tools, built from its
// public source and run against every simulated topology) need
// from a server, written here from what those tools decode and
// dereference: mongo-tools decodes with the same Go driver, so
// bson.Unmarshal into these types fails where mongostat fails. The tools
// themselves cannot run in CI (their source is not ours to vendor).

// statusForMongostat is serverStatus as mongostat's status.ServerStatus
// reads it: integers where it decodes integers (a double with a fraction
// is an error), and pointers for the sections it dereferences.
type statusForMongostat struct {
	Host         string `bson:"host"`
	Process      string `bson:"process"`
	Uptime       int64  `bson:"uptime"`
	UptimeMillis int64  `bson:"uptimeMillis"`
	Connections  *struct {
		Current, Available, TotalCreated int64
	} `bson:"connections"`
	Network *struct {
		BytesIn     int64 `bson:"bytesIn"`
		BytesOut    int64 `bson:"bytesOut"`
		NumRequests int64 `bson:"numRequests"`
	} `bson:"network"`
	Opcounters *struct {
		Insert, Query, Update, Delete int64
		GetMore                       int64 `bson:"getmore"`
		Command                       int64
	} `bson:"opcounters"`
	Mem *struct {
		Bits, Resident, Virtual int64
		Supported               any `bson:"supported"`
	} `bson:"mem"`
	GlobalLock *struct {
		TotalTime     int64           `bson:"totalTime"`
		CurrentQueue  *readersWriters `bson:"currentQueue"`
		ActiveClients *readersWriters `bson:"activeClients"`
	} `bson:"globalLock"`
	Repl *struct {
		SetName string   `bson:"setName"`
		Hosts   []string `bson:"hosts"`
		Me      string   `bson:"me"`
	} `bson:"repl"`
}

type readersWriters struct{ Total, Readers, Writers int64 }

// toolTopologies are the deployments the tools were run against, each in
// a process of its own as `poolsweep serve --sim` runs it (a server alone
// in its process reports mem and extra_info).
var toolTopologies = []string{"service=0s", "rs=3,service=0s", "shards=2,service=0s"}

// servers is every server of a deployment a monitoring tool reaches:
// the URI's, and a cluster's shard servers (mongostat --discover).
func servers(t *testing.T, uri string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := testsrv.Connect(t, uri)
	var hosts []string
	hello, err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if msg, _ := hello.Lookup("msg").StringValueOK(); msg != "isdbgrid" {
		if arr, ok := hello.Lookup("hosts").ArrayOK(); ok {
			vals, _ := arr.Values()
			for _, v := range vals {
				hosts = append(hosts, v.StringValue())
			}
			return hosts
		}
		return []string{testsrv.Host(t, uri)}
	}
	hosts = strings.Split(strings.TrimSuffix(strings.TrimPrefix(uri, "mongodb://"), "/"), ",")
	var ls struct {
		Shards []struct{ Host string } `bson:"shards"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "listShards", Value: 1}}).Decode(&ls); err != nil {
		t.Fatal(err)
	}
	for _, sh := range ls.Shards {
		_, members, _ := strings.Cut(sh.Host, "/")
		hosts = append(hosts, strings.Split(members, ",")...)
	}
	return hosts
}

// direct connects to one server only, as the tools do per host.
func direct(t *testing.T, host string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().SetHosts([]string{host}).SetDirect(true).SetTimeout(10 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(context.Background()) })
	return c
}

// TestMongostatCanReadEveryServer decodes every simulated server's
// serverStatus as mongostat does (its own command: recordStats 0) and
// requires what mongostat dereferences without a check: connections,
// network, opcounters and mem; globalLock.activeClients wherever
// currentQueue is (its qrw column); a member's repl.hosts with itself in
// them (--discover follows them).
//
// From 4.4: the Go driver (ours, and mongo-tools') talks to 4.2 and later
// (mongo-tools') or 4.4 and later (ours) only.
func TestMongostatCanReadEveryServer(t *testing.T) {
	t.Parallel()
	for _, v := range []string{"4.4", "6.0", "8.0", sim.Versions()[len(sim.Versions())-1]} {
		for _, spec := range toolTopologies {
			t.Run(spec+",version="+v, func(t *testing.T) {
				t.Parallel()
				srv := testsrv.SimChild(t, spec+",version="+v)
				for _, host := range servers(t, srv.URI) {
					c := direct(t, host)
					raw, err := c.Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}, {Key: "recordStats", Value: 0}}).Raw()
					if err != nil {
						t.Fatalf("%s: %v", host, err)
					}
					var st statusForMongostat
					if err := bson.Unmarshal(raw, &st); err != nil {
						t.Errorf("%s: decoding as mongostat does: %v", host, err)
						continue
					}
					if st.Connections == nil || st.Network == nil || st.Opcounters == nil || st.Mem == nil {
						t.Errorf("%s: connections %v, network %v, opcounters %v, mem %v: mongostat dereferences all four", host,
							st.Connections != nil, st.Network != nil, st.Opcounters != nil, st.Mem != nil)
					} else if b, _ := st.Mem.Supported.(bool); !b {
						t.Errorf("%s: mem.supported %v: mongostat prints no vsize or res", host, st.Mem.Supported)
					}
					if gl := st.GlobalLock; gl != nil && gl.CurrentQueue != nil && gl.ActiveClients == nil {
						t.Errorf("%s: globalLock.currentQueue without activeClients: mongostat's qrw dereferences it", host)
					}
					if st.Repl != nil && (len(st.Repl.Hosts) == 0 || !slices.Contains(st.Repl.Hosts, st.Repl.Me)) {
						t.Errorf("%s: repl.hosts %v, me %q: mongostat --discover follows repl.hosts", host, st.Repl.Hosts, st.Repl.Me)
					}
				}
			})
		}
	}
}
