// Command poolsweep finds the client concurrency and driver pool size
// where a MongoDB deployment saturates. See README.md and docs/.
//
// This package only parses, wires and prints: each command's file (named
// by its verb: sweep.go, analyze.go, plot.go, report.go, compare.go,
// merge.go, inspect.go, serve.go) holds its help, its flags and its run,
// which checks the flags (bad input is exit status 2 and one line naming
// the flag), hands the work to the library packages (sweep, analysis,
// plot, report, compare, results, topology) and prints what they return.
// Helpers are named by concept (progress.go, summary.go, inputs.go, …).
// Tests run the commands in-process (run, with their own streams) and,
// where a real child process matters, as a built binary.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/poolsweep/poolsweep/sweep"
)

func main() {
	ctx, cancel := context.WithCancelCause(context.Background())
	// SIGINT (Ctrl-C), SIGTERM (kill, a job runner's stop) and SIGHUP (the
	// terminal went away) all end a run the same way: the step in progress
	// is recorded as interrupted, the end record is written, and the exit
	// status is 128 + the signal's number. A second signal stops at once.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	// A closed stdout or stderr (a pipe whose reader left, after SIGHUP)
	// must fail the write, not kill the process before the end record.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	go func() {
		s := <-sigs
		cancel(sweep.Interrupt{Signal: signalName(s)})
		s = <-sigs
		os.Exit(128 + int(s.(syscall.Signal)))
	}()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	os.Exit(code)
}

func signalName(s os.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	}
	return s.String()
}
