package sim

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// ErrSpec is wrapped by every error ParseSpec and Spec.Validate return, so a
// caller can tell bad input (exit 2) from a failed start.
var ErrSpec = errors.New("sim spec")

// Defaults used for keys a spec leaves out. They make the bare spec "" a
// standalone server whose ground truth is the calibration case:
// 8 slots of 2ms, peak 4000 ops/s, knee at 8.
const (
	defaultSlots       = 8
	defaultService     = 2 * time.Millisecond
	DefaultRouters     = 1
	DefaultRouterSlots = 64
	DefaultRouterCost  = 50 * time.Microsecond
	// defaultReplLag and defaultElection apply to a replica set (rs=N):
	// the time a write takes to reach a secondary before it queues for the
	// secondary's write slots, and the time from a primary stepping down to
	// a secondary being elected.
	defaultReplLag  = time.Millisecond
	defaultElection = 300 * time.Millisecond
	// defaultReplWriters is how many writes a secondary applies at once
	// (of its write slots), a real secondary's replWriterThreadCount
	// default.
	defaultReplWriters = 16
	// DefaultRouterRestart is how long a router the simulator's
	// routerRestart event takes down stays down (sharded only): about
	// what a mongos takes to start and reach its config servers.
	DefaultRouterRestart = 5 * time.Second
)

// Upper bounds keep a typo (slots=80000000, service=2h) from starting a
// deployment that would look hung.
const (
	maxSlots    = 100000
	maxShards   = 64
	maxRouters  = 16
	maxService  = 10 * time.Second
	maxConnCost = time.Second
	// maxSetupLatency stays well under the drivers' connectTimeoutMS (30 s
	// by default), which bounds a real handshake: a longer setup fails
	// rather than waits.
	maxSetupLatency = 10 * time.Second
	maxCores        = 4096
	// maxMembers is a replica set's largest size: 7 voting members, as a
	// real set allows.
	maxMembers  = 7
	maxReplLag  = 10 * time.Second
	maxElection = time.Minute
	// maxRouterRestart bounds router_restart as maxElection bounds an
	// election: a longer outage would look like a hung run.
	maxRouterRestart = time.Minute
)

// Spec describes a simulated deployment. The zero value is not valid; use
// ParseSpec or DefaultSpec. All durations are per operation.
type Spec struct {
	// Shards is the number of simulated shards behind the routers; 0 means a
	// standalone mongod without routers.
	Shards int
	// Slots is the number of execution slots (tickets) of each kind, read
	// and write, of the standalone server or of each shard, unless ReadSlots
	// or WriteSlots says otherwise: reads and writes queue apart, as for a
	// real server's read and write tickets.
	Slots int
	// ReadSlots and WriteSlots size the read and the write pool apart; 0
	// means Slots.
	ReadSlots, WriteSlots int
	// Service is the base time a data operation holds a slot: a point
	// read (a find or count by _id equality), and any shape class whose
	// own service time is left out.
	Service time.Duration
	// ScanService, AggService and WriteService are the base times of the
	// other shape classes (shapecost.go): scans (a find, count or distinct
	// not by _id equality, or with a sort or a limit above 1), aggregations,
	// and writes (insert, update, delete, findAndModify). 0 means Service,
	// so a spec that leaves them out costs every op as before.
	ScanService, AggService, WriteService time.Duration
	// ExaminedCost is added to an op's service time per document it
	// examines (shapecost.go says what the simulator counts as examined);
	// 0 charges nothing.
	ExaminedCost time.Duration
	// ConnCost is extra slot-holding time per connection open to that server
	// (client connections for a standalone, router connections for a shard).
	ConnCost time.Duration
	// AcceptCost is the time the server spends setting up each new
	// connection (accepting it, its handshake and authentication, as TLS
	// and SCRAM cost a real server) before it reads the connection's first
	// request. Connections are set up one at a time, in arrival order, so
	// a server accepts at most 1/AcceptCost connections per second: a
	// connection storm has a known answer (see "Connection setup" in the
	// package documentation). 0 means free.
	AcceptCost time.Duration
	// SetupLatency is the time each new connection's setup takes apart
	// from the server's serial acceptor: the round trips a real connection
	// costs before it can carry an operation (TCP's, TLS's, the hello and
	// the authentication conversation's) and the server's work for them
	// that does not queue. Every connection pays it at once, in parallel
	// with the others: its first request is answered SetupLatency after
	// the acceptor has set it up, so a driver opening maxConnecting
	// connections at a time fills a pool at a known pace (see "Connection
	// setup" in the package documentation). 0 means none.
	SetupLatency time.Duration
	// Jitter is the relative half-width of uniform noise on the service time,
	// in [0, 1]: 0.1 means each op takes service·U(0.9, 1.1).
	Jitter float64
	// Routers is the number of mongos-like routers, each on its own port
	// (sharded only).
	Routers int
	// RouterSlots is the number of execution slots of each router (sharded only).
	RouterSlots int
	// RouterCost is the time a client operation holds a router slot before it
	// is forwarded to the shards (sharded only).
	RouterCost time.Duration
	// RouterRestart is how long a router stays down after the
	// simulator's routerRestart event (sharded only; 0 means
	// DefaultRouterRestart): its listener is closed, so connecting is
	// refused, and it listens again on the same port with fresh counters.
	RouterRestart time.Duration
	// RouterPools, RouterPoolMax, RouterPoolMin, RouterMaxConnecting and
	// RouterHostTimeout size each router's own pools to its shards, as a
	// mongos's taskExecutorPoolSize, ShardingTaskExecutorPoolMaxSize,
	// MinSize, MaxConnecting and HostTimeoutMS do (sharded only; 0, and
	// RouterPoolMinSet false, take the version's defaults). See
	// routerpool.go and spec_routerpool.go.
	RouterPools, RouterPoolMax, RouterPoolMin, RouterMaxConnecting int
	RouterPoolMinSet                                               bool
	RouterHostTimeout                                              time.Duration
	// TestCommands starts every server as with --setParameter
	// enableTestCommands=1: configureFailPoint exists (the failCommand
	// fail point) and getParameter reports enableTestCommands true. A real
	// server without it has no configureFailPoint command at all.
	TestCommands bool
	// Cores is the core count hostInfo reports (system.numCores); 0 reports
	// this machine's (runtime.NumCPU). It changes nothing else: capacity is
	// slots and service time. Tests set it to check what poolsweep does
	// with a server's core count.
	Cores int
	// Members is the number of members of a replica set (rs=N): a primary
	// and N-1 secondaries, each a server on its own port with its own slots
	// and data; 0 means no replica set.
	Members int
	// ReplLag is the time a write applied on the primary takes to reach
	// each secondary, which then applies it through its own write slots
	// (replica sets only).
	ReplLag time.Duration
	// ElectionDelay is the time from a primary stepping down to a secondary
	// being elected (replica sets only); no member is writable in between.
	ElectionDelay time.Duration
	// ReplWriters is how many of a secondary's write slots its oplog
	// application may hold at once (replica sets only), as a real
	// secondary applies with replWriterThreadCount threads.
	ReplWriters int
	// IngressLimiter turns on 8.2's connection-establishment rate limiter
	// on every listening server (any ingress_* key does;
	// ingressConnectionEstablishmentRateLimiterEnabled, off by default as
	// on a real server). IngressRate is its
	// ingressConnectionEstablishmentRatePerSec (connections a second;
	// default 2147483647), IngressBurst its
	// ingressConnectionEstablishmentBurstCapacitySecs (seconds of rate the
	// bucket holds; default +Inf, so the rate alone never limits, as the
	// server's defaults), IngressQueue its
	// ingressConnectionEstablishmentMaxQueueDepth (default 0: a connection
	// that would wait is rejected). See spec_ingress.go.
	IngressLimiter bool
	IngressRate    int
	IngressBurst   float64
	IngressQueue   int
	// Version is the MongoDB version the servers answer as ("4.0" … "8.2",
	// or a release of one of them as a server reports it, "7.0.0-rc6";
	// "" means defaultVersion): it shapes every reply the way that version's
	// real mongod or mongos shapes it (see versions.go).
	Version string
	// ConnMem is the resident memory in bytes each open connection adds
	// to the server it is open to (conn_mem=BYTES, with KiB or MiB):
	// serverStatus.mem.resident grows by it per connection, as a real
	// server's grows with each connection's thread stack and buffers
	// (spec_conncost.go). 0 adds nothing.
	ConnMem int64
	// MaxConns is each listening server's connection limit
	// (max_conns=N, net.maxIncomingConnections): a connection beyond it
	// is closed at once, counted in connections.rejected, and
	// connections.available is the limit less current, as a real server
	// reports it. 0 means a real server's default, 1,000,000.
	MaxConns int
	// HelloCost is the CPU time each hello or isMaster costs the server
	// that answers it (hello_cost=D): a monitor's heartbeat, or a new
	// connection's handshake. It adds to the CPU time serverStatus
	// reports (extra_info, reported by a simulator alone in its process)
	// and holds no slot, as a real server answers hello outside its
	// tickets. 0 adds nothing.
	HelloCost time.Duration
	// OS is the platform the servers answer as: "" (this machine's, as
	// built), or "windows", where serverStatus.process is the
	// executable's path, hostInfo's os.type is Windows and extra_info has
	// Windows' fields (windows.go).
	OS string
}

// DefaultSpec returns the standalone spec that the empty string parses to.
func DefaultSpec() Spec {
	return Spec{Slots: defaultSlots, Service: defaultService}
}

// Sharded reports whether the spec describes routers in front of shards.
func (s Spec) Sharded() bool { return s.Shards > 0 }

// ReplicaSet reports whether the spec describes a replica set (rs=N).
func (s Spec) ReplicaSet() bool { return s.Members > 0 }

// specKeys is the canonical key order of Spec.String.
var specKeys = []string{"shards", "rs", "slots", "read_slots", "write_slots", "service", "scan_service", "agg_service", "write_service", "examined_cost", "conn_cost", "accept_cost", "setup_latency", "jitter", "routers", "router_slots", "router_cost", "router_restart", "router_pools", "router_pool_max", "router_pool_min", "router_max_connecting", "router_host_timeout", "repl_lag", "election", "repl_writers", "ingress_rate", "ingress_burst", "ingress_queue", "conn_mem", "max_conns", "hello_cost", "test_commands", "cores", "version", "os"}

// ParseSpec parses a comma-separated key=value list such as
// "slots=16,service=2ms,conn_cost=20us,jitter=0.1" or
// "shards=3,slots=8,service=2ms,router_slots=64,router_cost=50us,routers=2".
//
// Omitted keys take the defaults: slots=8, service=2ms, conn_cost=0s,
// jitter=0, standalone (no shards key); with shards: routers=1,
// router_slots=64, router_cost=50us. Router keys without shards are refused
// because they would silently do nothing. cores=N sets the core count
// hostInfo reports (default: this machine's). accept_cost=D (default 0s)
// is the serial setup time of each new connection, setup_latency=D
// (default 0s) the latency each pays in parallel. read_slots=N and write_slots=N
// size the read and write pools apart (slots=N is both). scan_service=D,
// agg_service=D and write_service=D cost scans, aggregations and writes
// apart (default: service), examined_cost=D adds D per document examined
// (default 0s; see shapecost.go). version=X.Y answers
// as that MongoDB version (4.0, 4.2, 4.4, 5.0, 6.0, 7.0, 8.0, 8.2; default
// 8.0). os=windows answers as servers on Windows do (see Spec.OS). ingress_rate=N, ingress_burst=SECS and ingress_queue=N turn on
// 8.2's connection-establishment rate limiter (version=8.2 only; see
// Spec.IngressLimiter). test_commands=true enables test commands
// (configureFailPoint; Spec.TestCommands); router_restart=D (shards only,
// default 5s) is how long the simulator's routerRestart event keeps a
// router down. router_pools=T, router_pool_max=M, router_pool_min=N,
// router_max_connecting=C and router_host_timeout=D (shards only) size
// each router's pools to its shards as a mongos's taskExecutorPoolSize and
// ShardingTaskExecutorPool{MaxSize,MinSize,MaxConnecting,HostTimeoutMS}
// do (spec_routerpool.go; defaults the version's). conn_mem=BYTES (KiB
// and MiB suffixes; default 0) is the resident memory each connection
// adds, max_conns=N (default 1000000) each server's connection limit,
// hello_cost=D (default 0s) the CPU time each hello costs (Spec.ConnMem,
// Spec.MaxConns, Spec.HelloCost).
// rs=N (1 to 7) starts a replica set of N members instead of a standalone,
// with repl_lag=1ms, election=300ms and repl_writers=16 unless given; rs and
// shards are exclusive, and the replica-set keys without rs are refused.
func ParseSpec(str string) (Spec, error) {
	s := DefaultSpec()
	seen := map[string]bool{}
	str = strings.TrimSpace(str)
	if str != "" {
		for item := range strings.SplitSeq(str, ",") {
			item = strings.TrimSpace(item)
			key, val, ok := strings.Cut(item, "=")
			key, val = strings.TrimSpace(key), strings.TrimSpace(val)
			if item == "" {
				return Spec{}, fmt.Errorf("%w: empty item in %s", ErrSpec, textfmt.Token(str))
			}
			if !ok || val == "" {
				return Spec{}, fmt.Errorf("%w: %s: want key=value", ErrSpec, textfmt.Token(item))
			}
			if seen[key] {
				return Spec{}, fmt.Errorf("%w: duplicate key %s", ErrSpec, textfmt.Token(key))
			}
			seen[key] = true
			if err := s.set(key, val); err != nil {
				return Spec{}, err
			}
		}
	}
	s.ingressDefaults(seen)
	if err := s.routerPoolSeen(seen); err != nil {
		return Spec{}, err
	}
	for _, g := range dependents {
		for _, k := range g.keys {
			switch {
			case !g.active(s) && seen[k.key]:
				return Spec{}, fmt.Errorf("%w: %s: only meaningful with %s", ErrSpec, k.key, g.needs)
			case g.active(s) && !seen[k.key]:
				k.byDefault(&s)
			}
		}
	}
	if err := s.Validate(); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// dependents are the keys that mean something only with another (the
// routers' with shards=N, the replica set's with rs=N): refused without
// it, given their defaults with it.
var dependents = []struct {
	needs  string
	active func(Spec) bool
	keys   []dependentKey
}{
	{"rs=N", Spec.ReplicaSet, []dependentKey{
		{"repl_lag", func(s *Spec) { s.ReplLag = defaultReplLag }},
		{"election", func(s *Spec) { s.ElectionDelay = defaultElection }},
		{"repl_writers", func(s *Spec) { s.ReplWriters = defaultReplWriters }},
	}},
	{"shards=N", Spec.Sharded, []dependentKey{
		{"routers", func(s *Spec) { s.Routers = DefaultRouters }},
		{"router_slots", func(s *Spec) { s.RouterSlots = DefaultRouterSlots }},
		{"router_cost", func(s *Spec) { s.RouterCost = DefaultRouterCost }},
	}},
}

// dependentKey is a dependent key and how it takes its default.
type dependentKey struct {
	key       string
	byDefault func(*Spec)
}

// field is the Spec field a key sets, or nil for an unknown key: the
// server's keys, the routers', and the host's.
func (s *Spec) field(key string) any {
	return map[string]any{
		"shards": &s.Shards, "slots": &s.Slots, "read_slots": &s.ReadSlots, "write_slots": &s.WriteSlots, "service": &s.Service, "scan_service": &s.ScanService, "agg_service": &s.AggService, "write_service": &s.WriteService, "examined_cost": &s.ExaminedCost, "conn_cost": &s.ConnCost, "accept_cost": &s.AcceptCost, "setup_latency": &s.SetupLatency, "jitter": &s.Jitter,
		"routers": &s.Routers, "router_slots": &s.RouterSlots, "router_cost": &s.RouterCost, "router_restart": &s.RouterRestart, "test_commands": &s.TestCommands,
		"router_pools": &s.RouterPools, "router_pool_max": &s.RouterPoolMax, "router_pool_min": &s.RouterPoolMin, "router_max_connecting": &s.RouterMaxConnecting, "router_host_timeout": &s.RouterHostTimeout,
		"rs": &s.Members, "repl_lag": &s.ReplLag, "election": &s.ElectionDelay, "repl_writers": &s.ReplWriters,
		"ingress_rate": &s.IngressRate, "ingress_burst": &s.IngressBurst, "ingress_queue": &s.IngressQueue,
		"conn_mem": (*byteSize)(&s.ConnMem), "max_conns": &s.MaxConns, "hello_cost": &s.HelloCost,
		"cores": &s.Cores, "version": &s.Version, "os": &s.OS,
	}[key]
}

// standaloneKeys are the keys that mean something without another (not
// dependents' nor ingress_*), in specKeys' order: what an unknown key's
// error lists, on one line.
// keyHint names the keys a mistyped key may have meant (those that
// contain it or that it contains, as "read" for read_slots), else the
// first standalone keys: a few names, because the whole list grows with
// every model and would make the refusal longer than a line.
func keyHint(key string) string {
	const most = 6
	var near []string
	for _, k := range specKeys {
		if len(key) >= 2 && (strings.Contains(k, key) || strings.Contains(key, k)) {
			near = append(near, k)
		}
	}
	if len(near) > 0 {
		return "did you mean " + strings.Join(near[:min(len(near), most)], ", ") + "?"
	}
	return "keys such as " + strings.Join(standaloneKeys()[:most], ", ") + ";"
}

func standaloneKeys() []string {
	var out []string
	for _, k := range specKeys {
		dependent := strings.HasPrefix(k, "ingress_") || k == "router_restart" || routerPoolKey(k)
		for _, g := range dependents {
			for _, d := range g.keys {
				dependent = dependent || d.key == k
			}
		}
		if !dependent {
			out = append(out, k)
		}
	}
	return out
}

// leaveOut names the integer keys whose zero value means something else
// (a standalone server, this machine's cores): written, they must be ≥ 1,
// and the error says what leaving them out means.
var leaveOut = map[string]string{
	"shards":      "leave shards out for a standalone server",
	"rs":          "leave rs out for a standalone server",
	"cores":       "leave cores out for this machine's count",
	"max_conns":   "leave max_conns out for 1000000, a real server's default",
	"read_slots":  "leave read_slots out for slots",
	"write_slots": "leave write_slots out for slots",
}

// set parses one value; range checks are left to Validate so that specs built
// in Go get the same messages.
func (s *Spec) set(key, val string) error {
	bad := func(what string) error { return fmt.Errorf("%w: %s=%s: %s", ErrSpec, key, textfmt.Short(val), what) }
	switch dst := s.field(key).(type) {
	case *int:
		n, err := strconv.Atoi(val)
		if err != nil {
			return bad("not an integer")
		}
		if why, ok := leaveOut[key]; ok && n < 1 {
			return bad("must be at least 1 (" + why + ")")
		}
		*dst = n
	case *time.Duration:
		d, err := time.ParseDuration(val)
		if err != nil {
			return bad("not a duration (like 2ms or 50us)")
		}
		if key == "router_restart" && d <= 0 {
			// Its zero value means the default; written, it is an outage.
			return bad(fmt.Sprintf("must be between 1ms and %s (leave it out for %s)", maxRouterRestart, DefaultRouterRestart))
		}
		*dst = d
	case *byteSize:
		b, err := parseByteSize(val)
		if err != nil {
			return bad(err.Error())
		}
		*dst = b
	case *float64:
		f, err := strconv.ParseFloat(val, 64)
		if err != nil {
			return bad("not a number")
		}
		*dst = f
	case *bool:
		b, err := strconv.ParseBool(val)
		if err != nil {
			return bad("not true or false")
		}
		*dst = b
	case *string:
		*dst = val
	default:
		return fmt.Errorf("%w: unknown key %s (%s every key: docs/servers.md)", ErrSpec, textfmt.Token(key), keyHint(key))
	}
	return nil
}

// Validate checks the ranges of every field; Start calls it.
func (s Spec) Validate() error {
	bad := func(key, val, what string) error { return fmt.Errorf("%w: %s=%s: %s", ErrSpec, key, val, what) }
	// count checks an integer key; least is 0 for the keys whose 0 means
	// "left out" (shards, cores), and a written one still starts at 1.
	count := func(key string, n, least, most int) error {
		if n < least || n > most {
			return bad(key, strconv.Itoa(n), fmt.Sprintf("must be between 1 and %d", most))
		}
		return nil
	}
	span := func(key string, d, most time.Duration) error {
		if d < 0 || d > most {
			return bad(key, fmtDuration(d), fmt.Sprintf("must be between 0s and %s", most))
		}
		return nil
	}
	jitter := func() error {
		if math.IsNaN(s.Jitter) || s.Jitter < 0 || s.Jitter > 1 {
			return bad("jitter", strconv.FormatFloat(s.Jitter, 'g', -1, 64), "must be between 0 and 1")
		}
		return nil
	}
	if err := first(count("shards", s.Shards, 0, maxShards), count("slots", s.Slots, 1, maxSlots),
		span("service", s.Service, maxService), span("scan_service", s.ScanService, maxService),
		span("agg_service", s.AggService, maxService), span("write_service", s.WriteService, maxService),
		span("examined_cost", s.ExaminedCost, maxConnCost), span("conn_cost", s.ConnCost, maxConnCost),
		span("accept_cost", s.AcceptCost, maxConnCost), span("setup_latency", s.SetupLatency, maxSetupLatency), jitter(),
		count("read_slots", s.ReadSlots, 0, maxSlots), count("write_slots", s.WriteSlots, 0, maxSlots),
		count("cores", s.Cores, 0, maxCores)); err != nil {
		return err
	}
	if s.OS != "" && s.OS != "windows" {
		return bad("os", s.OS, "unknown platform (known: windows; leave os out for this machine's)")
	}
	if _, ok := versionOf(s.Version); !ok {
		return bad("version", s.Version, "unknown version (known: "+strings.Join(knownVersions(), ", ")+", or a release of one, as 7.0.0-rc6)")
	}
	if err := s.validateReplicaSet(); err != nil {
		return err
	}
	if err := s.validateIngress(); err != nil {
		return err
	}
	if err := s.validateRouterPools(); err != nil {
		return err
	}
	if err := s.validateConnCost(); err != nil {
		return err
	}
	if !s.Sharded() {
		if s.RouterRestart != 0 {
			return fmt.Errorf("%w: router_restart: only meaningful with shards=N", ErrSpec)
		}
		if s.Routers != 0 || s.RouterSlots != 0 || s.RouterCost != 0 {
			return fmt.Errorf("%w: routers, router_slots and router_cost need shards=N", ErrSpec)
		}
		return nil
	}
	if s.RouterRestart < 0 || s.RouterRestart > maxRouterRestart {
		return bad("router_restart", fmtDuration(s.RouterRestart), fmt.Sprintf("must be between 1ms and %s (leave it out for %s)", maxRouterRestart, DefaultRouterRestart))
	}
	return first(count("routers", s.Routers, 1, maxRouters), count("router_slots", s.RouterSlots, 1, maxSlots),
		span("router_cost", s.RouterCost, maxService))
}

// validateReplicaSet checks the replica-set keys: rs in 1..7, its delays
// in range, none of them without rs, and rs not with shards (a shard of the
// simulator is a one-member set already).
func (s Spec) validateReplicaSet() error {
	bad := func(key, val, what string) error { return fmt.Errorf("%w: %s=%s: %s", ErrSpec, key, val, what) }
	if s.Members == 0 {
		if s.ReplLag != 0 || s.ElectionDelay != 0 || s.ReplWriters != 0 {
			return fmt.Errorf("%w: repl_lag, election and repl_writers need rs=N", ErrSpec)
		}
		return nil
	}
	switch {
	case s.Members < 1 || s.Members > maxMembers:
		return bad("rs", strconv.Itoa(s.Members), fmt.Sprintf("must be between 1 and %d (members of a replica set)", maxMembers))
	case s.Sharded():
		return fmt.Errorf("%w: rs=%d and shards=%d: a replica set or a sharded cluster, not both", ErrSpec, s.Members, s.Shards)
	case s.ReplLag < 0 || s.ReplLag > maxReplLag:
		return bad("repl_lag", fmtDuration(s.ReplLag), fmt.Sprintf("must be between 0s and %s", maxReplLag))
	case s.ElectionDelay < 0 || s.ElectionDelay > maxElection:
		return bad("election", fmtDuration(s.ElectionDelay), fmt.Sprintf("must be between 0s and %s", maxElection))
	case s.ReplWriters < 1 || s.ReplWriters > maxSlots:
		return bad("repl_writers", strconv.Itoa(s.ReplWriters), fmt.Sprintf("must be between 1 and %d", maxSlots))
	}
	return nil
}

// first is the first of errs that is not nil.
func first(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// String returns the canonical spec: every meaningful key, in a fixed order,
// so that ParseSpec(s.String()) == s and two equal specs print the same.
func (s Spec) String() string {
	parts := make([]string, 0, len(specKeys))
	if s.Sharded() {
		parts = append(parts, "shards="+strconv.Itoa(s.Shards))
	}
	if s.ReplicaSet() {
		parts = append(parts, "rs="+strconv.Itoa(s.Members))
	}
	parts = append(parts, "slots="+strconv.Itoa(s.Slots))
	if s.ReadSlots > 0 {
		parts = append(parts, "read_slots="+strconv.Itoa(s.ReadSlots))
	}
	if s.WriteSlots > 0 {
		parts = append(parts, "write_slots="+strconv.Itoa(s.WriteSlots))
	}
	parts = append(parts, "service="+fmtDuration(s.Service))
	// The shape classes' keys only when set, so specs that leave them out
	// print as before.
	for _, c := range s.classKeys() {
		if *c.d > 0 {
			parts = append(parts, c.key+"="+fmtDuration(*c.d))
		}
	}
	parts = append(parts, "conn_cost="+fmtDuration(s.ConnCost))
	if s.AcceptCost > 0 {
		// Only when set, so specs that leave it out print as before.
		parts = append(parts, "accept_cost="+fmtDuration(s.AcceptCost))
	}
	if s.SetupLatency > 0 {
		parts = append(parts, "setup_latency="+fmtDuration(s.SetupLatency))
	}
	parts = append(parts, "jitter="+strconv.FormatFloat(s.Jitter, 'g', -1, 64))
	if s.Sharded() {
		parts = append(parts,
			"routers="+strconv.Itoa(s.Routers),
			"router_slots="+strconv.Itoa(s.RouterSlots),
			"router_cost="+fmtDuration(s.RouterCost))
		if s.RouterRestart > 0 {
			// Only when set, so specs that leave it out print as before.
			parts = append(parts, "router_restart="+fmtDuration(s.RouterRestart))
		}
		parts = append(parts, s.routerPoolString()...)
	}
	if s.ReplicaSet() {
		parts = append(parts, "repl_lag="+fmtDuration(s.ReplLag), "election="+fmtDuration(s.ElectionDelay), "repl_writers="+strconv.Itoa(s.ReplWriters))
	}
	parts = append(parts, s.ingressString()...)
	parts = append(parts, s.connCostString()...)
	if s.TestCommands {
		parts = append(parts, "test_commands=true")
	}
	if s.Cores > 0 {
		// Only when set, so specs that leave it out print as before.
		parts = append(parts, "cores="+strconv.Itoa(s.Cores))
	}
	if s.Version != "" {
		parts = append(parts, "version="+s.Version)
	}
	if s.OS != "" {
		parts = append(parts, "os="+s.OS)
	}
	return strings.Join(parts, ",")
}

// fmtDuration writes "us" rather than "µs" so specs stay ASCII and easy to
// type back into a shell.
func fmtDuration(d time.Duration) string {
	return strings.ReplaceAll(d.String(), "µs", "us")
}

// readSlots and writeSlots are the sizes of the two ticket pools.
func (s Spec) readSlots() int  { return cmp.Or(s.ReadSlots, s.Slots) }
func (s Spec) writeSlots() int { return cmp.Or(s.WriteSlots, s.Slots) }

// ShardPeak is the ground-truth peak of one standalone server or shard in
// ops/s for pure reads when conn_cost is zero: read slots/service. It is
// +Inf for service=0.
func (s Spec) ShardPeak() float64 {
	if s.Service <= 0 {
		return math.Inf(1)
	}
	return float64(s.readSlots()) / s.Service.Seconds()
}

// RouterCapacity is the ops/s all routers together can pass: routers ×
// router_slots / router_cost. It is +Inf for a standalone spec or a zero
// router cost.
func (s Spec) RouterCapacity() float64 {
	if !s.Sharded() || s.RouterCost <= 0 {
		return math.Inf(1)
	}
	return float64(s.Routers*s.RouterSlots) / s.RouterCost.Seconds()
}

// Throughput is the model's closed-loop ops/s at n client connections each
// issuing single-op calls back to back, a share readShare (0 to 1) of them
// reads and the rest writes, with negligible network and client time and,
// for a sharded spec, ops spread evenly over the shards. With t = service +
// conn_cost·m, R read slots and W write slots:
//
//	one server:  X(m) = min(m, R/r, W/(1-r)) / t     (R/0 and W/0 are +Inf)
//	pure reads:  X(m) = min(m, R) / t;  pure writes: X(m) = min(m, W) / t
//	sharded:     X(n) = min(shards · X(n/shards), router capacity)
//
// and, sharded, the ops in flight to one shard host are at most what the
// routers' pools to it hold, routers · router_pools · router_pool_max
// (m·t per router; RouterPoolLimit), so a router carries at most m·t/s
// per shard host.
//
// For a mix the formula is the bottleneck bound: exact far from the knee,
// and above the real curve near it, where ops of the busier kind queue
// while the other pool has free slots. For a shard, m approximates the
// router connections open to it, which grow to the number of ops in flight
// to that shard. The driver's monitoring connection (one per server) is left
// out; with conn_cost it adds conn_cost to each op. Real runs land below
// this by the client and network time per op.
func (s Spec) Throughput(n int, readShare float64) float64 {
	if n <= 0 {
		return 0
	}
	r := min(max(readShare, 0), 1)
	perShard := func(m float64) float64 {
		t := s.Service.Seconds() + s.ConnCost.Seconds()*m
		if t <= 0 {
			return math.Inf(1)
		}
		return math.Min(m, math.Min(s.concurrencyLimit(r), s.RouterPoolLimit())) / t
	}
	if !s.Sharded() {
		return perShard(float64(n))
	}
	x := float64(s.Shards) * perShard(float64(n)/float64(s.Shards))
	return math.Min(x, s.RouterCapacity())
}

// concurrencyLimit is how many ops of a mix with read share r one server
// runs at once at most: min(R/r, W/(1-r)).
func (s Spec) concurrencyLimit(r float64) float64 {
	limit := math.Inf(1)
	if r > 0 {
		limit = float64(s.readSlots()) / r
	}
	if r < 1 {
		limit = math.Min(limit, float64(s.writeSlots())/(1-r))
	}
	return limit
}

// Peak is the model's highest closed-loop throughput over n ≥ 1 for a read
// share readShare, and Knee the smallest n that reaches it. Without conn_cost
// the peak is the slots of the kind in use/service at n = those slots (per
// shard for sharded specs, capped by the routers); conn_cost lowers it to
// slots/(service+conn_cost·slots), and past it throughput falls as
// slots/(service+conn_cost·n).
func (s Spec) Peak(readShare float64) (opsPerSec float64, knee int) {
	limit := int(math.Ceil(math.Min(s.concurrencyLimit(min(max(readShare, 0), 1)), float64(s.readSlots()+s.writeSlots())))) * max(s.Shards, 1)
	for n := 1; n <= limit+1; n++ {
		if x := s.Throughput(n, readShare); x > opsPerSec*(1+1e-12) {
			opsPerSec, knee = x, n
		}
	}
	return opsPerSec, knee
}
