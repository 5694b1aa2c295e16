// Package telemetry measures what the server, the driver pool and the client
// process were doing during a step's measured window, and labels what bound
// the step.
//
// It fills the telemetry types of package sweep (sweep.ServerTelemetry,
// sweep.ClientTelemetry, sweep.LittlesLaw, StepResult.Bound): a
// ServerSampler polls serverStatus on every host, a ProcSampler reads an
// embedded server's /proc entry, a ClientSampler reads this process, and the
// pure functions LittlesLaw and Classify judge a finished step.
//
// A number the server does not report stays nil all the way to
// results.jsonl, never a zero that looks measured; a sampling error is
// counted on the step and never fails it.
package telemetry
