// Package sim is a calibrated simulated MongoDB deployment: a server that
// speaks the real wire protocol over real sockets and whose capacity is
// known in advance, so that poolsweep's knee detection, sharded code paths
// and telemetry can be checked against ground truth. It is a measuring
// instrument, not a database: documents live in memory and only the query
// and update forms listed below are served (anything else is an error,
// never a silent wrong answer).
//
// # Starting one
//
//	spec, err := sim.ParseSpec("slots=8,service=2ms,conn_cost=20us,jitter=0.1")
//	d, err := sim.Start(ctx, spec) // listens on 127.0.0.1:0
//	defer d.Close()
//	uri := d.URI() // mongodb://127.0.0.1:port/ ; one host per router when sharded
//
// A spec with shards=N starts N in-process shards behind Routers routers,
// each router on its own port; the URI lists them all and the driver sees a
// sharded topology because the routers answer hello with msg:"isdbgrid".
// The defaults are in ParseSpec's documentation.
//
// # Capacity model and ground truth
//
// Only data operations (find, getMore, count, insert, update, delete) use
// capacity; hello, ping, buildInfo, serverStatus, hostInfo and the catalogue commands
// never wait, so monitoring does not disturb a measurement.
//
// A standalone server (and each shard) has `slots` execution slots. A data
// op holds one slot for
//
//	service_time = (service + conn_cost·open_conns) · U(1-jitter, 1+jitter)
//
// where open_conns is the number of connections open to that server at the
// op's arrival (client connections for a standalone, including the driver's
// monitoring connection; router connections for a shard). Ops queue FIFO for
// a slot. Slots are booked in model time (see slotPool), so the host's own
// scheduling delays make replies late but do not lower capacity.
//
// For a closed loop of N client connections each issuing one op at a time,
// with negligible client and network time:
//
//	X(N) = min(N, slots) / (service + conn_cost·N)          ops/s
//	peak = slots / service at N = slots (the knee)          when conn_cost = 0
//	peak = slots / (service + conn_cost·slots) at N = slots when conn_cost > 0
//	past the peak, X(N) falls as slots / (service + conn_cost·N)
//
// so with slots=8,service=2ms the peak is 4000 ops/s and the knee 8; with
// conn_cost=50us as well, 3333 ops/s at 8 falling to 1538 at 64. Real
// clients add their own time per op, so X(N) is a little lower below the
// knee and the 95%-of-peak point is often one grid step later (16 for 8).
//
// A sharded deployment routes each op through a router: one router slot
// (of router_slots) for router_cost, released before the op goes on to the
// shards, as a mongos does not hold a thread while shards work. An op with
// an _id equality goes to the shard FNV-1a(_id) mod shards; other finds,
// counts and multi updates/deletes go to every shard at once (one data op
// per shard) and range results are merged in _id order; single
// updates/deletes without an _id try the shards in turn. Hence
//
//	capacity ≈ min(shards · slots/service, routers · router_slots/router_cost)
//
// for point operations spread over the shards (Spec.Throughput gives the
// model curve, Spec.Peak its maximum).
//
// # Telemetry
//
// serverStatus reports counted values with MongoDB's field names and types:
// connections.{current,available,totalCreated,active}; opcounters (insert per
// document, update and delete per statement, query per find, getmore per
// getMore, command for everything else, count included);
// opLatencies.{reads,writes,commands}.{latency µs,ops} measured from request
// parsed to reply built; globalLock.currentQueue and activeClients from the
// slot schedule; queues.execution and wiredTiger.concurrentTransactions
// {read,write}.{out,available,totalTickets} for the one slot pool, which
// reads and writes share (read.out + write.out + available = totalTickets);
// network.{bytesIn,bytesOut,numRequests}; and a poolsweepSimulator section
// with the spec. On a router these describe the router's own slots.
// extra_info is omitted: the simulator usually runs inside the process that
// drives the load, and its CPU time could not be told apart.
//
// connPoolStats on a router reports its connections to the shards, modeled
// as a pool: an op in flight to a shard holds one, a finished op returns it
// idle, and one is created only when none is idle; they are never closed.
// So totalInUse is the ops in flight to shards, totalCreated the most ever
// in flight at once, and totalAvailable = totalCreated - totalInUse. A shard's
// open_conns for conn_cost is the total created to it by all routers.
//
// # Wire protocol
//
// OP_MSG (with checksums and kind-1 document sequences) and OP_QUERY for the
// legacy handshake, answered with OP_REPLY. hello offers no compression and
// no topologyVersion, so the driver polls rather than streams. Supported
// commands: hello/isMaster, ping, buildInfo, endSessions, find, getMore,
// killCursors, count, insert, update, delete, listCollections,
// listDatabases, create, createIndexes (recorded only), listIndexes, drop,
// dropDatabase, serverStatus, connPoolStats, hostInfo (system.numCores is
// the spec's cores=N, or this machine's count; cpuArch, hostname, memSizeMB
// and os.type as mongod reports them), saslStart and saslContinue
// (any PLAIN credentials are accepted, as FerretDB does; other mechanisms
// fail with AuthenticationFailed), and on routers listShards.
// Anything else gets {ok:0, code:59, codeName:"CommandNotFound"}. Filters:
// {}, _id equality, $eq/$gt/$gte/$lt/$lte on _id, and equality on other
// top-level fields; sort only by _id; updates: $set, $inc, $unset on
// top-level fields, replacement, upsert. _id may be a string, ObjectID or
// number.
package sim
