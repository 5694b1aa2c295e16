// Package telemetry measures what the server, the driver pool, the client
// process and the load host it runs on were doing during a step's measured
// window, and labels what bound the step.
//
// It fills the telemetry types of package sweep (results.ServerTelemetry,
// results.ClientTelemetry, results.LittlesLaw, StepResult.Bound). An Observer
// (a sweep.WindowObserver) brackets each window with the samplers: a
// ServerSampler polls serverStatus on every host (and asks hostInfo for its
// cores once), a ProcSampler reads the /proc entry of a server poolsweep
// started, and a ClientSampler reads this process and the load host (PSI,
// /proc/stat, the kernel's and the Go scheduler's run-queue waits). The
// pure functions LittlesLaw and Classifier.Classify judge a finished step;
// ClientLimited says whether this machine, not the server, set its numbers.
//
// A number the server or the platform does not report stays nil all the
// way to results.jsonl, never a zero that looks measured; a sampling error
// is counted on the step and never fails it.
package telemetry
