package sim

import (
	"context"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// 8.2's connection-establishment rate limiter, as the server's
// SessionEstablishmentRateLimiter runs it (mongodb/mongo
// src/mongo/db/admission/README.md, "Session Establishment Rate Limiter";
// rate_limiter.cpp): a token bucket refilled at
// ingressConnectionEstablishmentRatePerSec tokens a second, holding at most
// rate × ingressConnectionEstablishmentBurstCapacitySecs, and starting
// full. A new connection takes a token before its first request is read; with
// none left it borrows one (the bucket goes negative) and waits until the
// refill has paid it back, unless ingressConnectionEstablishmentMaxQueueDepth
// connections wait already: then it is rejected and closed. Every waiter
// counts in connections.queuedForEstablishment and not in
// connections.current; connections.totalCreated counts a connection once
// it has its token.

// ingressLimiter is one listening server's limiter; nil when the spec
// leaves it off (ingressConnectionEstablishmentRateLimiterEnabled false,
// the server's default).
type ingressLimiter struct {
	rate, capacity float64 // tokens per second, bucket size
	maxQueue       int64

	mu     sync.Mutex
	tokens float64   // may be negative: tokens borrowed by waiters
	last   time.Time // when tokens was last refilled
	queued int64     // connections waiting now

	attempted, successful, rejected atomic.Int64
	added, removed, interrupted     atomic.Int64
	queuedMicros                    atomic.Int64 // total wait of admitted connections
	exempted                        atomic.Int64 // never counted: no bypass ranges, see admit
}

func newIngressLimiter(s Spec) *ingressLimiter {
	if !s.IngressLimiter {
		return nil
	}
	capacity := float64(s.IngressRate) * s.IngressBurst
	if math.IsNaN(capacity) || capacity > math.MaxInt64 {
		capacity = math.Inf(1)
	}
	return &ingressLimiter{
		rate: float64(s.IngressRate), capacity: capacity, maxQueue: int64(s.IngressQueue),
		tokens: capacity, last: time.Now(),
	}
}

// refillLocked adds the tokens earned since the last refill, up to the
// bucket's size.
func (l *ingressLimiter) refillLocked(now time.Time) {
	if dt := now.Sub(l.last).Seconds(); dt > 0 {
		l.tokens = math.Min(l.capacity, l.tokens+dt*l.rate)
		l.last = now
	}
}

// admit gives a new connection its token: at once, after waiting its turn
// in the queue, or never (false: reject it, or the deployment is closing).
// The ingressConnectionEstablishmentRateLimiterBypass ranges are empty by
// default, so no connection is exempted. A client that gives up while
// queued is admitted when its turn comes and then found closed: a real
// server notices the disconnect in the queue
// (interruptedDueToClientDisconnect), the simulator does not.
func (l *ingressLimiter) admit(ctx context.Context, s *sleeper) bool {
	l.attempted.Add(1)
	now := time.Now()
	l.mu.Lock()
	l.refillLocked(now)
	if l.tokens >= 1 {
		l.tokens--
		l.mu.Unlock()
		l.successful.Add(1)
		return true
	}
	if l.queued >= l.maxQueue {
		l.mu.Unlock()
		l.rejected.Add(1)
		return false
	}
	// Borrow: wait until the refill has brought the balance back to where
	// it was before this token was taken.
	l.tokens--
	// tokens was below 1, so it is negative now.
	wake := now.Add(time.Duration(-l.tokens / l.rate * float64(time.Second)))
	l.queued++
	l.mu.Unlock()
	l.added.Add(1)
	err := s.until(ctx, wake)
	l.mu.Lock()
	l.queued--
	l.mu.Unlock()
	l.removed.Add(1)
	if err != nil {
		l.interrupted.Add(1)
		return false
	}
	l.successful.Add(1)
	l.queuedMicros.Add(time.Since(now).Microseconds())
	return true
}

// waiting is connections.queuedForEstablishment now.
func (l *ingressLimiter) waiting() int64 {
	if l == nil {
		return 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.queued
}

// ingressConnections are 8.2's connections.queuedForEstablishment and
// connections.establishmentRateLimit, int64 as
// SessionEstablishmentRateLimiter::appendStatsConnections appends them
// (a later server, with the priority port, writes them int32). A limiter
// that is off counts nothing and reports zeros, as the server's does.
func (l *ingressLimiter) ingressConnections() bson.D {
	// interruptedDueToClientDisconnect stays 0: the simulator does not see
	// a client leave the queue (see admit); a deployment closing on
	// waiters is interruptedInQueue only.
	var queued, rejected, exempted, interrupted int64
	if l != nil {
		queued, rejected, exempted = l.waiting(), l.rejected.Load(), l.exempted.Load()
	}
	return bson.D{
		{Key: "queuedForEstablishment", Value: queued},
		{Key: "establishmentRateLimit", Value: bson.D{
			{Key: "rejected", Value: rejected},
			{Key: "exempted", Value: exempted},
			{Key: "interruptedDueToClientDisconnect", Value: interrupted},
		}},
	}
}

// ingressQueue is 8.2's queues.ingressSessionEstablishment
// (RateLimiter::appendStats): int64 counters, averageTimeQueuedMicros only
// once a connection was admitted (the server appends it when it has an
// average; int64 as the manual writes it), and totalAvailableTokens a
// double, capped at INT64_MAX for an unbounded bucket as the server caps
// it for FTDC.
func (l *ingressLimiter) ingressQueue() bson.D {
	var added, removed, interrupted, rejected, exempted, successful, attempted, queuedMicros int64
	tokens := math.Inf(1)
	if l != nil {
		added, removed, interrupted = l.added.Load(), l.removed.Load(), l.interrupted.Load()
		rejected, exempted, successful, attempted = l.rejected.Load(), l.exempted.Load(), l.successful.Load(), l.attempted.Load()
		queuedMicros = l.queuedMicros.Load()
		l.mu.Lock()
		l.refillLocked(time.Now())
		tokens = math.Max(0, l.tokens)
		l.mu.Unlock()
	}
	d := bson.D{
		{Key: "addedToQueue", Value: added},
		{Key: "removedFromQueue", Value: removed},
		{Key: "interruptedInQueue", Value: interrupted},
		{Key: "rejectedAdmissions", Value: rejected},
		{Key: "exemptedAdmissions", Value: exempted},
		{Key: "successfulAdmissions", Value: successful},
		{Key: "attemptedAdmissions", Value: attempted},
	}
	if successful > 0 {
		d = append(d, bson.E{Key: "averageTimeQueuedMicros", Value: queuedMicros / successful})
	}
	return append(d, bson.E{Key: "totalAvailableTokens", Value: math.Min(tokens, math.MaxInt64)})
}
