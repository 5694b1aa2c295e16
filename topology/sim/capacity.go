package sim

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// opKind classifies an operation the way serverStatus does: reads and writes
// queue for slots; commands never do.
type opKind int

const (
	kindCommand opKind = iota
	kindRead
	kindWrite
)

// slotPool is a counting semaphore with a FIFO queue of waiters, the model of
// a server's execution tickets. FIFO matters: a LIFO or random wake-up order
// would give the same throughput but a different latency distribution from
// the one a ticket queue produces.
type slotPool struct {
	mu      sync.Mutex
	total   int
	free    int
	waiters []*slotWaiter
	// Counted for telemetry, under mu.
	queued    [3]int // by opKind
	active    [3]int
	maxQueued int
	acquired  int64
	waitNanos int64
	holdNanos int64
}

type slotWaiter struct {
	ready chan struct{}
	kind  opKind
}

func newSlotPool(n int) *slotPool {
	return &slotPool{total: n, free: n}
}

// acquire takes a slot, waiting in FIFO order. It returns ctx.Err() if the
// context ends first; the slot is then not held.
func (p *slotPool) acquire(ctx context.Context, kind opKind) error {
	start := time.Now()
	p.mu.Lock()
	if p.free > 0 && len(p.waiters) == 0 {
		p.free--
		p.active[kind]++
		p.acquired++
		p.mu.Unlock()
		return nil
	}
	w := &slotWaiter{ready: make(chan struct{}), kind: kind}
	p.waiters = append(p.waiters, w)
	p.queued[kind]++
	if q := len(p.waiters); q > p.maxQueued {
		p.maxQueued = q
	}
	p.mu.Unlock()
	select {
	case <-w.ready:
		p.mu.Lock()
		p.waitNanos += int64(time.Since(start))
		p.mu.Unlock()
		return nil
	case <-ctx.Done():
		p.mu.Lock()
		for i, x := range p.waiters {
			if x == w {
				p.waiters = append(p.waiters[:i], p.waiters[i+1:]...)
				p.queued[kind]--
				p.mu.Unlock()
				return ctx.Err()
			}
		}
		p.mu.Unlock()
		// The slot was handed over just as ctx ended: give it back so it
		// is not lost.
		p.release(kind, 0)
		return ctx.Err()
	}
}

// release returns a slot held for held, handing it straight to the oldest
// waiter so a newcomer cannot overtake the queue.
func (p *slotPool) release(kind opKind, held time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.active[kind]--
	p.holdNanos += int64(held)
	if len(p.waiters) > 0 {
		w := p.waiters[0]
		p.waiters[0] = nil
		p.waiters = p.waiters[1:]
		p.queued[w.kind]--
		p.active[w.kind]++
		p.acquired++
		close(w.ready)
		return
	}
	p.free++
}

// slotSnapshot is a consistent copy of a pool's counters.
type slotSnapshot struct {
	Total, Free               int
	QueuedReads, QueuedWrites int
	ActiveReads, ActiveWrites int
	MaxQueued                 int
	Acquired                  int64
	WaitTotal, HoldTotal      time.Duration
}

func (p *slotPool) snapshot() slotSnapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slotSnapshot{
		Total: p.total, Free: p.free,
		QueuedReads: p.queued[kindRead], QueuedWrites: p.queued[kindWrite],
		ActiveReads: p.active[kindRead], ActiveWrites: p.active[kindWrite],
		MaxQueued: p.maxQueued, Acquired: p.acquired,
		WaitTotal: time.Duration(p.waitNanos), HoldTotal: time.Duration(p.holdNanos),
	}
}

// serviceTime draws one op's service time: (base + perConn·conns) scaled by
// uniform noise in [1-jitter, 1+jitter], so the mean is unchanged by jitter.
func serviceTime(base, perConn time.Duration, conns int64, jitter float64, rnd func() float64) time.Duration {
	d := float64(base) + float64(perConn)*float64(max(conns, 0))
	if jitter > 0 {
		d *= 1 + jitter*(2*rnd()-1)
	}
	if d < 0 {
		return 0
	}
	return time.Duration(d)
}

// sleeper sleeps for a mean duration that matches the request, correcting
// for the timer's overshoot: it keeps a moving average of how late
// preciseSleep wakes (about 10µs on an idle machine, more when the CPUs are
// busy and the woken goroutine waits to run) and asks for that much less, so
// slots are held for the modeled time on average. A request shorter than the
// average overshoot is dithered (slept with probability d/overshoot, skipped
// otherwise) so its mean is still d.
type sleeper struct {
	overshoot atomic.Int64 // nanoseconds, moving average
}

// maxOvershootSample bounds one sample so a descheduled thread on a busy
// machine does not make the correction overshoot the other way.
const maxOvershootSample = int64(300 * time.Microsecond)

func newSleeper() *sleeper {
	s := &sleeper{}
	s.overshoot.Store(int64(10 * time.Microsecond))
	return s
}

// sleep blocks for about d; it does not watch a context because d is at
// most one op's service time.
func (s *sleeper) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	est := s.overshoot.Load()
	req := int64(d) - est
	if req <= 0 {
		if rand.Float64()*float64(est) >= float64(d) {
			return
		}
		req = 1
	}
	start := time.Now()
	preciseSleep(time.Duration(req))
	sample := min(max(int64(time.Since(start))-req, 0), maxOvershootSample)
	// EWMA with weight 1/16; a lost update between racing sleepers only
	// drops one sample.
	s.overshoot.Store(est + (sample-est)/16)
}
