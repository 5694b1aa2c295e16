package teardown

import (
	"context"
	"testing"
	"time"
)

func TestWithin(t *testing.T) {
	stuck := make(chan struct{})
	defer close(stuck)
	tests := []struct {
		name     string
		ctx      time.Duration
		f        func(context.Context)
		done     bool
		min, max time.Duration // how long Within takes
	}{
		// f returns at once: so does Within, long before its context ends.
		{"quick", 10 * time.Second, func(context.Context) {}, true, 0, 5 * time.Second},
		// f honours its context: Within returns when f does.
		{"honours ctx", 50 * time.Millisecond, func(ctx context.Context) { <-ctx.Done() }, true, 50 * time.Millisecond, Grace},
		// f ignores its context: Within gives up Grace after it ends.
		{"ignores ctx", 50 * time.Millisecond, func(context.Context) { <-stuck }, false, 50*time.Millisecond + Grace, 50*time.Millisecond + Grace + 2*time.Second},
	}
	for _, tt := range tests {
		// start before the context's clock: its deadline is then at least
		// tt.ctx after start (taken the other way round, a fast return read
		// 49.97 ms against the 50-ms floor).
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), tt.ctx)
		done := Within(ctx, tt.f)
		took := time.Since(start)
		cancel()
		if done != tt.done || took < tt.min || took > tt.max {
			t.Errorf("%s: Within returned %v after %s; want %v after %s to %s", tt.name, done, took, tt.done, tt.min, tt.max)
		}
	}
}
