package bound

import "fmt"

// ServerInputs says which of the fields the server-side rules judge by a
// server reports (from its replies, by telemetry.ViewHost), for
// ServerRules.
type ServerInputs struct {
	Version string
	Router  bool
	// Tickets: available and in use, per side; Queue: ops waiting, per
	// side (the tickets' queue or globalLock.currentQueue).
	TicketsRead, TicketsWrite, QueueRead, QueueWrite bool
	CPU, Cores, Latency, Network                     bool
	// Establishment: the connection-establishment rate limiter's counts (8.2).
	Establishment bool
	// A router's pools to its hosts (connPoolStats): PoolHosts, in use and
	// idle per host; PoolRefreshing, connections being opened per host;
	// PoolsListed, the task executor's pools listed with their hosts.
	PoolHosts, PoolRefreshing, PoolsListed bool
	// PoolSettingsRead: the router's ShardingTaskExecutorPoolMaxSize was
	// read (getParameter); PoolMaxSize is it, 0 where it sets no limit.
	PoolSettingsRead bool
	PoolMaxSize      float64
}

// RuleCheck is whether one rule of Classify can fire on a server with
// those inputs, and why (or why not).
type RuleCheck struct {
	Rule    string `json:"rule"`
	CanFire bool   `json:"can_fire"`
	Why     string `json:"why"`
}

// ServerRules lists the rules of Classify that read the server's own
// numbers (and the timeouts rule, which every server can meet), each with
// whether it can fire on a server that reports in: the question a user
// asks of a new server version before a sweep. The client, pool and
// contention rules do not depend on the server and are not listed. c's
// thresholds matter only where a rule needs a setting (the network rule's
// link speed, the CPU rule's core count override).
func (c Classifier) ServerRules(in ServerInputs) []RuleCheck {
	var out []RuleCheck
	add := func(rule string, can bool, why string) {
		out = append(out, RuleCheck{Rule: rule, CanFire: can, Why: why})
	}
	dynamic := dynamicTickets(in.Version)
	router := "a mongos reports none: a sharded cluster is judged on its shards' primaries, sampled behind the routers"
	switch {
	case in.TicketsRead || in.TicketsWrite:
		if dynamic {
			add("server: tickets exhausted", false, "version "+in.Version+" sizes its tickets to the load (7.0+): available tickets say nothing, only the queue does")
		} else {
			add("server: tickets exhausted", true, "available and in-use tickets reported ("+sides(in.TicketsRead, in.TicketsWrite)+")")
		}
	case in.Router:
		add("server: tickets exhausted", false, "no tickets: "+router)
	default:
		add("server: tickets exhausted", false, "no admission tickets reported")
	}
	switch {
	case in.QueueRead || in.QueueWrite:
		add("server: ops queued", true, "queue reported ("+sides(in.QueueRead, in.QueueWrite)+")")
	case in.Router:
		add("server: ops queued", false, "no queue: "+router)
	default:
		add("server: ops queued", false, "no ticket queue or globalLock.currentQueue reported")
	}
	if in.Establishment {
		add("server: connection establishment limited", true, "the establishment rate limiter's queued and rejected counts reported (8.2+)")
	} else {
		add("server: connection establishment limited", false, "no connection-establishment rate limiter counts reported (8.2+ only)")
	}
	switch {
	case in.Router:
		add("server: CPU", false, "a router's CPU is judged by router_cpu")
	case !in.CPU:
		add("server: CPU", false, "no extra_info.user_time_us and system_time_us (Windows and macOS report none; a mongos before 4.2 neither)")
	case !in.Cores && c.ServerCores <= 0:
		add("server: CPU", false, "CPU time reported but no core count: no hostInfo, and no --server-cores")
	default:
		add("server: CPU", true, "CPU time and a core count reported")
	}
	c.routerRules(in, add)
	add("server: op timeouts", true, "judged from the client's timeouts: any server")
	if in.Latency {
		add("server: latency grew", true, "opLatencies reads and writes reported")
	} else {
		why := "no opLatencies reported"
		if in.Router {
			why += " (a mongos reports them from 7.0)"
		}
		add("server: latency grew", false, why)
	}
	silent := !in.Latency && !in.QueueRead && !in.QueueWrite && !in.TicketsRead && !in.TicketsWrite
	if silent {
		add("server: inferred from the client", true, "the server reports no latency, queue or tickets: judged by call latency net of pool wait")
	} else {
		add("server: inferred from the client", false, "the server reports latency, a queue or tickets: judged by those instead")
	}
	switch {
	case !in.Network:
		add("network", false, "no network bytes reported")
	case c.LinkBytesPerS <= 0:
		add("network", false, "network bytes reported, but no link speed is set (Classifier.LinkBytesPerS; no flag sets it yet)")
	default:
		add("network", true, "network bytes reported and a link speed set")
	}
	return out
}

func sides(read, write bool) string {
	switch {
	case read && write:
		return "read and write"
	case read:
		return "read only"
	}
	return "write only"
}

// routerRules adds the router rules' checks: router_cpu as the server's
// CPU rule, router_pool from what connPoolStats reports.
func (c Classifier) routerRules(in ServerInputs, add func(rule string, can bool, why string)) {
	if !in.Router {
		add("router_cpu", false, "not a mongos router")
		add("router_pool: pools full", false, "not a mongos router")
		add("router_pool: creation at MaxConnecting", false, "not a mongos router")
		return
	}
	switch {
	case !in.CPU:
		add("router_cpu", false, "no extra_info.user_time_us and system_time_us (Windows and macOS report none; a mongos before 4.2 neither)")
	case !in.Cores && c.ServerCores <= 0:
		add("router_cpu", false, "CPU time reported but no core count: no hostInfo, and no --server-cores")
	default:
		add("router_cpu", true, "CPU time and a core count reported")
	}
	per := "per pool from the task executor's pools listed in connPoolStats"
	if !in.PoolsListed {
		per = "per pool as the host's counts over taskExecutorPoolSize (getParameter): connPoolStats lists no task-executor pools"
	}
	switch {
	case in.PoolHosts && in.PoolSettingsRead && in.PoolMaxSize <= 0:
		add("router_pool: pools full", false, "ShardingTaskExecutorPoolMaxSize sets no limit (the default): the router's pools to a shard host never fill")
	case in.PoolHosts && in.PoolSettingsRead:
		add("router_pool: pools full", true, fmt.Sprintf("in use and idle per shard host reported; judged %s against ShardingTaskExecutorPoolMaxSize %.0f (getParameter; read again each window); connPoolStats reports no waiters in any version", per, in.PoolMaxSize))
	case in.PoolHosts:
		add("router_pool: pools full", true, "in use and idle per shard host reported; judged "+per+" against ShardingTaskExecutorPoolMaxSize, read with getParameter each window (no limit set, the default, never fills; a user without getParameter leaves it unknown); connPoolStats reports no waiters in any version")
	default:
		add("router_pool: pools full", false, "connPoolStats reports no in-use and available counts per host")
	}
	if in.PoolRefreshing {
		add("router_pool: creation at MaxConnecting", true, "connections being opened (refreshing) per shard host reported; judged "+per+" against ShardingTaskExecutorPoolMaxConnecting (getParameter, else its default 2)")
	} else {
		add("router_pool: creation at MaxConnecting", false, "connPoolStats reports no refreshing count per host")
	}
}
