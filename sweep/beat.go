package sweep

import (
	"context"
	"time"
)

// beating runs one function on a ticker in its own goroutine: the load
// lock's and the agents' heartbeats, which keep a coordination document
// alive while the work it guards goes on.
type beating struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startBeating calls beat every period until stop is called or beat
// returns false. beat's context ends when stop is called.
func startBeating(period time.Duration, beat func(ctx context.Context) bool) *beating {
	ctx, cancel := context.WithCancel(context.Background())
	b := &beating{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		every(ctx, period, func() bool { return beat(ctx) })
	}()
	return b
}

// stop ends the beating and waits for a beat in progress to finish.
func (b *beating) stop() {
	b.cancel()
	<-b.done
}

// every calls f every period until ctx ends or f returns false.
func every(ctx context.Context, period time.Duration, f func() bool) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !f() {
			return
		}
	}
}

// pause waits d, or until ctx ends.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
