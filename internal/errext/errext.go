// Package errext is the one home of poolsweep's exit statuses and of the
// error kinds that choose them (k6's errext): a command returns an error,
// wrapped as deep as it likes with %w, and ExitCode says which status it
// ends the process with. Only the CLI turns an error into a status; the
// run library returns these kinds so that it does not have to know how.
package errext

import (
	"context"
	"errors"
	"fmt"
)

// Exit statuses (sweep --help and the README's table document them).
const (
	ExitOK          = 0
	ExitFailed      = 1
	ExitUsage       = 2
	ExitPartial     = 3   // the run ended, but some steps could not be measured
	ExitGate        = 4   // a --threshold failed, or compare --fail-on-regression found a regression
	ExitInterrupted = 130 // 128 + SIGINT; SIGTERM gives 143, SIGHUP 129
	// ExitClosedStdout: the reader of stdout left before poolsweep was done
	// writing (poolsweep analyze … | head -1). poolsweep ends quietly with
	// 128 + SIGPIPE, the status of a tool that SIGPIPE ended, so a
	// pipeline (set -o pipefail) sees what it sees of cat or grep.
	ExitClosedStdout = 141
)

// signalNumbers are the signals a run stops for, by the name the end
// record gives them; the exit status is 128 + the number.
var signalNumbers = map[string]int{"SIGHUP": 1, "SIGINT": 2, "SIGTERM": 15}

// UsageError is bad input: exit status 2, one line naming the flag,
// field or file.
type UsageError struct{ Err error }

func (u UsageError) Error() string { return u.Err.Error() }
func (u UsageError) Unwrap() error { return u.Err }

// Usagef is a UsageError made with fmt.Errorf: a %w in format keeps the
// wrapped error reachable by errors.Is and errors.As.
func Usagef(format string, a ...any) error { return UsageError{fmt.Errorf(format, a...)} }

// BadInput marks err as bad input; nil stays nil.
func BadInput(err error) error {
	if err == nil {
		return nil
	}
	return UsageError{err}
}

// GateError ends a run that failed a gate (a threshold, a regression):
// exit status 4.
type GateError struct{ Msg string }

func (g GateError) Error() string { return g.Msg }

// PartialError ends a run whose steps did not all run: exit status 3.
type PartialError struct{ Msg string }

func (p PartialError) Error() string { return p.Msg }

// InterruptedError ends a run stopped by a signal (or, for an agent, by
// its leader); the exit status is that signal's convention.
type InterruptedError struct{ Signal string }

func (i InterruptedError) Error() string {
	if i.Signal == "" {
		return "interrupted"
	}
	return "interrupted by " + i.Signal
}

// Interrupt is the cause a signal handler cancels the process's context
// with; InterruptedBy reads it back.
type Interrupt struct{ Signal string }

func (i Interrupt) Error() string { return "interrupted by " + i.Signal }

// InterruptedBy is the InterruptedError of a context that a signal
// ended: its cause's signal, or none.
func InterruptedBy(ctx context.Context) error {
	var in Interrupt
	if errors.As(context.Cause(ctx), &in) {
		return InterruptedError{in.Signal}
	}
	return InterruptedError{}
}

// ExitCode is the exit status err calls for: the one place that maps an
// error to a status (nil is OK).
func ExitCode(err error) int {
	var (
		u  UsageError
		in InterruptedError
		p  PartialError
		g  GateError
	)
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &in):
		if n, ok := signalNumbers[in.Signal]; ok {
			return 128 + n
		}
		return ExitInterrupted
	case errors.As(err, &p):
		return ExitPartial
	case errors.As(err, &g):
		return ExitGate
	case errors.As(err, &u):
		return ExitUsage
	}
	return ExitFailed
}
