// Package topology is what poolsweep knows of a deployment before it
// measures: it parses targets (name=URI, name=sim:SPEC) and refuses a URI
// that would fail the run once started (ValidateURI), connects and tells what a deployment is (Detect: standalone,
// replica set or sharded; MongoDB, FerretDB or the simulator), captures
// and scrubs a server's replies for inspect (CaptureReplies), and hides
// credentials wherever text may echo them (Redact).
//
// It starts the servers poolsweep runs itself as a child process
// (StartChild runs `poolsweep serve`), so that their CPU is not the
// client's. The servers live below it and it imports neither:
// topology/embedded (FerretDB inside a process) and topology/sim (the
// calibrated simulator).
package topology
