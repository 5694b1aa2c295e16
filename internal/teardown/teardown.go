// Package teardown bounds waiting for cleanup that may not honour its
// context: closing driver clients at the end of a step or a sweep.
package teardown

import (
	"context"
	"time"
)

// Grace is how long Within waits for f past the end of its context.
const Grace = time.Second

// Within runs f(ctx) and returns true once f has returned, or false Grace
// after ctx ends if f has not; f is then left to finish on its own. The
// driver's Disconnect can outlive its context: with connectTimeoutMS=0 it
// waits, before it looks at the context, for a connection handshake that
// nothing cancels and that a stopped server never answers.
func Within(ctx context.Context, f func(context.Context)) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(ctx)
	}()
	select {
	case <-done:
		return true
	case <-ctx.Done():
	}
	t := time.NewTimer(Grace)
	defer t.Stop()
	select {
	case <-done:
		return true
	case <-t.C:
		return false
	}
}
