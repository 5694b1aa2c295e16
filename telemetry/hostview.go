package telemetry

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/results"
)

// HostView is what telemetry makes of one host's replies without a
// window (inspect --replies): the process and role as the sampler decides
// them, the version, and which of the fields the bound rules judge by the
// replies report.
type HostView struct {
	// Process is serverStatus.process as the server reports it.
	Process string
	// Router: the host is sampled as a mongos router.
	Router bool
	// Role is the host's role as DecideRole gives it from the replies
	// (hello or isMaster, connPoolStats, replSetGetStatus,
	// getCmdLineOpts), and RoleEvidence why: "role unknown" when they do
	// not say.
	Role, RoleEvidence string
	// SetName is the replica set's name, when the replies give one.
	SetName string
	// Version is serverStatus.version, else buildInfo.version.
	Version string
	// What the replies report of the fields the server-side rules read.
	TicketsRead, TicketsWrite bool // admission tickets: available and in use on the side
	QueueRead, QueueWrite     bool // ops waiting on the side: its ticket queue or globalLock.currentQueue
	CPU                       bool // extra_info user and system CPU time
	Cores                     bool // hostInfo's core count
	Latency                   bool // opLatencies reads and writes
	Network                   bool // network bytes in and out
	// Establishment: 8.2's connection-establishment rate limiter's counts
	// (connections queued or rejected: queuedForEstablishment,
	// establishmentRateLimit.rejected or the ingress queue's counters).
	Establishment bool
	// Pools: connPoolStats totals (a router). PoolHosts: in use and
	// available per host; PoolRefreshing: refreshing per host;
	// PoolsListed: the task executor's pools, with their hosts.
	Pools, PoolHosts, PoolRefreshing, PoolsListed bool
	// PoolSettingsRead: a getParameter reply of the router's pool
	// settings; PoolMaxSize is ShardingTaskExecutorPoolMaxSize from it,
	// 0 where it sets no limit.
	PoolSettingsRead bool
	PoolMaxSize      float64
}

// ViewHost reads one host's replies, keyed by command name (serverStatus,
// hello or isMaster, buildInfo, hostInfo, replSetGetStatus,
// connPoolStats, getCmdLineOpts, getParameter of a router's pool
// settings), through the parsers the samplers use.
func ViewHost(replies map[string]bson.Raw) HostView {
	snap := parseServerStatus(replies["serverStatus"], time.Time{})
	e := RoleEvidence{Hello: replies["hello"], ReplSetGetStatus: replies["replSetGetStatus"],
		ConnPoolStats: replies["connPoolStats"], CmdLineOpts: replies["getCmdLineOpts"]}
	if e.Hello == nil && replies["isMaster"] != nil {
		e.Hello, e.IsMaster = replies["isMaster"], true
	}
	role := DecideRole(e)
	v := HostView{Process: snap.process, Version: snap.version, Role: role.Role, RoleEvidence: role.Evidence,
		SetName: role.SetName, Router: role.Role == RoleMongos}
	if v.Version == "" {
		v.Version = newReply("buildInfo", replies["buildInfo"]).str("version")
	}
	side := func(t *ticketSide) (tickets, queue bool) {
		if t == nil {
			return false, false
		}
		return t.available != nil && t.out != nil, t.queueLength != nil || t.queuedMicros != nil
	}
	v.TicketsRead, v.QueueRead = side(snap.ticketsRead)
	v.TicketsWrite, v.QueueWrite = side(snap.ticketsWrite)
	v.QueueRead = v.QueueRead || snap.queueReaders != nil
	v.QueueWrite = v.QueueWrite || snap.queueWriters != nil
	v.CPU = snap.cpuUserUS != nil && snap.cpuSysUS != nil
	v.Latency = snap.readLatency != nil && snap.readOps != nil && snap.writeLatency != nil && snap.writeOps != nil
	v.Network = snap.netIn != nil && snap.netOut != nil
	v.Establishment = snap.estQueued != nil || snap.estRejected != nil || snap.ingress.queued != nil || snap.ingress.rejected != nil
	if hi, ok := replies["hostInfo"]; ok {
		v.Cores = parseHostInfo(hi).cores != nil
	}
	if cps, ok := replies["connPoolStats"]; ok {
		total, hosts, exec := parseConnPoolStats(cps)
		v.Pools = total != nil
		for _, h := range hosts {
			v.PoolHosts = v.PoolHosts || h.inUse != nil && h.available != nil
			v.PoolRefreshing = v.PoolRefreshing || h.refreshing != nil
		}
		v.PoolsListed = len(exec) > 0
	}
	if gp, ok := replies["getParameter"]; ok {
		var p routerPoolParams
		parseRouterPoolParams(gp, &p)
		set := results.RouterPoolSettings{MaxSize: p.maxSize}
		v.PoolSettingsRead = p.maxSize != nil
		v.PoolMaxSize, _ = set.MaxSizeLimit()
	}
	return v
}
