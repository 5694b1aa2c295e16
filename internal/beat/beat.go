package beat

import (
	"context"
	"time"
)

// Beating runs one function on a ticker in its own goroutine: the load
// lock's and the agents' heartbeats, which keep a coordination document
// alive while the work it guards goes on.
type Beating struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// Start calls beat every period until Stop is called or beat
// returns false. beat's context ends when Stop is called.
func Start(period time.Duration, beat func(ctx context.Context) bool) *Beating {
	ctx, cancel := context.WithCancel(context.Background())
	b := &Beating{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(b.done)
		Every(ctx, period, func() bool { return beat(ctx) })
	}()
	return b
}

// Stop ends the beating and waits for a beat in progress to finish.
func (b *Beating) Stop() {
	b.cancel()
	<-b.done
}

// Every calls f every period until ctx ends or f returns false.
func Every(ctx context.Context, period time.Duration, f func() bool) {
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
