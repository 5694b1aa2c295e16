package bound

import "testing"

// TestServerRules: which server-side rules can fire follows what the
// server reports, per version and process.
func TestServerRules(t *testing.T) {
	c := DefaultClassifier()
	can := func(in ServerInputs) map[string]bool {
		out := map[string]bool{}
		for _, r := range c.ServerRules(in) {
			out[r.Rule] = r.CanFire
		}
		return out
	}
	full := ServerInputs{TicketsRead: true, TicketsWrite: true, QueueRead: true, QueueWrite: true, CPU: true, Cores: true, Latency: true, Network: true}
	for _, tt := range []struct {
		name string
		in   ServerInputs
		rule string
		want bool
	}{
		// A 6.0 mongod's fixed tickets can run out.
		{"6.0 tickets", with(full, "6.0.26"), "server: tickets exhausted", true},
		// From 7.0 tickets follow the load: only the queue says saturation.
		{"7.0 tickets", with(full, "7.0.14"), "server: tickets exhausted", false},
		{"7.0 queue", with(full, "7.0.14"), "server: ops queued", true},
		// Windows reports no CPU times.
		{"windows CPU", func() ServerInputs { in := with(full, "8.0.11"); in.CPU = false; return in }(), "server: CPU", false},
		// CPU times without a core count: no hostInfo.
		{"no cores", func() ServerInputs { in := with(full, "5.0.2"); in.Cores = false; return in }(), "server: CPU", false},
		// A mongos before 7.0: no latency, tickets or queue: judged from the client.
		{"6.0 router latency", ServerInputs{Version: "6.0.3", Router: true, CPU: true, Network: true}, "server: latency grew", false},
		{"6.0 router inferred", ServerInputs{Version: "6.0.3", Router: true, CPU: true, Network: true}, "server: inferred from the client", true},
		{"full inferred", with(full, "8.0.4"), "server: inferred from the client", false},
		// No link speed: the network rule is off.
		{"network", with(full, "8.0.4"), "network", false},
		{"timeouts", ServerInputs{}, "server: op timeouts", true},
		// A router's pools: full from per-host in use and idle, creation
		// from refreshing; a mongod has none; a router's CPU is router_cpu's.
		{"router pools full", ServerInputs{Version: "8.0.4", Router: true, PoolHosts: true}, "router_pool: pools full", true},
		{"router pools no counts", ServerInputs{Version: "8.0.4", Router: true}, "router_pool: pools full", false},
		// MaxSize read: no limit (the default) never fills; a limit can.
		{"router pools no limit", ServerInputs{Version: "8.0.4", Router: true, PoolHosts: true, PoolSettingsRead: true}, "router_pool: pools full", false},
		{"router pools limit", ServerInputs{Version: "8.0.4", Router: true, PoolHosts: true, PoolSettingsRead: true, PoolMaxSize: 10}, "router_pool: pools full", true},
		{"router creation", ServerInputs{Version: "4.0.4", Router: true, PoolHosts: true, PoolRefreshing: true}, "router_pool: creation at MaxConnecting", true},
		{"mongod router pools", with(full, "8.0.4"), "router_pool: pools full", false},
		{"router cpu", ServerInputs{Version: "8.0.4", Router: true, CPU: true, Cores: true}, "router_cpu", true},
		{"router cpu no cores", ServerInputs{Version: "8.0.4", Router: true, CPU: true}, "router_cpu", false},
		{"router server cpu", ServerInputs{Version: "8.0.4", Router: true, CPU: true, Cores: true}, "server: CPU", false},
		{"mongod router cpu", with(full, "8.0.4"), "router_cpu", false},
		// 8.2's establishment limiter, only where its counts are reported.
		{"8.0 limiter", with(full, "8.0.9"), "server: connection establishment limited", false},
		{"8.2 limiter", func() ServerInputs { in := with(full, "8.2.0"); in.Establishment = true; return in }(), "server: connection establishment limited", true},
	} {
		if got := can(tt.in)[tt.rule]; got != tt.want {
			t.Errorf("%s: %s can fire %v, want %v", tt.name, tt.rule, got, tt.want)
		}
	}
	c.LinkBytesPerS = 1e9
	if r := c.ServerRules(with(full, "8.0.4")); r[len(r)-1].Rule != "network" || !r[len(r)-1].CanFire {
		t.Error("network rule off with a link speed set")
	}
}

func with(in ServerInputs, version string) ServerInputs { in.Version = version; return in }
