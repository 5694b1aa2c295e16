// Package runner is a sweep run as a library: given the options a command
// line parsed (Options), Run checks where the results go, starts the
// servers the run owns, detects the targets, builds the session, its
// planner and its coordinator (one process, one agent of several, or
// --spawn's agents on this machine), the sinks that follow it (the
// results file, progress, metrics), runs it, concludes from the results
// in memory (one analysis, the threshold outcomes), writes the figures
// and the report, and returns all of it as one Result, whose Err carries
// the exit status (errext.ExitCode).
//
// It never prints to the terminal: what a run says on its way goes to the
// writer Options.Messages names (or the JSON events sink), and the caller
// prints the Result. Contexts go one way: from the caller into Run, and
// from Run into sweep.Session and below.
package runner
