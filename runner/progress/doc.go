// Package progress renders a running sweep for a person or a program:
// the plan line it starts with, a line per step (with a live line on a
// terminal), or one JSON event per line (docs/progress.md). Each sink
// takes the session's hooks (sweep.SessionHooks) and writes to the
// io.Writer it was given, as vegeta's reporters do; none of them decides
// anything about the run.
package progress
