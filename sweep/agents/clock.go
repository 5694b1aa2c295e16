package agents

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// clockOffset estimates the target's clock minus this host's from the
// hello reply's localTime, keeping the sample with the shortest round
// trip; nil when the target reports no time (this host's clock is used).
func (a *Agent) clockOffset(ctx context.Context) *time.Duration {
	var (
		best    time.Duration
		bestRTT = time.Duration(-1)
	)
	for range 5 {
		t0 := time.Now()
		raw, err := a.client.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Raw()
		t1 := time.Now()
		if err != nil {
			continue
		}
		ms, ok := raw.Lookup("localTime").DateTimeOK()
		if !ok {
			return nil
		}
		rtt := t1.Sub(t0)
		if bestRTT < 0 || rtt < bestRTT {
			// localTime has millisecond resolution: its middle is +0.5 ms.
			server := time.UnixMilli(ms).Add(500 * time.Microsecond)
			best, bestRTT = server.Sub(t0.Add(rtt/2)), rtt
		}
	}
	if bestRTT < 0 {
		return nil
	}
	return &best
}

// refNow is now on the reference clock; toLocal turns a reference time
// into this host's.
func (a *Agent) refNow() time.Time {
	if a.offset == nil {
		return time.Now()
	}
	return time.Now().Add(*a.offset)
}

func (a *Agent) toLocal(t time.Time) time.Time {
	if a.offset == nil {
		return t
	}
	return t.Add(-*a.offset)
}

func (a *Agent) toRef(t time.Time) time.Time {
	if a.offset == nil {
		return t
	}
	return t.Add(*a.offset)
}
