package errext

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestExitCode(t *testing.T) {
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		{"nil is done", nil, ExitOK},
		{"a plain error failed the run", errors.New("disk full"), ExitFailed},
		{"bad input", Usagef("--pool: %s", "x"), ExitUsage},
		{"bad input wrapped further up", fmt.Errorf("sweep: %w", Usagef("--pool: x")), ExitUsage},
		{"a partial run", PartialError{Msg: "partial"}, ExitPartial},
		{"a failed gate", fmt.Errorf("compare: %w", GateError{Msg: "2 regressions"}), ExitGate},
		{"SIGTERM is 128+15", InterruptedError{Signal: "SIGTERM"}, 143},
		{"SIGHUP is 128+1", InterruptedError{Signal: "SIGHUP"}, 129},
		{"the leader stopping an agent is SIGINT's status", InterruptedError{Signal: "the leader"}, ExitInterrupted},
		// An interruption outranks bad input found on the way down.
		{"interrupted while reading input", Usagef("--resume: %w", InterruptedError{Signal: "SIGINT"}), 130},
	} {
		if got := ExitCode(c.err); got != c.want {
			t.Errorf("%s: ExitCode = %d, want %d", c.name, got, c.want)
		}
	}
}

// A %w in Usagef keeps the cause reachable: the 49 "%v" calls this
// package replaced lost it.
func TestUsagefKeepsTheCause(t *testing.T) {
	err := Usagef("--out: %w", fs.ErrExist)
	if !errors.Is(err, fs.ErrExist) {
		t.Fatalf("errors.Is lost the cause through Usagef: %v", err)
	}
	if BadInput(nil) != nil {
		t.Fatal("BadInput(nil) is not nil")
	}
}

func TestInterruptedBy(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(Interrupt{Signal: "SIGTERM"})
	if got := ExitCode(InterruptedBy(ctx)); got != 143 {
		t.Fatalf("a context ended by SIGTERM exits %d, want 143", got)
	}
	ctx, cancel = context.WithCancelCause(context.Background())
	cancel(nil)
	if got := ExitCode(InterruptedBy(ctx)); got != ExitInterrupted {
		t.Fatalf("a context ended without a signal exits %d, want %d", got, ExitInterrupted)
	}
}
