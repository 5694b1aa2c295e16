package telemetry

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestViewHostCorpus: process, role and inputs from real replies.
func TestViewHostCorpus(t *testing.T) {
	load := func(names map[string]string) map[string]bson.Raw {
		out := map[string]bson.Raw{}
		for cmd, name := range names {
			out[cmd] = loadCorpus(t, name)
		}
		return out
	}
	for _, tt := range []struct {
		name    string
		replies map[string]string
		role    string
		router  bool
		check   func(HostView) bool
	}{
		// A real 7.0.14 standalone: tickets sized to the load, CPU times,
		// cores. Nothing among these replies says it is a standalone (a
		// member's serverStatus and hostInfo look alike): role unknown.
		{"7.0.14", map[string]string{"serverStatus": "serverStatus.mongod-7.0.14.json", "hostInfo": "hostInfo.mongod-7.0.14.json"}, RoleUnknown, false,
			func(v HostView) bool {
				return v.TicketsRead && v.QueueRead && v.CPU && v.Cores && v.Latency && v.Version == "7.0.14"
			}},
		// A member of a set, told by replSetGetStatus's own member.
		{"4.2 primary", map[string]string{"serverStatus": "serverStatus.mongod-4.2.8.json", "replSetGetStatus": "replSetGetStatus.mongod-replset-primary-4.2.json"}, "replica-set primary", false,
			func(v HostView) bool { return v.SetName != "" }},
		// A real isMaster of a primary.
		{"4.2 isMaster", map[string]string{"serverStatus": "serverStatus.mongod-4.2.8.json", "isMaster": "isMaster.mongod-replset-primary-4.2.json"}, "replica-set primary", false, nil},
		// A router (the manual's 8.0 mongos): no tickets (its globalLock queue is 8.0+).
		{"8.0 mongos", map[string]string{"serverStatus": "serverStatus.mongos-8.0.manual.json", "connPoolStats": "connPoolStats.mongos-8.0.manual.json"}, RoleMongos, true,
			func(v HostView) bool {
				return !v.TicketsRead && !v.TicketsWrite && v.Pools && v.PoolHosts && v.PoolRefreshing && v.PoolsListed
			}},
		// The real 2020 router: per-host counts, and pools, but only the
		// shard registry's (to the config servers): no task-executor pool.
		{"2020 mongos", map[string]string{"connPoolStats": "connPoolStats.mongos-unknown-2020.json"}, RoleMongos, true,
			func(v HostView) bool { return v.PoolHosts && v.PoolRefreshing && !v.PoolsListed }},
		// 8.2 (from the manual): the establishment limiter's counts.
		{"8.2", map[string]string{"serverStatus": "serverStatus.mongod-8.2.manual.json"}, RoleUnknown, false,
			func(v HostView) bool { return v.Establishment && v.TicketsRead }},
		// 8.0.9, real: none of them.
		{"8.0.9", map[string]string{"serverStatus": "serverStatus.mongod-8.0.9.json"}, RoleUnknown, false,
			func(v HostView) bool { return !v.Establishment && v.TicketsRead && v.QueueRead }},
	} {
		v := ViewHost(load(tt.replies))
		if v.Role != tt.role || v.Router != tt.router || (tt.check != nil && !tt.check(v)) {
			t.Errorf("%s: %+v", tt.name, v)
		}
	}
}
