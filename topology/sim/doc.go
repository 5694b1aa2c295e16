// Package sim is a calibrated simulated MongoDB deployment: a server that
// speaks the real wire protocol over real sockets and whose capacity is
// known in advance, so that poolsweep's knee detection, sharded code paths
// and telemetry can be checked against ground truth. It is a measuring
// instrument, not a database: documents live in memory, and it answers
// any query shape a replayed workload sends (find, aggregate, count,
// distinct, insert, update, delete, findAndModify) with a real server's
// reply shape, costed by the shape's class (shapecost.go). It evaluates
// only what is listed there and at each command (_id equality and ranges,
// field equality, $set/$inc/$unset, a few pipeline stages): a predicate it
// does not evaluate matches no document, an update operator it does not
// apply leaves the document as it was, a pipeline stage it does not
// compute ends the cursor; it never answers with documents a predicate
// might not match.
//
// # Starting one
//
//	spec, err := sim.ParseSpec("slots=8,service=2ms,conn_cost=20us,accept_cost=1ms,setup_latency=50ms,jitter=0.1")
//	d, err := sim.Start(ctx, spec) // listens on 127.0.0.1:0
//	defer d.Close()
//	uri := d.URI() // mongodb://127.0.0.1:port/ ; one host per router when sharded
//
// A spec with shards=N starts N shards behind Routers routers, each router
// on its own port; the URI lists the routers and the driver sees a sharded
// topology because they answer hello with msg:"isdbgrid". Each shard is a
// server of its own too, on a free loopback port (ShardHosts), answering as
// the primary of a one-member replica set named after the shard
// (setName, hosts, primary, me), so that a client can find and sample a
// shard's primary as on a real cluster: listShards gives shardN/host:port.
// A shard's server answers the monitoring commands (hello, buildInfo,
// serverStatus, hostInfo, connPoolStats, ping, sasl*) and refuses data
// commands: data goes through the routers. The defaults are in ParseSpec's
// documentation.
//
// A spec with rs=N (1 to 7) starts a replica set instead: N members, each
// a mongod on its own port with its own slots and its own data; the URI
// lists them and names the set (replicaSet=rs0), so the driver discovers
// a replica set, keeps a pool per member, and sends reads where its read
// preference says. See "Replica sets" below.
//
// # Capacity model and ground truth
//
// Only data operations (find, getMore, count, distinct, aggregate, insert,
// update, delete, findAndModify) use capacity; hello, ping, buildInfo, serverStatus, hostInfo and the catalogue commands
// never wait, so monitoring does not disturb a measurement.
//
// A standalone server (and each shard) has two pools of execution slots,
// as a real server has read and write tickets: read_slots for reads (find,
// getMore, count, distinct, aggregate) and write_slots for writes (insert,
// update, delete, findAndModify);
// slots=N is the shorthand for both. A data op holds one slot of its kind for
//
//	service_time = (service + conn_cost·open_conns) · U(1-jitter, 1+jitter)
//
// where service is the op's shape class's time (service for point reads,
// scan_service, agg_service, write_service; each defaults to service) plus
// examined_cost per document examined (see shapecost.go), and open_conns is the number of connections open to that server at the
// op's arrival (client connections for a standalone, including the driver's
// monitoring connection; router connections for a shard). Ops of one kind
// queue FIFO for that kind's slots only: a queue of reads never delays a
// write. Slots are booked in model time (see slotPool), so the host's own
// scheduling delays make replies late but do not lower capacity.
//
// For a closed loop of N client connections each issuing one op at a time,
// a share r of them reads, with negligible client and network time, R read
// slots, W write slots and t(N) = service + conn_cost·N:
//
//	pure reads:  X(N) = min(N, R) / t(N)               ops/s
//	pure writes: X(N) = min(N, W) / t(N)
//	mixed:       X(N) = min(N, R/r, W/(1-r)) / t(N)     (a bound: see below)
//	peak = R / service at N = R (the knee) for pure reads, when conn_cost = 0
//	peak = R / (service + conn_cost·R) at N = R           when conn_cost > 0
//	past the peak, X(N) falls as R / (service + conn_cost·N)
//
// so with slots=8,service=2ms pure reads peak at 4000 ops/s at a knee of 8;
// with conn_cost=50us as well, 3333 ops/s at 8 falling to 1538 at 64. A mix
// is held by its busier pool: with read_slots=8,write_slots=2 and half
// writes, the write slots carry 1000 writes/s, so 2000 ops/s in all. The
// mixed formula is the bottleneck bound, exact far from the knee; near it
// the real curve is lower, because ops of the busier kind queue while the
// other pool has free slots. Real clients add their own time per op, so X(N)
// is a little lower below the knee and the 95%-of-peak point is often one
// grid step later (16 for 8).
//
// A sharded deployment routes each op through a router: one router slot
// (of router_slots) for router_cost, released before the op goes on to the
// shards, as a mongos does not hold a thread while shards work. An op with
// an _id equality goes to the shard FNV-1a(_id) mod shards; other finds,
// counts and multi updates/deletes go to every shard at once (one data op
// per shard) and range results are merged in _id order; single
// updates/deletes without an _id try the shards in turn. Hence
//
//	capacity ≈ min(shards · X_shard, routers · router_slots/router_cost)
//
// for point operations spread over the shards, X_shard being one shard's
// capacity for the mix above (Spec.Throughput(n, readShare) gives the model
// curve, Spec.Peak(readShare) its maximum).
//
// # The routers' pools to the shards
//
// Each router keeps its own connection pools to the shard hosts, as a
// mongos does (routerpool.go): t = taskExecutorPoolSize executors
// (router_pools, default 1), each with one pool per shard host of at most
// m = ShardingTaskExecutorPoolMaxSize connections (router_pool_max,
// default 32767; 4.0: unlimited). An op takes the executors in turn and
// holds a connection of its executor's pool to its shard for the shard's
// work (slot wait and service); with none idle it waits in that pool,
// which opens a connection while it is below its requests and fewer than
// MaxConnecting (router_max_connecting, default 2) are opening. Opening
// one costs what a client's connection costs the shard: a turn at its
// acceptor (accept_cost) and setup_latency. A pool keeps MinSize
// (router_pool_min, default 1) open while it exists; a 4.4+ router opens
// them as it starts (warmMinConnectionsInShardingTaskExecutorPoolOnStartup);
// a pool with no request for HostTimeoutMS (router_host_timeout, default
// 5m) is dropped whole and its connections close. So, with a shard
// service time s,
//
//	a router carries at most m·t/s ops/s per shard host
//
// (Spec.RouterPoolLimit: all routers together hold routers·t·m ops in
// flight to a host), however many slots the shard has: the router-pool
// bound a cluster can lose to a standalone by. Connections are held in
// model time, as slots are: an op gives its connection back as of its
// shard work's booked finish, a new connection is ready when its acceptor
// turn and setup, booked as its opening begins, end, and a waiting op
// takes whichever is free first; so this host's scheduling delays make
// replies late without lowering the bound (TestRouterPoolBoundThroughput
// holds the Go driver to it within 10%). The op behind a connection so
// handed on is booked at the shard ahead of its arrival, into the slot its
// predecessor frees then, so a shard with more slots than the routers'
// connections to it never queues. The parameters are in the
// server's parameter table, so getParameter reads them and setParameter
// changes them on a 4.2+ router while it runs (MaxSize, MinSize,
// MaxConnecting, HostTimeoutMS, with the server's validators: MaxSize and
// MaxConnecting ≥ 1, MinSize ≥ 0, HostTimeoutMS ≥ 80000, the sum of the
// refresh parameters the simulator keeps at their defaults);
// taskExecutorPoolSize is startup-only, as are all of them on 4.0. A
// lowered MaxSize takes effect as connections come back, a raised MinSize
// or MaxConnecting at once. Not modeled: refreshing idle connections
// (ShardingTaskExecutorPoolRefreshRequirementMS), the config servers' and
// ShardRegistry pools, replica-set matching, and the per-pool
// acquisitionWaitTimes histogram of 6.3+.
//
// # Connection setup
//
// accept_cost=D charges the setup of each new client connection (the
// accept, and the handshake and authentication a real server does with
// its CPU: TLS, SCRAM) to the server: every server (a standalone, each
// router, each member, each shard's own server) has one acceptor, and a
// new connection waits its turn there, FIFO in model time as slots are
// booked, and holds it for D before its first request is read. So the
// server accepts at most 1/D connections per second, and
//
//	n connections arriving at once are all set up after n · D
//
// (the last one's first reply comes one round trip later), whatever the
// clients' maxConnecting, as long as their attempts keep the acceptor
// busy: K pools opening maxConnecting connections at a time keep K ·
// maxConnecting attempts waiting, so one pool alone (K = 1, maxConnecting
// 2) is bounded by its own round trips instead. The driver's monitoring
// connections (one per client per server) are connections too and pay D.
// A router's pools to its shards are modeled, not sockets: each
// connection they open waits its turn at the shard's acceptor and pays
// setup_latency too (see the routers' pools above). The server reports the storm as a real one does, and no more:
// connections.current and totalCreated; the acceptor is not in
// serverStatus, and its cost is a wait, not CPU time, so extra_info does
// not rise with it (a real server's CPU would).
//
// setup_latency=d is the rest of a connection's setup: the round trips a
// real connection costs before its first operation, each a client's wait
// that no other connection shares. Over a network with round trip r they
// are about r for TCP's handshake, r (TLS 1.3) or 2r (TLS 1.2) for TLS,
// r for the hello (which carries the first SCRAM step as speculative
// authentication from 4.4) and r for SCRAM's saslContinue (3r without
// speculative authentication), with the server's hashing of the
// password, which runs on a thread per connection: so d ≈ 4r to 6r plus
// that hashing for TLS and SCRAM, about 2r without either. The simulator
// pays it once, at the connection's first request: after its acceptor
// turn (accept_cost) a connection's first reply (the driver's hello) is
// sent no earlier than d later, and nothing holds the acceptor meanwhile,
// so any number of connections wait their d at once. The rest of the
// handshake (the PLAIN conversation when the URI names a user) then
// answers at loopback speed: d stands for all of it. A driver's pool
// reports such a connection created (ConnectionCreated) when it starts
// and ready (ConnectionReady) d and a few loopback round trips later.
// The driver's monitoring connection pays d too, so a client discovers
// the server d after it starts and its first operation waits that long.
// The Go driver marks its pools ready (PoolReady) at once, so minPoolSize
// starts filling meanwhile; the CMAP specification has a pool wait for the
// server's first check.
//
// A driver opens at most maxConnecting = m connections at a time per pool
// (2 by default in the Go, Java, Node, Python and C# drivers). So a cold
// pool that must hold N connections, with a = accept_cost, fills in about
//
//	t_fill ≈ ⌈N/m⌉ · (d + a)     when m·a ≤ d + a (the round trips bound it)
//	t_fill ≈ N · a               when m·a > d + a (the acceptor bounds it)
//
// counted from the pool's PoolReady (minPoolSize N) or its first
// ConnectionCreated (N calls at once that each hold a connection); with
// a > 0 each batch of m is staggered by a, so the first form is about
// (m-1)·a short. The Go driver asks for at most 10 connections per pass of
// its pool maintenance, and passes every 10 s: minPoolSize N above 10
// fills its first 10 by the formula and the rest 10 s later, one pass per
// 10.
//
// conn_mem=BYTES and max_conns=N give a connection sweep its answer.
// Every connection open to a server (a client's pool connection or a
// monitor; on a shard, its routers' pools) adds conn_mem to the server's
// serverStatus.mem.resident and virtual, which stay whole MB as a real
// server reports them: K connections add K·conn_mem, so memory per
// connection is the slope of resident against connections.current. A
// simulator inside the load's process reports that growth alone (its
// process's memory is the client's too); one alone in its process adds
// it to the process's own. max_conns is each server's
// net.maxIncomingConnections: connections.available is max_conns less
// current, and a connection past it is closed before its first reply and
// counted in connections.rejected (from 7.0), as a real server refuses
// one ("connection refused because too many open connections").
// hello_cost=D is the CPU time each hello or isMaster costs the server
// that answers it: a monitor's heartbeat (every heartbeatFrequencyMS per
// client; the simulator offers no topologyVersion, so drivers poll it
// with one monitor each rather than stream with two) and a connection's
// handshake. It is added to the CPU time extra_info reports (a simulator
// alone in its process) and holds no slot, so K idle clients cost
// K·D/heartbeat of CPU a second.
//
// The first second of a burst on a cold pool, of a client that has
// discovered its server, follows from it. Calls
// arrive at λ a second and each holds a connection for a service time s,
// so the steady state needs N = λ·s connections. Every call that finds no
// idle connection asks the pool for a new one, so while calls wait the
// pool grows by m connections per d (a = 0) and, until maxPoolSize,
// overshoots: calls keep waiting after it holds N, and the backlog they
// built is served by the connections opened meanwhile. Checkouts are
// served first come, first served, so with the pool's capacity rising as
// m·t/(d·s) the call that arrives at t_fill/2 waits longest, t_fill/2
// (a call arriving at t is served at √(2·t_fill·t)); the pool steps in
// batches, which adds d/2. So, for k = ⌈N/m⌉,
//
//	worst checkout wait ≈ (k+1) · d/2      (at least d: the first call waits a setup)
//	the burst's p99     ≈ (k+1) · d/2 + s  (the calls near the worst are over 1%)
//	backlog cleared     ≈ 2 · t_fill, the pool holding up to about 2N
//
// (the last line is the model's alone: no test holds it).
//
// With N = 16, s = 200 ms and d = 100 ms (λ = 80/s), on a client that
// has discovered its server: maxConnecting 2 fills in 800 ms and the first
// second's p99 is about 650 ms; maxConnecting 16 fills in 100 ms and its
// p99 is about 300 ms; a pool kept at N by minPoolSize (filled before the
// burst) answers in s. This holds while the pool may grow past N
// (maxPoolSize above about 2N), and the server has the slots for the
// calls the backlog sends at once. TestSetupLatencyFillTime and
// TestSetupLatencyBurstP99 hold the Go driver to both.
//
// # Connection admission (8.2)
//
// ingress_rate=N, ingress_burst=SECS and ingress_queue=N (version=8.2
// only; refused with an earlier version) turn on every server's
// connection-establishment rate limiter, as
// ingressConnectionEstablishmentRateLimiterEnabled,
// ingressConnectionEstablishmentRatePerSec,
// ingressConnectionEstablishmentBurstCapacitySecs and
// ingressConnectionEstablishmentMaxQueueDepth do on a real 8.2 server (off
// by default; a key left out takes the server's default: INT32_MAX a
// second, an unbounded bucket, a queue of 0). A token bucket of rate ·
// burst tokens, full at start, refills at rate a second; a new connection
// takes a token before its first request is read, or waits for the refill
// (the bucket borrows: the k-th waiter is admitted k/rate after the bucket
// emptied) while fewer than ingress_queue wait, or is closed at once
// (rejected). So n connections arriving together at a full bucket of b
// tokens with a queue of q are admitted b at once, min(n-b, q) after
// 1/rate, 2/rate …, and the rest, n-b-q, rejected. A waiting connection is
// queuedForEstablishment, not current; it is created (totalCreated) once
// admitted; a rejection counts in connections.rejected and
// establishmentRateLimit.rejected. The simulator does not see a client
// leave the queue (interruptedDueToClientDisconnect stays 0: it is
// admitted when its turn comes, then found closed), and no address is
// exempted (the bypass ranges are empty by default). A router's
// connections to its shards are modeled, not sockets, and never queue.
//
// # Replica sets
//
// The first member starts as primary. Only the primary takes writes (a
// secondary answers NotWritablePrimary); a secondary serves reads only
// with a read preference other than primary (NotPrimaryNoSecondaryOk
// otherwise), as real members do. Each write the primary applies (at the
// end of its service time in one of its write slots) is logged with an
// optime and sent to every secondary: it arrives repl_lag later and queues,
// in log order, for one of the secondary's repl_writers applier slots and
// one of its write slots, held for a service time drawn as for any write
// there. A secondary has applied an entry once it and every earlier entry
// are done, and only then do its reads see the write; its optime is the
// last entry it has applied, so replication lag is real: the apply delay,
// queueing included.
//
// Write concern: w:N is acknowledged when N members (the primary
// included) have applied the write, w:"majority" when N/2+1 have, w:1 when
// the primary has, w:0 not at all; without a writeConcern the version's
// default applies (w:1 before 5.0, majority from 5.0). wtimeout gives
// writeConcernError 64 (errInfo.wtimeout) when it passes first, w beyond
// the set's size writeConcernError 100, an unknown tag error 79.
//
// replSetStepDown (and Deployment.StepDown) makes the primary a secondary
// at once: no member is writable until the election ends, election (the
// spec key) later or, if later still, when the elected member has applied
// everything the old primary logged. Writes still holding a slot on the
// old primary are not applied and fail with InterruptedDueToReplStateChange
// (11602); writes sent to any member meanwhile fail with
// NotWritablePrimary; from 4.4 both carry the RetryableWriteError label of
// a retryable write (one with a txnNumber), so the driver marks the server
// Unknown, waits for a primary and retries. The elected member's term, and
// so its electionId, is one greater; it logs a no-op entry of the new term.
// hello has no topologyVersion, so the driver learns the new primary by
// polling: at once after a refusal (its immediate checks, at most every
// 500ms), else at its heartbeat (10 s by default). The old primary may not
// be elected again for the step-down period (60 s by default).
//
// Capacity. With R read slots, W write slots, A = min(W, repl_writers)
// appliers per secondary, t(m) = service + conn_cost·m for m connections
// to a member, and n client connections in a closed loop:
//
//	reads, with k members serving the read preference (primary and
//	primaryPreferred: 1; secondary and secondaryPreferred: rs-1;
//	nearest: rs):     X(n) = k · min(n/k, R) / t(n/k)
//	writes, w:1:      X(n) = min(n, W) / t(n)
//	writes, w > 1:    X(n) = min(n / L, W / t(n), A / service)
//	                  L = t(n) + repl_lag + service, an idle set's latency
//	every secondary applies every write: under w:1 writes at X above
//	A/service its lag grows by 1 - A/(service·X) seconds per second
//
// The driver spreads reads over the k members evenly (it picks the less
// busy of two random eligible members within its latency window), so
// with rs=3, slots=8, service=2ms primary reads peak at 4000/s,
// secondaryPreferred reads at 8000/s and nearest at 12000/s. A majority
// write on an idle rs=3 with repl_lag=1ms takes 2+1+2 = 5ms, so one client
// makes 200 writes/s and 20 make 4000/s, the primary's write slots. Reads
// and writes do not share slots, so reads on a secondary do not slow its
// applying. Spec.readThroughput, Spec.writeThroughput and
// Spec.writeLatency give the model curves. Not modeled: flow control,
// chained replication, arbiters, priorities and tags, rollback (a clean
// step-down loses nothing), a transaction table (a retried multi-statement
// write whose first statements applied before an interruption applies them
// again), and streaming hello.
//
// # Events (the simulator's own command)
//
// poolsweepSimEvent is an administrative command of the
// simulator that no real server has (a real one answers CommandNotFound),
// run on the admin database:
//
//	{poolsweepSimEvent: "slow", factor: F, durationMS: D}   service time × F for D
//	{poolsweepSimEvent: "freeze", durationMS: D}             no reply, no request read, for D
//	{poolsweepSimEvent: "reset"}                             every client connection closed
//	{poolsweepSimEvent: "routerRestart"}                     a router down for router_restart
//
// It acts on the server that receives it; all: true applies slow, freeze
// and reset to every server of the deployment (routers, members, shards'
// own servers). The reply is {action, hosts, endsAt, ok: 1}. A slow event
// on a mongod multiplies the service time of every data op that starts on
// its slots while it lasts (routed ops and a secondary's applying
// included); on a router, its router step and the shard ops it routes.
// A freeze holds every reply and request of the server, new connections'
// handshakes included, and closes nothing; its own reply leaves at once.
// A freeze of a replica-set member longer than 10 s (electionTimeoutMillis)
// is refused: a real set would elect another primary, which is not
// modeled. reset closes every client connection, the driver's monitoring
// ones too, and the one that sent it after its reply. routerRestart (a
// router only) closes the router's listener and connections; connecting
// is refused for router_restart (default 5s), then it listens on the same
// port as a new process: uptime from its return, connections.totalCreated,
// opcounters, opLatencies and network from zero, no cursors.
//
// Nothing reports the event itself: serverStatus shows what a real server
// of the version would (connections.current and totalCreated, network,
// opLatencies, the slots' queues), and replSetGetStatus and hello the
// set's state. What a client sees follows from the model:
//
//	slow=F:D at an arrival rate λ below the slowed capacity slots/(F·s):
//	  connections in use settle at L = λ·F·s (Little's law), from λ·s
//	  before, within one F·s of the start; above that capacity the queue
//	  grows by λ - slots/(F·s) a second and pools grow to maxPoolSize
//	freeze=D: every reply due in [t, t+D) leaves at t+D; a client whose
//	  timeout is below D times those operations out and closes their
//	  connections (the driver's own rule: a connection that timed out is
//	  discarded; not tested here)
//	reset: an idle client learns of it at its next operation (a network
//	  error, its pool cleared, a retryable operation retried once) or
//	  heartbeat, then opens its pool again
//	router restart: the client's first operation there meets a network
//	  error, the router is marked Unknown and its pool cleared, and
//	  operations select the other routers (a retryable one is retried
//	  there) until a heartbeat finds it back; an operation that had to
//	  open a connection there first fails, as against a stopped mongos:
//	  the Go driver retries a command that failed, not a connection it
//	  could not open
//
// A step-down costs a client under load the election plus its discovery:
//
//	time to recover ≈ election + d,  0 < d ≤ minHeartbeatFrequencyMS (500 ms)
//
// The first refused write makes the driver mark the primary Unknown; while
// an operation waits for a primary it checks every member at most every
// minHeartbeatFrequencyMS, so it finds the new primary within 500 ms of the
// election (with no operation waiting, at its next heartbeat, 10 s by
// default). hello offers no topologyVersion, so the driver polls rather
// than streams: against a real 4.4+ set, whose members stream their state,
// d is about a round trip. The Go driver alone holds these:
// TestSimEventStepDownRecovery (election 1.5 s: the first write on the new
// primary 1.97 to 1.99 s after the step-down), TestSimEventSlowLittle
// (λ = 100/s, s = 20 ms, slow=10:2s: L = 20), TestSimEventFreeze,
// TestSimEventReset, TestSimEventRouterRestart (reads during the restart
// all on the other router; a read fails only at the restarted router, at
// most once per worker) and TestSimEventRouterRestartUnopenedPool.
//
// Each member keeps serverStatus.electionMetrics (every 4.2+ mongod
// reports it): the first primary counts an election by electionTimeout,
// the member elected after a step-down one handed off to it (stepUpCmd,
// as enableElectionHandoff does), each already caught up
// (numCatchUpsAlreadyCaughtUp); a standalone's and a shard's stay zero.
//
// # Server parameters
//
// getParameter and setParameter answer from one table (params.go): each
// parameter says which processes have it (routers, mongods), from which
// version, and whether setParameter may change it at run time. Replies
// and errors are a real server's: {was, ok: 1}; "no option found to
// get"; "attempted to set unrecognized parameter [X]" (InvalidOptions);
// "not allowed to change [X] at runtime" (IllegalOperation); BadValue for
// a value of the wrong type or range; "*" and showDetails. The mongods'
// read and write tickets (wiredTigerConcurrent{Read,Write}Transactions,
// and storageEngineConcurrent{Read,Write}Transactions from 7.0) are the
// spec's read_slots and write_slots: setting one changes the capacity
// the construction gives from the next operation on.
//
// # Test commands
//
// test_commands=true starts every server as --setParameter
// enableTestCommands=1 does: configureFailPoint exists and getParameter
// reports enableTestCommands true (false without it, when
// configureFailPoint is CommandNotFound, as on a real server). The only
// fail point is failCommand (failpoint.go says what of it is modeled):
// data.failCommands, failAllCommands, appName, namespace, threadName,
// blockConnection with blockTimeMS, errorCode, errorLabels and
// closeConnection; mode alwaysOn, off, {times}, {skip} or
// {activationProbability}. A blocked command holds its connection, not a
// slot: blockConnection with blockTimeMS B on every find at a rate λ
// holds λ·(B + s) connections in use, as a slowdown does
// (TestFailCommandBlockLittle: λ = 100/s, B = 190 ms, s = 10 ms), which is
// how a slowdown is made on a real server with test commands.
//
// # Versions and telemetry
//
// version=X.Y (4.0, 4.2, 4.4, 5.0, 6.0, 7.0, 8.0, 8.2; default 8.0), or a
// release of one as a real server reports it (version=7.0.0-rc6: buildInfo
// and serverStatus report that string), makes every
// reply the one that version's real mongod or mongos gives, field by field,
// following the corpus of captured and manual replies in testdata/servers
// (versions.go holds the table; the conformance test holds the replies to
// the corpus for every field poolsweep reads, listed in
// testdata/servers/read-paths.txt, and for the fields the field's own
// tools read, as mongostat's uptime, mem and globalLock: presence, BSON type
// and value domain, a whole number where the server sends one). The
// simulator reports what a real server of that version and process
// reports, and no more:
//
//   - uptime is a double holding whole seconds, uptimeMillis and
//     uptimeEstimate int64, as real servers send them (mongostat decodes
//     uptime into an integer and fails on a fraction).
//   - hello exists from 4.4 (isWritablePrimary; isMaster answers ismaster),
//     with that version's maxWireVersion; before 4.4 hello is an unknown
//     command and helloOk is never offered. topologyVersion is left out so
//     that the driver polls.
//   - serverStatus on a mongod: connections, globalLock.{currentQueue,
//     activeClients}.{total,readers,writers} from the two pools' schedules,
//     network, opLatencies.{reads,writes,commands}.{latency µs,ops} measured
//     from request parsed to reply built, opcounters (int32 before 5.0,
//     int64 from 5.0; insert per document, update and delete per statement,
//     query per find, getmore per getMore, command for the rest), and the
//     tickets per side (read, write), each from its own pool:
//     wiredTiger.concurrentTransactions.<side>.{out,available,totalTickets}
//     on 4.0–7.0, queues.execution.<side> on 8.0. From 7.0 each side has
//     its ticket holder's queue counters (addedToQueue, queueLength,
//     startedProcessing, processing, finishedProcessing, newAdmissions,
//     totalTimeQueuedMicros …) counted on the same schedule: on the side
//     itself in 7.0 (queueLength and processing int32), in exempt (all
//     zeros: nothing skips the queue here) and normalPriority blocks (int64)
//     in 8.0, as the servers' source of those versions appends them. Real
//     7.0+ servers resize their tickets under load; the simulator's pools
//     keep the size the spec gives, and totalTickets says so.
//   - A shard's server (sharded specs) reports as a mongod: globalLock,
//     tickets and queues from the shard's own pools, opLatencies and
//     opcounters of the ops its routers sent it (a find as a query, inserts
//     per document, updates and deletes per statement, a count as a
//     command), and connections including the routers' to it.
//   - A replica-set member answers hello and isMaster with its set's
//     fields (hosts, setName, setVersion, secondary, primary, me, the
//     primary's electionId, lastWrite), serverStatus with repl (the same,
//     ismaster named isWritablePrimary from 5.0, and rbid) and
//     opcountersRepl (what it applied as a secondary), and
//     replSetGetStatus with every member's state and applied optime
//     (optimeDate in seconds; lastAppliedWallTime in milliseconds, in
//     optimes from 4.2 and per member from 4.4; syncingTo through 4.2;
//     votingMembersCount from 4.4). A secondary's opcounters, opLatencies
//     and connections count what it serves to clients; its tickets and
//     globalLock include the writes it applies.
//   - serverStatus on a mongos: no tickets, execution queues or wiredTiger
//     (a real mongos has none), opLatencies only from 7.0, and globalLock
//     from 8.0 (real 8.0 routers report it) with nothing queued or active:
//     a router's ops take no global lock. The router's own slots
//     (router_slots) are not reported anywhere.
//   - 8.2 adds connection admission on every server: connections.rejected
//     (from 7.0: 6.3+), connections.queuedForEstablishment and
//     connections.establishmentRateLimit.{rejected, exempted,
//     interruptedDueToClientDisconnect} (int64), and
//     queues.ingressSessionEstablishment (addedToQueue, removedFromQueue,
//     interruptedInQueue, rejectedAdmissions, exemptedAdmissions,
//     successfulAdmissions, attemptedAdmissions, int64;
//     averageTimeQueuedMicros once a connection was admitted;
//     totalAvailableTokens a double). See "Connection admission (8.2)".
//   - extra_info (user_time_us and system_time_us from getrusage, from 4.2)
//     and mem (bits, resident, virtual from /proc/self/statm, supported)
//     describe the process, so they are reported only when Start is given
//     AloneInProcess(): the entry points that run the simulator in a
//     process of its own (poolsweep serve --sim, a test's simulator child)
//     say so; inside the process that drives the load they are left out,
//     since its CPU time would be the client's. Every server of such a
//     process reports both, as real routers, members and shards do
//     (mongostat needs mem): a standalone the whole process's; the routers
//     and shards of a cluster, or the members of a set, which share one
//     process, each a share of it. The process's CPU time is shared as it
//     grows, in proportion to the model time each server's slots were held
//     meanwhile (router_cost on a router, service time on a data server;
//     evenly while none worked), so a router's extra_info is its own work's
//     share and the servers' times add up to the process's; memory is
//     shared evenly.
//   - There is no poolsweepSimulator section in serverStatus: telemetry must
//     judge from what real servers report. buildInfo keeps its
//     poolsweepSimulator and simulatorSpec fields and the version's
//     "-poolsweep-sim" suffix, by which topology.Detect recognises the
//     simulator.
//
// connPoolStats on a router reports its pools to the shards as a mongos
// does (mongodb/mongo src/mongo/executor/connection_pool_stats.cpp): the
// totals, then pools.NetworkInterfaceTL-TaskExecutorPool-N with
// poolInUse, poolAvailable, poolCreated, poolRefreshing and per shard
// host:port inUse, available, created, refreshing, then hosts summed over
// the pools; leased, poolLeased and totalLeased from 5.0, always 0. A
// pool to a host that never opened a connection is left out, as the
// server leaves it out, and a pool dropped at its host timeout starts its
// counts again. created counts the connections a pool opened, so
// created - inUse - available are those it closed. A shard's open_conns
// for conn_cost, and its connections.current, are the connections its
// routers hold open to it.
//
// # Wire protocol
//
// OP_MSG (with checksums and kind-1 document sequences) and OP_QUERY for the
// legacy handshake, answered with OP_REPLY. hello offers no compression and
// no topologyVersion, so the driver polls rather than streams. Supported
// commands: hello/isMaster, ping, buildInfo, endSessions, find, getMore,
// killCursors, count, insert, update, delete, listCollections,
// listDatabases, create, createIndexes (recorded only), listIndexes, drop,
// dropDatabase, serverStatus, replSetGetStatus and replSetStepDown (on a
// replica set's members; a standalone answers NoReplicationEnabled),
// getParameter and setParameter (over the parameter table, below),
// configureFailPoint (with
// test_commands=true), the simulator's own poolsweepSimEvent,
// connPoolStats, hostInfo (system.numCores, and
// numCoresAvailableToProcess from 8.0, is the spec's cores=N, or this
// machine's count; cpuArch, hostname, memSizeMB, memLimitMB from 4.2 (the
// cgroup's limit when lower) and os.type as mongod reports them), saslStart
// and saslContinue
// (any PLAIN credentials are accepted, as FerretDB does; other mechanisms
// fail with AuthenticationFailed), top on mongods (each namespace's time
// and count of the data ops it served, as mongotop reads it), and on
// routers listShards and a find on config.shards (the same documents, as
// mongostat --discover reads them). A mongod's serverStatus names its
// storageEngine wiredTiger, with its version's fields.
// Anything else gets {ok:0, code:59, codeName:"CommandNotFound"}. Filters:
// {}, _id equality, $eq/$gt/$gte/$lt/$lte on _id, and equality on other
// fields, dotted paths into embedded documents included ({"holder.run_id":
// X}); sort only by _id; updates: $set, $inc, $unset (dotted paths create
// the embedded documents they need), replacement, upsert. _id may be a string, ObjectID or
// number.
package sim
