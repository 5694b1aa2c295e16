package beat

import (
	"context"
	"time"
)

// Pause waits d, or until ctx ends: the polls between a coordinator's
// looks at its documents.
func Pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Until waits until the wall clock reads at, or until ctx ends: the
// agreed start of a step in agent mode.
func Until(ctx context.Context, at time.Time) error {
	d := time.Until(at)
	if d <= 0 {
		return ctx.Err()
	}
	return Pause(ctx, d)
}
