package telemetry

import (
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
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
	// Role is "router", "replica-set primary", "replica-set secondary"
	// (replSetGetStatus says so), "replica-set member" (hello names a set
	// and this host is not its writable primary; hello does not say more
	// among the fields poolsweep reads), or "standalone" (a mongod that
	// reports no replica set).
	Role string
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
	// Pools: connPoolStats totals (a router).
	Pools bool
}

// noServerStatus is the role of a host whose replies cannot decide it.
const noServerStatus = "not decided (no hello, serverStatus or replSetGetStatus among its replies)"

// routerOf decides from replies, as the sampler does from its own hello
// (askRole), whether the host is a mongos: its hello or isMaster says
// msg isdbgrid. Never from serverStatus.process, which on a Windows
// service is the executable's path. Replies without a hello (an FTDC
// folder) show a router by its connPoolStats, which only a mongos
// collects there and which --save-replies asks of a router only.
func routerOf(replies map[string]bson.Raw) bool {
	for _, cmd := range []string{"hello", "isMaster"} {
		if h, ok := replies[cmd]; ok && h != nil {
			return isRouter(h)
		}
	}
	return replies["connPoolStats"] != nil
}

// ViewHost reads one host's replies, keyed by command name (serverStatus,
// hello or isMaster, buildInfo, hostInfo, replSetGetStatus,
// connPoolStats), through the parsers the samplers use.
func ViewHost(replies map[string]bson.Raw) HostView {
	snap := parseServerStatus(replies["serverStatus"], time.Time{})
	v := HostView{Process: snap.process, Version: snap.version, Router: routerOf(replies)}
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
		total, _ := parseConnPoolStats(cps)
		v.Pools = total != nil
	}
	v.Role = "standalone"
	switch {
	case replies["serverStatus"] == nil && replies["hello"] == nil && replies["isMaster"] == nil && replies["replSetGetStatus"] == nil:
		v.Role = noServerStatus
	case v.Router:
		v.Role = "router"
	case replies["hello"] != nil || replies["isMaster"] != nil:
		cmd := "hello"
		if replies["hello"] == nil {
			cmd = "isMaster"
		}
		hi := parseHello(cmd, replies[cmd])
		if hi.setName == "" && replies["serverStatus"] == nil {
			v.Role = noServerStatus
		}
		if hi.setName != "" {
			v.SetName = hi.setName
			v.Role = "replica-set member"
			if hi.writablePrimary {
				v.Role = "replica-set primary"
			}
		}
	case replies["replSetGetStatus"] != nil:
		for _, m := range parseReplSetGetStatus(replies["replSetGetStatus"]) {
			if !m.self {
				continue
			}
			v.SetName = newReply("replSetGetStatus", replies["replSetGetStatus"]).str("set")
			switch m.state {
			case "PRIMARY":
				v.Role = "replica-set primary"
			case "SECONDARY":
				v.Role = "replica-set secondary"
			default:
				v.Role = "replica-set member"
			}
		}
	}
	return v
}
