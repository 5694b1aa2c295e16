// Package telemetry measures what the server, the driver pool, the client
// process and the load host it runs on were doing during a step's measured
// window. It holds samplers only: what bound the step is judged from their
// numbers afterwards, by package bound (analysis/bound).
//
// It fills the telemetry of a step record (results.ServerTelemetry,
// results.ClientTelemetry). An Observer (the engine's sweep.WindowObserver)
// brackets each window with the samplers: a ServerSampler polls
// serverStatus on every host (and asks hostInfo for its cores once) and,
// behind a sharded cluster's routers, on each shard's primary (shards.go), a
// ProcSampler reads the /proc entry of a server poolsweep started, and a
// ClientSampler reads this process and the load host (PSI, /proc/stat, the
// kernel's and the Go scheduler's run-queue waits).
//
// Every field read from a server goes through one reader (status.go), so
// that a test holds the parser to testdata/servers/read-paths.txt and pins
// what it reads from each real reply of the corpus.
//
// A number the server or the platform does not report stays nil all the
// way to results.jsonl, never a zero that looks measured; a sampling error
// is counted on the step and never fails it.
package telemetry
