package telemetry

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/corpus"
)

// TestDecideRole: every kind of evidence alone, from real and manual
// replies where the corpus has them, and the order between them.
func TestDecideRole(t *testing.T) {
	raw := func(d bson.D) bson.Raw {
		b, err := bson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	cmdLine := func(opts bson.D) bson.Raw { return raw(bson.D{{Key: "parsed", Value: opts}}) }
	shard := bson.D{{Key: "replication", Value: bson.D{{Key: "replSetName", Value: "sh1"}}}, {Key: "sharding", Value: bson.D{{Key: "clusterRole", Value: "shardsvr"}}}}
	status := func(state string) bson.Raw {
		return raw(bson.D{{Key: "set", Value: "rs0"}, {Key: "members", Value: bson.A{
			bson.D{{Key: "name", Value: "a:1"}, {Key: "stateStr", Value: "PRIMARY"}, {Key: "self", Value: false}},
			bson.D{{Key: "name", Value: "b:1"}, {Key: "stateStr", Value: state}, {Key: "self", Value: true}}}}})
	}
	load := func(name string) bson.Raw {
		r, err := corpus.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		name     string
		e        RoleEvidence
		role     string
		set      string
		evidence string
	}{
		{"nothing", RoleEvidence{}, RoleUnknown, "", "no hello"},
		{"hello of a mongos", RoleEvidence{Hello: load("hello.mongos-8.0.manual.json")}, RoleMongos, "", "isdbgrid"},
		{"isMaster of a mongos", RoleEvidence{Hello: load("isMaster.mongos-4.2.manual.json"), IsMaster: true}, RoleMongos, "", "isMaster says msg isdbgrid"},
		{"hello of a standalone", RoleEvidence{Hello: load("hello.mongod-standalone-8.0.manual.json")}, RoleStandalone, "", "names no replica set"},
		{"isMaster of a primary", RoleEvidence{Hello: load("isMaster.mongod-replset-primary-4.2.json"), IsMaster: true}, RolePrimary, "replset", "writable primary"},
		{"isMaster of a secondary", RoleEvidence{Hello: load("isMaster.mongod-replset-secondary-4.2.json"), IsMaster: true}, RoleSecondary, "replset", "a secondary"},
		{"hello of an arbiter", RoleEvidence{Hello: raw(bson.D{{Key: "setName", Value: "rs0"}, {Key: "arbiterOnly", Value: true}})}, RoleMember, "rs0", "names a replica set"},
		{"hello of a set not initiated", RoleEvidence{Hello: raw(bson.D{{Key: "isreplicaset", Value: true}})}, RoleMember, "", "isreplicaset"},
		{"connPoolStats", RoleEvidence{ConnPoolStats: load("connPoolStats.mongos-8.0.manual.json")}, RoleMongos, "", "connPoolStats"},
		{"replSetGetStatus of a primary", RoleEvidence{ReplSetGetStatus: load("replSetGetStatus.mongod-replset-primary-8.0.manual.json")}, RolePrimary, "", "PRIMARY"},
		{"replSetGetStatus of a secondary", RoleEvidence{ReplSetGetStatus: status("SECONDARY")}, RoleSecondary, "rs0", "SECONDARY"},
		{"replSetGetStatus while recovering", RoleEvidence{ReplSetGetStatus: status("RECOVERING")}, RoleMember, "rs0", "only in a replica set"},
		{"command line of a mongos", RoleEvidence{CmdLineOpts: cmdLine(bson.D{{Key: "sharding", Value: bson.D{{Key: "configDB", Value: "cfg/c1:27019"}}}})}, RoleMongos, "", "configDB"},
		{"command line of a shard", RoleEvidence{CmdLineOpts: cmdLine(shard)}, RoleMember, "sh1", "clusterRole shardsvr"},
		{"command line of a 3.2 member", RoleEvidence{CmdLineOpts: cmdLine(bson.D{{Key: "replication", Value: bson.D{{Key: "replSet", Value: "old"}}}})}, RoleMember, "old", "names a replica set"},
		{"command line of a standalone", RoleEvidence{CmdLineOpts: cmdLine(bson.D{{Key: "net", Value: bson.D{{Key: "port", Value: int32(27017)}}}})}, RoleStandalone, "", "names no replica set"},
		// The order: hello before the collectors, the collectors before
		// the command line.
		{"hello beats connPoolStats", RoleEvidence{Hello: load("hello.mongod-standalone-8.0.manual.json"), ConnPoolStats: load("connPoolStats.mongos-8.0.manual.json")}, RoleStandalone, "", "hello"},
		{"replSetGetStatus beats a command line", RoleEvidence{ReplSetGetStatus: status("SECONDARY"), CmdLineOpts: cmdLine(shard)}, RoleSecondary, "rs0", "SECONDARY (sharding.clusterRole shardsvr"},
	} {
		got := DecideRole(tc.e)
		if got.Role != tc.role || got.SetName != tc.set && tc.set != "" || !strings.Contains(got.Evidence, tc.evidence) {
			t.Errorf("%s: %+v, want %s (set %q, evidence %q)", tc.name, got, tc.role, tc.set, tc.evidence)
		}
	}
}
