package telemetry

import (
	"math"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// opcounterNames are the serverStatus.opcounters keys, in MongoDB's order.
var opcounterNames = []string{"insert", "query", "update", "delete", "getmore", "command"}

// ticketSide is one direction (read or write) of the execution admission
// tickets, as queues.execution.<side> (8.0+) or
// wiredTiger.concurrentTransactions.<side> (before) reports it.
type ticketSide struct {
	out, available, total *float64
	// queueLength and queuedMicros are the ticket holder's queue (7.0+):
	// on the side itself (7.0), or its normalPriority and lowPriority
	// blocks added up (8.0; exempt ops never queue).
	queueLength, queuedMicros *float64
}

// poolCounts is one connPoolStats entry: a host's pool, or the totals.
// refreshing counts the connections being opened as well as those being
// health-checked: the server's MaxConnecting caps exactly that number.
type poolCounts struct {
	inUse, available, created, leased, refreshing *float64
	// wasNeverUsed counts connections closed without ever carrying an
	// operation (7.0+, behind a feature flag): churn. Per host only.
	wasNeverUsed *float64
}

// execPools is how a router's task-executor pools (pools.
// NetworkInterfaceTL-TaskExecutorPool-N) hold one shard host in one
// reply: how many list it, and the most in use and being opened in one of
// them, the numbers ShardingTaskExecutorPoolMaxSize and MaxConnecting cap
// per pool. The busiest fields are nil where the pools' host entries
// carry no counts (FTDC's form of the reply).
type execPools struct {
	n                            int
	busiestInUse, busiestRefresh *float64
}

// routerPoolParams are a router's pool settings from getParameter
// (topology.RouterPoolParams); nil is not given.
type routerPoolParams struct {
	maxSize, maxConnecting, poolSize *float64
	notRead                          string
}

// taskExecutorPool says whether a connPoolStats pool is one of the
// sharding task executor's, which carry the router's operations to its
// shards (the others reach the config servers or serve replication).
func taskExecutorPool(name string) bool { return strings.Contains(name, "TaskExecutorPool-") }

// snapshot is the subset of one serverStatus reply (plus, on a router, one
// connPoolStats reply) that a window summary needs. A nil pointer is a field
// the server did not report.
type snapshot struct {
	at           time.Time      // when the reply arrived, on this process's clock
	repl         []memberOptime // replSetGetStatus, on a replica-set member
	process      string         // "mongod", "mongos", or whatever the server says
	version      string
	uptimeMillis *float64

	opcounters map[string]float64 // nil when the section is absent

	connCurrent, connAvailable, connTotalCreated *float64

	readLatency, readOps, writeLatency, writeOps *float64

	queueReaders, queueWriters   *float64
	activeReaders, activeWriters *float64

	ticketsRead, ticketsWrite *ticketSide

	netIn, netOut *float64

	cpuUserUS, cpuSysUS *float64
	residentMB          *float64

	// 8.2's connection-establishment rate limiter: the connections
	// waiting now, its rejections as connections reports them, and its
	// queue's counters (ingressCounters).
	estQueued, estRejected *float64
	ingress                ingressCounters

	// A router's pools: the totals, and per host:port (connPoolStats
	// hosts), of which the window keeps the shards' (poolToShards).
	poolTotal  *poolCounts
	poolHosts  map[string]poolCounts
	poolExec   map[string]execPools
	poolParams *routerPoolParams // read once per window, on its first sample

	// The sampler's own traffic on this host up to this snapshot, so that it
	// can be taken out of the deltas: commands started (including this
	// serverStatus, which the server counts before answering), request bytes
	// sent (including this one) and reply bytes received (excluding this
	// reply, which the server counts only once it is sent).
	ownCommands, ownBytesIn, ownBytesOut float64
}

// reply is one server reply being read: the command it answers, and where
// doc sits in it. Every field poolsweep reads from a server goes through
// its methods, which report each full path to readHook: a test records
// them and holds them to testdata/servers/read-paths.txt.
type reply struct {
	command string
	doc     bson.Raw
	at      []string // path of doc in the whole reply; "*" for any key
}

// readHook, when set (by tests), is told of every field read.
var readHook func(command string, path []string)

func newReply(command string, doc bson.Raw) reply { return reply{command: command, doc: doc} }

// value looks up path below r and reports the read.
func (r reply) value(path ...string) (bson.RawValue, bool) {
	if readHook != nil {
		readHook(r.command, append(append([]string(nil), r.at...), path...))
	}
	if len(r.doc) == 0 {
		return bson.RawValue{}, false
	}
	v, err := r.doc.LookupErr(path...)
	return v, err == nil
}

// num reads a numeric field at path, whatever BSON number type the server
// chose (MongoDB mixes int32, int64 and double across versions and even
// across fields of one section). It returns nil when the field is absent or
// not a finite number.
func (r reply) num(path ...string) *float64 {
	v, ok := r.value(path...)
	if !ok {
		return nil
	}
	return number(v)
}

// str reads a string field at path; "" when absent or not a string.
func (r reply) str(path ...string) string {
	v, ok := r.value(path...)
	if !ok {
		return ""
	}
	s, _ := v.StringValueOK()
	return s
}

// sub returns the sub-document at path (an empty reply when absent): a way
// down, not a read; the fields read below it are reported.
func (r reply) sub(path ...string) reply {
	out := reply{command: r.command, at: append(append([]string(nil), r.at...), path...)}
	if len(r.doc) == 0 {
		return out
	}
	if v, err := r.doc.LookupErr(path...); err == nil {
		out.doc, _ = v.DocumentOK()
	}
	return out
}

// members calls fn for every element of r that is a document, keyed as
// each does ("*" in the path), leaving out a histogram's
// acquisitionWaitTimes, which shares a pool's document with its hosts.
func (r reply) members(fn func(key string, elem reply)) {
	elems, err := r.doc.Elements()
	if err != nil {
		return
	}
	at := append(append([]string(nil), r.at...), "*")
	for _, e := range elems {
		doc, ok := e.Value().DocumentOK()
		if !ok || e.Key() == "acquisitionWaitTimes" {
			continue
		}
		fn(e.Key(), reply{command: r.command, doc: doc, at: at})
	}
}

// present says whether r is a document the server sent.
func (r reply) present() bool { return len(r.doc) > 0 }

// each calls fn for every element of the document or array at path, as a
// reply whose path says "*" for the key. Like sub, it is a way down.
func (r reply) each(path string, fn func(key string, elem reply)) {
	if len(r.doc) == 0 {
		return
	}
	v, err := r.doc.LookupErr(path)
	if err != nil {
		return
	}
	var d bson.Raw
	switch v.Type {
	case bson.TypeEmbeddedDocument:
		d = v.Document()
	case bson.TypeArray:
		d = bson.Raw(v.Array())
	default:
		return
	}
	elems, err := d.Elements()
	if err != nil {
		return
	}
	at := append(append([]string(nil), r.at...), path, "*")
	for _, e := range elems {
		doc, _ := e.Value().DocumentOK()
		fn(e.Key(), reply{command: r.command, doc: doc, at: at})
	}
}

// number is v as a float64, or nil when it is not a finite number.
func number(v bson.RawValue) *float64 {
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

// parseServerStatus extracts a snapshot from one serverStatus reply. It
// never fails: what it cannot read stays nil.
func parseServerStatus(doc bson.Raw, at time.Time) snapshot {
	r := newReply("serverStatus", doc)
	s := snapshot{at: at, process: r.str("process"), version: r.str("version")}
	s.uptimeMillis = r.num("uptimeMillis")

	if oc := r.sub("opcounters"); oc.present() {
		s.opcounters = make(map[string]float64, len(opcounterNames))
		for _, k := range opcounterNames {
			if v := oc.num(k); v != nil {
				s.opcounters[k] = *v
			}
		}
	}

	s.connCurrent = r.num("connections", "current")
	s.connAvailable = r.num("connections", "available")
	s.connTotalCreated = r.num("connections", "totalCreated")

	s.readLatency = r.num("opLatencies", "reads", "latency")
	s.readOps = r.num("opLatencies", "reads", "ops")
	s.writeLatency = r.num("opLatencies", "writes", "latency")
	s.writeOps = r.num("opLatencies", "writes", "ops")

	s.queueReaders = r.num("globalLock", "currentQueue", "readers")
	s.queueWriters = r.num("globalLock", "currentQueue", "writers")
	// activeClients.total counts internal threads too (an idle primary
	// reports dozens): readers and writers are the ops.
	s.activeReaders = r.num("globalLock", "activeClients", "readers")
	s.activeWriters = r.num("globalLock", "activeClients", "writers")

	// 8.0 moved the admission tickets to queues.execution; earlier servers
	// report the same counters under wiredTiger.concurrentTransactions. A
	// server that has both is read from the newer place.
	tickets := r.sub("queues", "execution")
	if !tickets.present() {
		tickets = r.sub("wiredTiger", "concurrentTransactions")
	}
	s.ticketsRead = parseTicketSide(tickets.sub("read"))
	s.ticketsWrite = parseTicketSide(tickets.sub("write"))

	s.netIn = r.num("network", "bytesIn")
	s.netOut = r.num("network", "bytesOut")

	// The server's CPU time is in extra_info on Linux (getrusage, 4.2+)
	// and nowhere on Windows, whose extra_info has page faults, the page
	// file and RAM only (mongodb/mongo processinfo_windows.cpp): there the
	// server's CPU stays nil, "not reported", never zero.
	s.cpuUserUS = r.num("extra_info", "user_time_us")
	s.cpuSysUS = r.num("extra_info", "system_time_us")
	s.residentMB = r.num("mem", "resident")

	s.estQueued = r.num("connections", "queuedForEstablishment")
	s.estRejected = r.num("connections", "establishmentRateLimit", "rejected")
	s.ingress = parseIngress(r.sub("queues", "ingressSessionEstablishment"))
	return s
}

// ingressCounters are queues.ingressSessionEstablishment's counters
// (8.2): connections that asked the establishment rate limiter for a
// token, got one, waited in its queue, were rejected, or left the queue
// without one.
type ingressCounters struct {
	attempted, admitted, queued, rejected, interrupted *float64
}

func parseIngress(q reply) ingressCounters {
	return ingressCounters{
		attempted: q.num("attemptedAdmissions"), admitted: q.num("successfulAdmissions"),
		queued: q.num("addedToQueue"), rejected: q.num("rejectedAdmissions"), interrupted: q.num("interruptedInQueue"),
	}
}

// parseTicketSide reads one side of the tickets, in every shape a real
// server gives it: out, available and totalTickets on the side; the queue
// (queueLength, totalTimeQueuedMicros) on the side itself in 7.0, and in
// the normalPriority and lowPriority blocks from 8.0 (added up: both are
// ops waiting for this side's tickets).
func parseTicketSide(d reply) *ticketSide {
	if !d.present() {
		return nil
	}
	t := &ticketSide{out: d.num("out"), available: d.num("available"), total: d.num("totalTickets")}
	for _, q := range []reply{d, d.sub("normalPriority"), d.sub("lowPriority")} {
		t.queueLength = sumPtr(t.queueLength, q.num("queueLength"))
		t.queuedMicros = sumPtr(t.queuedMicros, q.num("totalTimeQueuedMicros"))
	}
	if t.out == nil && t.available == nil && t.queueLength == nil && t.queuedMicros == nil {
		return nil
	}
	return t
}

// parseConnPoolStats reads a router's connPoolStats: the totals, each
// host's pool (hosts, from which the window keeps the shards': the
// totals cover the config servers too), and how the task executor's pools
// hold each host (pools). leased is 5.0+; pools is absent from some
// versions' replies.
func parseConnPoolStats(doc bson.Raw) (total *poolCounts, hosts map[string]poolCounts, exec map[string]execPools) {
	r := newReply("connPoolStats", doc)
	t := poolCounts{inUse: r.num("totalInUse"), available: r.num("totalAvailable"), created: r.num("totalCreated"),
		leased: r.num("totalLeased"), refreshing: r.num("totalRefreshing")}
	if t != (poolCounts{}) {
		total = &t
	}
	r.each("hosts", func(host string, h reply) {
		if hosts == nil {
			hosts = map[string]poolCounts{}
		}
		hosts[host] = poolCounts{inUse: h.num("inUse"), available: h.num("available"), created: h.num("created"),
			leased: h.num("leased"), refreshing: h.num("refreshing"), wasNeverUsed: h.num("wasNeverUsed")}
	})
	r.each("pools", func(name string, p reply) {
		p.members(func(host string, h reply) {
			inUse, refreshing := h.num("inUse"), h.num("refreshing")
			if !taskExecutorPool(name) {
				return
			}
			if exec == nil {
				exec = map[string]execPools{}
			}
			e := exec[host]
			e.n++
			e.busiestInUse = larger(e.busiestInUse, inUse)
			e.busiestRefresh = larger(e.busiestRefresh, refreshing)
			exec[host] = e
		})
	})
	return total, hosts, exec
}

// larger is the larger of a and b; nil when neither is set.
func larger(a, b *float64) *float64 {
	if a == nil || b != nil && *b > *a {
		return b
	}
	return a
}

// addConnPoolStats copies a router's connPoolStats into s.
func (s *snapshot) addConnPoolStats(doc bson.Raw) {
	s.poolTotal, s.poolHosts, s.poolExec = parseConnPoolStats(doc)
}

// parseRouterPoolParams reads a getParameter reply of the router's pool
// settings into p (the names it holds; the others stay as they are).
func parseRouterPoolParams(doc bson.Raw, p *routerPoolParams) {
	r := newReply("getParameter", doc)
	for name, dst := range map[string]**float64{"ShardingTaskExecutorPoolMaxSize": &p.maxSize,
		"ShardingTaskExecutorPoolMaxConnecting": &p.maxConnecting, "taskExecutorPoolSize": &p.poolSize} {
		if v := r.num(name); v != nil {
			*dst = v
		}
	}
}

// shardInfo is one listShards entry: the shard's name and its hosts, with
// the replica set name when the shard is one (host "rs1/h1:27018,h2:27018";
// a bare "h1:27018" is a standalone shard).
type shardInfo struct {
	name, setName string
	hosts         []string
}

// parseListShards returns the shards of a listShards reply.
func parseListShards(doc bson.Raw) []shardInfo {
	var out []shardInfo
	newReply("listShards", doc).each("shards", func(_ string, d reply) {
		name := d.str("_id")
		if name == "" {
			return
		}
		sh := shardInfo{name: name}
		hosts := d.str("host")
		if set, rest, ok := strings.Cut(hosts, "/"); ok {
			sh.setName, hosts = set, rest
		}
		for h := range strings.SplitSeq(hosts, ",") {
			if h = strings.TrimSpace(h); h != "" {
				sh.hosts = append(sh.hosts, h)
			}
		}
		out = append(out, sh)
	})
	return out
}

// hostInfo is what a hostInfo reply says about the server's machine.
type hostInfo struct {
	// cores is system.numCoresAvailableToProcess (newer servers; it follows
	// CPU affinity) when positive, else system.numCores; nil when neither
	// is a positive whole number.
	cores *int
	// memLimited: system.memLimitMB is below system.memSizeMB, as in a
	// container with a memory limit, where a CPU quota (which numCores does
	// not follow) is likely too.
	memLimited bool
}

// parseHostInfo reads a hostInfo reply.
func parseHostInfo(doc bson.Raw) hostInfo {
	r := newReply("hostInfo", doc)
	var hi hostInfo
	for _, key := range []string{"numCoresAvailableToProcess", "numCores"} {
		v := r.num("system", key)
		if v == nil || *v < 1 || *v != math.Trunc(*v) || *v > 1<<20 {
			continue
		}
		n := int(*v)
		hi.cores = &n
		break
	}
	limit, size := r.num("system", "memLimitMB"), r.num("system", "memSizeMB")
	hi.memLimited = limit != nil && size != nil && *limit > 0 && *limit < *size
	return hi
}

// helloInfo is what a hello (or isMaster) reply of a replica-set member
// says about the set: the member's own address and the primary's.
type helloInfo struct {
	setName, me, primary string
	writablePrimary      bool
}

// parseHello reads a hello or isMaster reply (command names which).
func parseHello(command string, doc bson.Raw) helloInfo {
	r := newReply(command, doc)
	key := "isWritablePrimary"
	if command != "hello" {
		key = "ismaster"
	}
	v, _ := r.value(key)
	w, _ := v.BooleanOK()
	return helloInfo{setName: r.str("setName"), me: r.str("me"), primary: r.str("primary"), writablePrimary: w}
}
