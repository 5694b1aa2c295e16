// Package fleet turns one client's measured curve into pool budgets for a
// fleet of N application instances, each with its own driver pool to
// every host: the maxPoolSize per instance that keeps the fleet's
// in-flight demand per host at the measured knee, not past it, and within
// the server's connection limit. It is a pure function of the results
// files and their one analysis (analysis.Of); it never measures.
//
// # The model
//
// A connection carries one operation at a time, so N instances with a pool
// of P per host put at most N·P operations in flight on each host that
// serves them, and the deployment's in-flight work is at most N·P·k, k
// being the hosts that share the load: the routers of a sharded cluster
// (the driver spreads operations over the mongos it knows), the members
// the read preference reaches in a replica set (primary and
// primaryPreferred: 1; secondary and secondaryPreferred: members−1;
// nearest: all), and 1 for a standalone.
//
// The measured curve X(n) is throughput against the calls in flight n over
// all clients (concurrency × clients, capped by clients × maxPoolSize × k
// when the pool was numbered). Between levels it is interpolated linearly,
// below the first level linearly from the origin, and past the last level
// it is held flat at the last level's throughput (marked extrapolated).
//
// Demand is closed-loop: each instance has C callers (--concurrency;
// by default the measured knee's concurrency per client: each instance as
// busy as the measured client was at its knee). With D = N·C callers and
// n = min(D, N·P·k) of them holding connections:
//
//	throughput            X(n)                         (the measured curve)
//	time in a connection  n / X(n)    per call          (Little's law)
//	pool queue            D − n       calls             (callers without a connection)
//	pool wait             (D − n) / X(n)  per call      (Little's law on the queue)
//
// so past the knee a larger pool moves the wait from the pool into the
// server and buys no throughput, while each connection costs memory and a
// share of the server's limit; below the knee a smaller pool loses
// throughput. The recommendation is the largest P with N·P ≤ the knee's
// in-flight per host (n_knee / k) and N·(P + m) within the limit, m being
// the driver's monitoring connections per instance per host (counted for
// every host the instance knows): measured by a connection sweep when one
// is given (Options.Costs), else by the server's version, 2 from 4.4 (the
// streaming monitor and the round-trip monitor of the server-discovery
// spec) and 1 before.
//
// The limit per host is serverStatus connections.current + available, as
// the step records' telemetry holds them (the smallest over the target's
// hosts; a real mongod's is min(net.maxIncomingConnections, 80% of its
// open-file limit)), or --max-connections, or a named limit (an Atlas
// tier's, less the 10 connections Atlas reserves per node). Memory per
// connection is a connection sweep's measurement when one is given, else
// --conn-memory, else about 1 MiB on mongod (the connection's thread and
// buffers: MongoDB's own guidance, "~1 MB per connection on average"),
// and the plan says which.
//
// An autoscaling fleet (Options.Trace) is planned at its peak size, and
// its trace adds the peak's connections per host with full pools, the
// fewest instances' connections with pools at minPoolSize (once idle
// longer than maxIdleTimeMS; never, when it is 0), and for each
// scale-out of Δ instances the Δ·(minPoolSize + m) connections per host
// opened at start and Δ·(P + m) once full, timed at a storm run's accept
// rate for K = Δ clients (the restart's rule).
//
// Open-loop results (sweep --rate) give the rate form instead: the highest
// rate the deployment carried (its p99 within the SLO, or latency not yet
// growing), divided over the N instances, and the pool each instance needs
// for its share: in-flight calls per instance per host are taken as
// Poisson with mean λ·W (an M/G/∞ view, λ the instance's rate per host and
// W the measured mean time a call held connections: the service time), and
// the pool is their 99.9th percentile.
package fleet
