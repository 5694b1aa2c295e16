// Command poolsweep finds the client concurrency and driver pool size
// where a MongoDB deployment saturates. See README.md and docs/.
//
// main handles the signals and runs cli/root, which puts the commands
// together: one package per command under cli/ (cli/analyze, cli/plot,
// …), each with its Options, its flags and NewCmdX(e, runF), and
// cli/cmdutil for what they share. The sweep command (sweep*.go, with
// gates.go, progress*.go, summary.go, …) is still here while its run
// moves into the run library (issue 34): root.go hands it to cli/root
// (root.Extra), and cmdutil_aliases.go keeps its files compiling on
// cli/cmdutil. Tests run the commands in-process (run, with their own
// streams) and, where a real child process matters, as a built binary.
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
