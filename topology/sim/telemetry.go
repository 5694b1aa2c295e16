package sim

import (
	"math"
	"os"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// telemetry holds one listening server's counters. Every field is counted
// as the events happen; serverStatus reports them as they are.
type telemetry struct {
	connCurrent, connCreated atomic.Int64
	// connRejected counts connections refused at maxIncomingConnections
	// and, from 8.2, by the establishment rate limiter
	// (connections.rejected, 6.3+).
	connRejected atomic.Int64
	// inFlight counts requests being handled; each connection runs one at a
	// time, so it is also the number of connections with an op in progress.
	inFlight atomic.Int64

	insert, query, update, delete, getmore, command atomic.Int64
	// hellos counts the hello and isMaster commands answered, which
	// hello_cost charges CPU time for.
	hellos atomic.Int64

	// Latencies in microseconds, from the request being parsed to its reply
	// being built, queueing included.
	readLat, writeLat, cmdLat atomic.Int64
	readOps, writeOps, cmdOps atomic.Int64

	bytesIn, bytesOut, numRequests atomic.Int64

	// top is the time and count of data operations per namespace (the top
	// command, top.go).
	top topTable
}

// reset zeroes the counters of a restarted process (a router restart):
// the connections still open drain connCurrent and inFlight themselves.
func (t *telemetry) reset() {
	for _, c := range []*atomic.Int64{&t.connCreated, &t.connRejected, &t.insert, &t.query, &t.update, &t.delete,
		&t.getmore, &t.command, &t.readLat, &t.writeLat, &t.cmdLat, &t.readOps, &t.writeOps, &t.cmdOps,
		&t.bytesIn, &t.bytesOut, &t.numRequests, &t.hellos} {
		c.Store(0)
	}
	t.top.mu.Lock()
	clear(t.top.usage)
	t.top.mu.Unlock()
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

// ticketSide is one side (read or write) of the execution tickets as the
// version reports it: out, available and totalTickets (int32) from the
// side's own pool, and from 7.0 the queue counters of the server's ticket
// holder taken from the same schedule (addedToQueue, queueLength,
// totalTimeQueuedMicros, …). 7.0 puts them on the side itself, queueLength
// and processing as int32; 8.0 puts them, all int64, in an exempt block
// (ops that skip the queue: none here) and a normalPriority block (see
// versions.go for the server source). The simulator's pools keep the size
// the spec gives them: 7.0+ servers resize theirs under load, and a
// simulated one reports the fixed size it really has.
func ticketSide(v serverVersion, s slotSnapshot) bson.D {
	d := bson.D{
		{Key: "out", Value: int32(s.Active())},
		{Key: "available", Value: int32(s.Free)},
		{Key: "totalTickets", Value: int32(s.Total)},
	}
	if !v.queueCounters {
		return d
	}
	queued := int64(s.Queued())
	normal := queueCounters(s.Waited, s.Waited-queued, queued, s.Started, int64(s.Active()), s.Finished,
		s.HoldTotal.Microseconds(), s.Acquired, s.WaitTotal.Microseconds())
	if !v.queueBlocks {
		return append(d, normal...)
	}
	return append(d,
		bson.E{Key: "exempt", Value: queueCounters(0, 0, 0, 0, 0, 0, 0, 0, 0)},
		bson.E{Key: "normalPriority", Value: normal})
}

// queueCounters are one queue's counters, in the server's order. Waiting
// and service times are booked when an op is scheduled (see slotPool), so
// totalTimeQueuedMicros includes the coming wait of ops still queued. All
// are int64, queueLength and processing too, in 7.0 (the real 7.0.1 and
// 7.0.14 captures) as in 8.0.
func queueCounters(added, removed, length, started, processing, finished, processingMicros, admissions, queuedMicros int64) bson.D {
	return bson.D{
		{Key: "addedToQueue", Value: added},
		{Key: "removedFromQueue", Value: removed},
		{Key: "queueLength", Value: length},
		{Key: "startedProcessing", Value: started},
		{Key: "processing", Value: processing},
		{Key: "finishedProcessing", Value: finished},
		{Key: "totalTimeProcessingMicros", Value: processingMicros},
		{Key: "canceled", Value: int64(0)},
		{Key: "newAdmissions", Value: admissions},
		{Key: "totalTimeQueuedMicros", Value: queuedMicros},
	}
}

// serverStatus builds the reply from the counters with the sections, names
// and numeric types of the spec's version and of this server's process (see
// versions.go): a mongos reports no tickets or execution queues, no
// globalLock before 8.0 and no opLatencies before 7.0; a replica-set member
// adds opcountersRepl and repl (replstatus.go); 8.2 adds connection
// admission (ingress.go). A secondary's opcounters and opLatencies count
// what it serves to clients; the writes it applies from its primary show in
// opcountersRepl and, as they hold its write slots, in its tickets and
// globalLock. extra_info and mem describe the process, so they are
// reported only when the simulator is alone in it (AloneInProcess; shared
// among its servers, see processShare): inside the process that drives the
// load they would be the client's.
func (f *frontend) serverStatus() bson.D {
	now := time.Now()
	up := now.Sub(f.since())
	v := f.d.version
	t := &f.tel
	d := bson.D{
		{Key: "host", Value: f.host},
		{Key: "version", Value: v.release()},
		{Key: "process", Value: f.process()},
		{Key: "pid", Value: int64(os.Getpid())},
		// A double holding whole seconds, as the server computes it
		// (mongostat decodes it into an integer and fails on a fraction).
		{Key: "uptime", Value: math.Floor(up.Seconds())},
		{Key: "uptimeMillis", Value: up.Milliseconds()},
		{Key: "uptimeEstimate", Value: int64(up.Seconds())},
		{Key: "localTime", Value: bson.NewDateTimeFromTime(now)},
		{Key: "connections", Value: f.connections()},
	}
	if f.d.alone {
		d = append(d, f.processSections(v)...)
	} else if f.d.spec.ConnMem > 0 {
		d = append(d, f.modelMem(0, 0))
	}
	var reads, writes slotSnapshot
	if !f.router {
		reads, writes = f.shard.reads.snapshot(), f.shard.writes.snapshot()
	}
	if !f.router || v.routerGlobalLock {
		// A router's ops take no global lock: its queue and active
		// clients stay 0 (uncertain: no capture of an 8.0 mongos here).
		d = append(d, bson.E{Key: "globalLock", Value: bson.D{
			{Key: "totalTime", Value: up.Microseconds()},
			{Key: "currentQueue", Value: bson.D{
				{Key: "total", Value: int32(reads.Queued() + writes.Queued())},
				{Key: "readers", Value: int32(reads.Queued())},
				{Key: "writers", Value: int32(writes.Queued())},
			}},
			{Key: "activeClients", Value: bson.D{
				{Key: "total", Value: int32(reads.Active() + writes.Active())},
				{Key: "readers", Value: int32(reads.Active())},
				{Key: "writers", Value: int32(writes.Active())},
			}},
		}})
	}
	d = append(d, bson.E{Key: "network", Value: bson.D{
		{Key: "bytesIn", Value: t.bytesIn.Load()},
		{Key: "bytesOut", Value: t.bytesOut.Load()},
		{Key: "numRequests", Value: t.numRequests.Load()},
	}})
	if !f.router || v.routerLatencies {
		lat := func(us, ops int64) bson.D { return bson.D{{Key: "latency", Value: us}, {Key: "ops", Value: ops}} }
		d = append(d, bson.E{Key: "opLatencies", Value: bson.D{
			{Key: "reads", Value: lat(t.readLat.Load(), t.readOps.Load())},
			{Key: "writes", Value: lat(t.writeLat.Load(), t.writeOps.Load())},
			{Key: "commands", Value: lat(t.cmdLat.Load(), t.cmdOps.Load())},
			{Key: "transactions", Value: lat(0, 0)},
		}})
	}
	counter := func(n int64) any {
		if v.opcounters64 {
			return n
		}
		return int32(n)
	}
	d = append(d, bson.E{Key: "opcounters", Value: bson.D{
		{Key: "insert", Value: counter(t.insert.Load())},
		{Key: "query", Value: counter(t.query.Load())},
		{Key: "update", Value: counter(t.update.Load())},
		{Key: "delete", Value: counter(t.delete.Load())},
		{Key: "getmore", Value: counter(t.getmore.Load())},
		{Key: "command", Value: counter(t.command.Load())},
	}})
	if f.member != nil {
		d = append(d, f.member.replSections(counter)...)
	}
	if !f.router && v.wire >= 8 { // 4.2+: every mongod, a standalone too
		var e electionCounts
		if m := f.member; m != nil {
			m.rs.mu.Lock()
			e = m.elections
			m.rs.mu.Unlock()
		}
		d = append(d, bson.E{Key: "electionMetrics", Value: electionMetrics(e)})
	}
	var queues bson.D
	if !f.router {
		d = append(d, bson.E{Key: "storageEngine", Value: f.storageEngine()})
		tickets := bson.D{{Key: "write", Value: ticketSide(v, writes)}, {Key: "read", Value: ticketSide(v, reads)}}
		if v.queues {
			queues = append(queues, bson.E{Key: "execution", Value: tickets})
			d = append(d, bson.E{Key: "wiredTiger", Value: bson.D{{Key: "uri", Value: "statistics:"}}})
		} else {
			d = append(d, bson.E{Key: "wiredTiger", Value: bson.D{{Key: "uri", Value: "statistics:"}, {Key: "concurrentTransactions", Value: tickets}}})
		}
	}
	if v.ingress {
		queues = append(queues, bson.E{Key: "ingressSessionEstablishment", Value: f.ingress.ingressQueue()})
	}
	if queues != nil {
		d = append(d, bson.E{Key: "queues", Value: queues})
	}
	return d
}

// connections is serverStatus.connections: a shard's clients are its
// routers' connections too, which the routers' pools open and close
// (routerpool.go); from 8.2 a connection waiting for the establishment rate
// limiter is queuedForEstablishment, not current, and available is what
// neither takes.
func (f *frontend) connections() bson.D {
	t := &f.tel
	cur, created := t.connCurrent.Load(), t.connCreated.Load()
	if f.shardServer {
		cur += f.shard.openConns.Load()
		created += f.shard.routerCreated.Load()
	}
	v := f.d.version
	d := bson.D{
		{Key: "current", Value: int32(cur)},
		{Key: "available", Value: int32(max(int64(f.d.spec.connLimit())-cur-f.ingress.waiting(), 0))},
		{Key: "totalCreated", Value: int32(created)},
	}
	if v.connRejected {
		d = append(d, bson.E{Key: "rejected", Value: int32(t.connRejected.Load())})
	}
	d = append(d, bson.E{Key: "active", Value: int32(t.inFlight.Load())})
	if v.ingress {
		d = append(d, f.ingress.ingressConnections()...)
	}
	return d
}
