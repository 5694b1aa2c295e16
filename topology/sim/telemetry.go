package sim

import (
	"os"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// telemetry holds one listening server's counters. Every field is counted
// as the events happen; serverStatus reports them as they are.
type telemetry struct {
	connCurrent, connCreated atomic.Int64
	// inFlight counts requests being handled; each connection runs one at a
	// time, so it is also the number of connections with an op in progress.
	inFlight atomic.Int64

	insert, query, update, delete, getmore, command atomic.Int64

	// Latencies in microseconds, from the request being parsed to its reply
	// being built, queueing included.
	readLat, writeLat, cmdLat atomic.Int64
	readOps, writeOps, cmdOps atomic.Int64

	bytesIn, bytesOut, numRequests atomic.Int64
}

// record adds one finished command's latency to its class.
func (t *telemetry) record(kind opKind, d time.Duration) {
	us := d.Microseconds()
	switch kind {
	case kindRead:
		t.readLat.Add(us)
		t.readOps.Add(1)
	case kindWrite:
		t.writeLat.Add(us)
		t.writeOps.Add(1)
	default:
		t.cmdLat.Add(us)
		t.cmdOps.Add(1)
	}
}

// ticketDoc is one ticket pool in the shape of queues.execution.<kind> and
// wiredTiger.concurrentTransactions.<kind>. The simulator has one pool shared
// by reads and writes, so both kinds report the shared pool's size and free
// slots and their own holders: read.out + write.out + available = totalTickets.
func ticketDoc(out, available, total int) bson.D {
	return bson.D{
		{Key: "out", Value: int32(out)},
		{Key: "available", Value: int32(available)},
		{Key: "totalTickets", Value: int32(total)},
	}
}

// serverStatus builds the reply from the counters, with MongoDB's field
// names and numeric types. extra_info (process CPU) is left out on purpose:
// the simulator usually runs inside the process that drives the load, so
// its CPU time could not be told apart from the client's.
func (f *frontend) serverStatus() bson.D {
	now := time.Now()
	up := now.Sub(f.d.started)
	s := f.exec.snapshot()
	t := &f.tel
	cur := t.connCurrent.Load()
	role := "standalone"
	if f.router {
		role = "router"
	}
	tickets := bson.D{
		{Key: "write", Value: ticketDoc(s.ActiveWrites, s.Free, s.Total)},
		{Key: "read", Value: ticketDoc(s.ActiveReads, s.Free, s.Total)},
	}
	return bson.D{
		{Key: "host", Value: f.host},
		{Key: "version", Value: simVersion},
		{Key: "process", Value: f.process()},
		{Key: "pid", Value: int64(os.Getpid())},
		{Key: "uptime", Value: up.Seconds()},
		{Key: "uptimeMillis", Value: up.Milliseconds()},
		{Key: "uptimeEstimate", Value: int64(up.Seconds())},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(now)},
		{Key: "connections", Value: bson.D{
			{Key: "current", Value: int32(cur)},
			{Key: "available", Value: int32(maxIncomingConnections - cur)},
			{Key: "totalCreated", Value: int32(t.connCreated.Load())},
			{Key: "active", Value: int32(t.inFlight.Load())},
		}},
		{Key: "globalLock", Value: bson.D{
			{Key: "totalTime", Value: up.Microseconds()},
			{Key: "currentQueue", Value: bson.D{
				{Key: "total", Value: int32(s.QueuedReads + s.QueuedWrites)},
				{Key: "readers", Value: int32(s.QueuedReads)},
				{Key: "writers", Value: int32(s.QueuedWrites)},
			}},
			{Key: "activeClients", Value: bson.D{
				{Key: "total", Value: int32(s.ActiveReads + s.ActiveWrites)},
				{Key: "readers", Value: int32(s.ActiveReads)},
				{Key: "writers", Value: int32(s.ActiveWrites)},
			}},
		}},
		{Key: "network", Value: bson.D{
			{Key: "bytesIn", Value: t.bytesIn.Load()},
			{Key: "bytesOut", Value: t.bytesOut.Load()},
			{Key: "numRequests", Value: t.numRequests.Load()},
		}},
		{Key: "opLatencies", Value: bson.D{
			{Key: "reads", Value: bson.D{{Key: "latency", Value: t.readLat.Load()}, {Key: "ops", Value: t.readOps.Load()}}},
			{Key: "writes", Value: bson.D{{Key: "latency", Value: t.writeLat.Load()}, {Key: "ops", Value: t.writeOps.Load()}}},
			{Key: "commands", Value: bson.D{{Key: "latency", Value: t.cmdLat.Load()}, {Key: "ops", Value: t.cmdOps.Load()}}},
		}},
		{Key: "opcounters", Value: bson.D{
			{Key: "insert", Value: t.insert.Load()},
			{Key: "query", Value: t.query.Load()},
			{Key: "update", Value: t.update.Load()},
			{Key: "delete", Value: t.delete.Load()},
			{Key: "getmore", Value: t.getmore.Load()},
			{Key: "command", Value: t.command.Load()},
		}},
		{Key: "queues", Value: bson.D{{Key: "execution", Value: tickets}}},
		{Key: "wiredTiger", Value: bson.D{{Key: "concurrentTransactions", Value: tickets}}},
		{Key: "poolsweepSimulator", Value: bson.D{
			{Key: "spec", Value: f.d.spec.String()},
			{Key: "role", Value: role},
			{Key: "maxQueue", Value: int32(s.MaxQueued)},
		}},
	}
}

// connPoolStats reports a router's connections to its shards; a standalone
// has none, so it reports zeros, as a mongod without outgoing pools does.
func (f *frontend) connPoolStats() bson.D {
	var inUse, avail, created int
	hosts := bson.D{}
	for _, p := range f.pools {
		u, a, c := p.counts()
		inUse, avail, created = inUse+u, avail+a, created+c
		hosts = append(hosts, bson.E{Key: p.shard.host[len(p.shard.name)+1:], Value: bson.D{
			{Key: "inUse", Value: int32(u)},
			{Key: "available", Value: int32(a)},
			{Key: "leased", Value: int32(0)},
			{Key: "created", Value: int32(c)},
			{Key: "refreshing", Value: int32(0)},
		}})
	}
	return bson.D{
		{Key: "numClientConnections", Value: int32(f.tel.connCurrent.Load())},
		{Key: "numAScopedConnections", Value: int32(0)},
		{Key: "totalInUse", Value: int32(inUse)},
		{Key: "totalAvailable", Value: int32(avail)},
		{Key: "totalLeased", Value: int32(0)},
		{Key: "totalCreated", Value: int32(created)},
		{Key: "totalRefreshing", Value: int32(0)},
		{Key: "hosts", Value: hosts},
	}
}
