package fromftdc

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/telemetry"
)

// fakeCapture is a capture of 21 samples a second apart, each host's
// serverStatus counting 100 commands a second, with the role's evidence:
// connPoolStats for a router, replSetGetStatus (its own state) for a
// member, and the command line.
func fakeCapture(t *testing.T, host, role, state string, opts bson.D) *Capture {
	t.Helper()
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	raw := func(d bson.D) bson.Raw {
		b, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	c := &Capture{Folder: "/f/" + host, Host: host, Role: role, role: telemetry.HostRole{Role: role}, cmdLineOpts: raw(bson.D{{Key: "parsed", Value: opts}})}
	for i := range 21 {
		at := t0.Add(time.Duration(i) * time.Second)
		r := telemetry.StatusReply{At: at, ServerStatus: raw(bson.D{{Key: "host", Value: host}, {Key: "uptimeMillis", Value: int64(1000 * (i + 1))},
			{Key: "opcounters", Value: bson.D{{Key: "command", Value: int64(100 * i)}}}})}
		switch role {
		case telemetry.RoleMongos:
			r.ConnPoolStats = raw(bson.D{{Key: "totalInUse", Value: int32(3)}})
		case telemetry.RoleMember:
			r.ReplSetGetStatus = raw(bson.D{{Key: "members", Value: bson.A{bson.D{{Key: "name", Value: host}, {Key: "stateStr", Value: state}, {Key: "self", Value: true}}}}})
		}
		k := telemetry.ParseSample(r)
		c.points = append(c.points, point{at: at, uptimeMS: int64(1000 * (i + 1)), kept: &k})
	}
	return c
}

// TestPlacement: a sharded cluster's captures are placed as the sampler
// places its hosts; a replica set's members are all the step's hosts.
func TestPlacement(t *testing.T) {
	t0 := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	w := Window{t0.Add(5 * time.Second), t0.Add(15 * time.Second)}
	shard := func(set string) bson.D {
		return bson.D{{Key: "sharding", Value: bson.D{{Key: "clusterRole", Value: "shardsvr"}}}, {Key: "replication", Value: bson.D{{Key: "replSetName", Value: set}}}}
	}
	router := fakeCapture(t, "m1", telemetry.RoleMongos, "", bson.D{{Key: "sharding", Value: bson.D{{Key: "configDB", Value: "cfg/c1:27019"}}}})
	primary := fakeCapture(t, "s1a", telemetry.RoleMember, "PRIMARY", shard("sh1"))
	secondary := fakeCapture(t, "s1b", telemetry.RoleMember, "SECONDARY", shard("sh1"))
	config := fakeCapture(t, "c1", telemetry.RoleMember, "PRIMARY", bson.D{{Key: "sharding", Value: bson.D{{Key: "clusterRole", Value: "configsvr"}}}})
	short := fakeCapture(t, "s2a", telemetry.RoleMember, "PRIMARY", shard("sh2"))
	short.points = short.points[:8]

	// routers, a shard's primary and secondary, the config server
	st, covs := WindowTelemetry([]*Capture{router, primary, secondary, config}, w)
	if st == nil || len(st.Hosts) != 1 || st.Hosts["m1"] == nil || st.ShardsSampled == nil || !*st.ShardsSampled ||
		len(st.ShardHosts) != 1 || st.ShardHosts["sh1"] == nil || st.ShardHosts["sh1"].Host != "s1a" || st.ShardTotal == nil {
		t.Fatalf("sharded: %+v", st)
	}
	if got := st.ShardHosts["sh1"].Sample.OpcountersPerS["command"]; got != 100 {
		t.Errorf("shard's commands %v/s, want 100", got)
	}
	want := map[string]string{"m1": "", "s1a": "", "s1b": "not its shard's primary", "c1": "a config server"}
	for _, c := range covs {
		if !c.Covered || (want[c.Host] == "") != (c.LeftOut == "") {
			t.Errorf("%s: %+v, want left out %q", c.Host, c, want[c.Host])
		}
	}
	// a shard member whose capture stops in the window: not attached
	if st, _ := WindowTelemetry([]*Capture{router, primary, short}, w); st != nil {
		t.Errorf("a shard member not covering the window: attached anyway")
	}
	// the routers alone: the shards are said not to be sampled
	if st, _ := WindowTelemetry([]*Capture{router}, w); st == nil || st.ShardsSampled == nil || *st.ShardsSampled || st.ShardsNotSampled == "" {
		t.Errorf("routers only: %+v", st)
	}
	// a replica set: every member is the step's host
	rsPrimary := fakeCapture(t, "r1", telemetry.RoleMember, "PRIMARY", bson.D{{Key: "replication", Value: bson.D{{Key: "replSetName", Value: "rs0"}}}})
	rsSecondary := fakeCapture(t, "r2", telemetry.RoleMember, "SECONDARY", bson.D{{Key: "replication", Value: bson.D{{Key: "replSetName", Value: "rs0"}}}})
	st, covs = WindowTelemetry([]*Capture{rsPrimary, rsSecondary}, w)
	if st == nil || len(st.Hosts) != 2 || st.ShardsSampled != nil || covs[0].Role != "primary" || covs[1].Role != "secondary" {
		t.Fatalf("replica set: %+v %+v", st, covs)
	}
	if got := st.Total.OpcountersPerS["command"]; got != 200 {
		t.Errorf("replica set's commands %v/s, want 200", got)
	}
}
