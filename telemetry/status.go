package telemetry

import (
	"math"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// opcounterNames are the serverStatus.opcounters keys, in MongoDB's order.
var opcounterNames = []string{"insert", "query", "update", "delete", "getmore", "command"}

// ticketSide is one direction (read or write) of the execution admission
// tickets, as queues.execution.<side> (8.0+) or
// wiredTiger.concurrentTransactions.<side> (before) reports it.
type ticketSide struct {
	out, available, queueLength *float64
}

// snapshot is the subset of one serverStatus reply (plus, on a router, one
// connPoolStats reply) that a window summary needs. A nil pointer is a field
// the server did not report.
type snapshot struct {
	at           time.Time // when the reply arrived, on this process's clock
	process      string    // "mongod", "mongos", or whatever the server says
	uptimeMillis *float64

	opcounters map[string]float64 // nil when the section is absent

	connCurrent, connAvailable, connTotalCreated *float64

	readLatency, readOps, writeLatency, writeOps *float64

	queueReaders, queueWriters, activeClients *float64

	ticketsRead, ticketsWrite *ticketSide

	netIn, netOut *float64

	cpuUserUS, cpuSysUS *float64
	residentMB          *float64

	poolInUse, poolAvailable, poolCreated *float64

	// The sampler's own traffic on this host up to this snapshot, so that it
	// can be taken out of the deltas: commands started (including this
	// serverStatus, which the server counts before answering), request bytes
	// sent (including this one) and reply bytes received (excluding this
	// reply, which the server counts only once it is sent).
	ownCommands, ownBytesIn, ownBytesOut float64
}

// num reads a numeric field at path, whatever BSON number type the server
// chose (MongoDB mixes int32, int64 and double across versions and even
// across fields of one section). It returns nil when the field is absent or
// not a finite number.
func num(doc bson.Raw, path ...string) *float64 {
	if len(doc) == 0 {
		return nil
	}
	v, err := doc.LookupErr(path...)
	if err != nil {
		return nil
	}
	var f float64
	switch v.Type {
	case bson.TypeInt32:
		f = float64(v.Int32())
	case bson.TypeInt64:
		f = float64(v.Int64())
	case bson.TypeDouble:
		f = v.Double()
	case bson.TypeDecimal128:
		d, ok := v.Decimal128OK()
		if !ok {
			return nil
		}
		x, err := strconv.ParseFloat(d.String(), 64)
		if err != nil {
			return nil
		}
		f = x
	default:
		return nil
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

// sub returns the sub-document at path, or nil.
func sub(doc bson.Raw, path ...string) bson.Raw {
	if len(doc) == 0 {
		return nil
	}
	v, err := doc.LookupErr(path...)
	if err != nil {
		return nil
	}
	d, ok := v.DocumentOK()
	if !ok {
		return nil
	}
	return d
}

// parseServerStatus extracts a snapshot from one serverStatus reply. It
// never fails: what it cannot read stays nil.
func parseServerStatus(doc bson.Raw, at time.Time) snapshot {
	s := snapshot{at: at}
	if v, err := doc.LookupErr("process"); err == nil {
		s.process, _ = v.StringValueOK()
	}
	s.uptimeMillis = num(doc, "uptimeMillis")

	if oc := sub(doc, "opcounters"); oc != nil {
		s.opcounters = make(map[string]float64, len(opcounterNames))
		for _, k := range opcounterNames {
			if v := num(oc, k); v != nil {
				s.opcounters[k] = *v
			}
		}
	}

	s.connCurrent = num(doc, "connections", "current")
	s.connAvailable = num(doc, "connections", "available")
	s.connTotalCreated = num(doc, "connections", "totalCreated")

	s.readLatency = num(doc, "opLatencies", "reads", "latency")
	s.readOps = num(doc, "opLatencies", "reads", "ops")
	s.writeLatency = num(doc, "opLatencies", "writes", "latency")
	s.writeOps = num(doc, "opLatencies", "writes", "ops")

	s.queueReaders = num(doc, "globalLock", "currentQueue", "readers")
	s.queueWriters = num(doc, "globalLock", "currentQueue", "writers")
	s.activeClients = num(doc, "globalLock", "activeClients", "total")

	// 8.0 moved the admission tickets to queues.execution; earlier servers
	// report the same counters under wiredTiger.concurrentTransactions. A
	// server that has both is read from the newer place.
	tickets := sub(doc, "queues", "execution")
	if tickets == nil {
		tickets = sub(doc, "wiredTiger", "concurrentTransactions")
	}
	s.ticketsRead = parseTicketSide(sub(tickets, "read"))
	s.ticketsWrite = parseTicketSide(sub(tickets, "write"))

	s.netIn = num(doc, "network", "bytesIn")
	s.netOut = num(doc, "network", "bytesOut")

	s.cpuUserUS = num(doc, "extra_info", "user_time_us")
	s.cpuSysUS = num(doc, "extra_info", "system_time_us")
	s.residentMB = num(doc, "mem", "resident")
	return s
}

func parseTicketSide(d bson.Raw) *ticketSide {
	if d == nil {
		return nil
	}
	t := &ticketSide{
		out:         num(d, "out"),
		available:   num(d, "available"),
		queueLength: num(d, "queueLength"),
	}
	if t.out == nil && t.available == nil && t.queueLength == nil {
		return nil
	}
	return t
}

// addConnPoolStats copies a router's connPoolStats totals into s.
func (s *snapshot) addConnPoolStats(doc bson.Raw) {
	s.poolInUse = num(doc, "totalInUse")
	s.poolAvailable = num(doc, "totalAvailable")
	s.poolCreated = num(doc, "totalCreated")
}

// parseListShards returns the shard names of a listShards reply.
func parseListShards(doc bson.Raw) []string {
	arr, ok := doc.Lookup("shards").ArrayOK()
	if !ok {
		return nil
	}
	vals, err := arr.Values()
	if err != nil {
		return nil
	}
	var names []string
	for _, sv := range vals {
		d, ok := sv.DocumentOK()
		if !ok {
			continue
		}
		if name, ok := d.Lookup("_id").StringValueOK(); ok {
			names = append(names, name)
		}
	}
	return names
}

// parseHostInfoCores returns the logical cores a hostInfo reply says the
// server may use: system.numCoresAvailableToProcess (newer servers; it
// follows CPU affinity) when positive, else system.numCores. Nil when
// neither is a positive whole number.
func parseHostInfoCores(doc bson.Raw) *int {
	for _, key := range []string{"numCoresAvailableToProcess", "numCores"} {
		v := num(doc, "system", key)
		if v == nil || *v < 1 || *v != math.Trunc(*v) || *v > 1<<20 {
			continue
		}
		n := int(*v)
		return &n
	}
	return nil
}
