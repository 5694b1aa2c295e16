package sim

import (
	"container/heap"
	"context"
	"math/rand/v2"
	"slices"
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

// slotPool models a server's execution slots (cores, WiredTiger tickets) as
// a FIFO multi-server queue scheduled in model time.
//
// Why model time: a first version handed slots from goroutine to goroutine
// and held them for a measured sleep. On a busy 2-core host every hand-over
// and every wake-up then waited for a CPU, and those delays were added to
// the time a slot was held, so capacity fell with the host's load. Here an
// arriving op is given the slot that frees first: it starts at
// max(now, slot free), finishes at start + service, and the slot is booked
// until then. The op's goroutine sleeps until the finish time. A late
// wake-up makes that op's reply late but does not delay the next op's start,
// so with a queue present the pool completes exactly slots/service ops per
// second. An op booked ahead of its arrival (bookAt) takes the slot that
// is free by then, last (slotFor). Queued and active counts are read off
// the same schedule: an op is queued between its arrival and its start,
// active between start and finish.
type slotPool struct {
	mu    sync.Mutex
	total int
	epoch time.Time
	free  timeHeap[freeAt] // when each slot is next free, ns since epoch
	// arrivals holds ops booked ahead of their arrival (bookAt: a write
	// on its way to a secondary), in arrival order; they count as queued
	// only once they have arrived.
	arrivals []booking
	// starts holds booked ops by start. Booking order is not start
	// order: an op booked ahead of its arrival starts after an op booked
	// later that arrives into a free slot at once.
	starts   timeHeap[booking]
	finishes timeHeap[booking] // by finish
	booked   [3]int64          // by opKind
	started  [3]int64
	finished [3]int64

	maxQueued int
	waited    int64 // ops that queued before their start
	acquired  int64
	waitNanos int64
	holdNanos int64
}

type booking struct {
	at   int64 // start (in starts) or finish (in finishes)
	kind opKind
}

func newSlotPool(n int) *slotPool {
	return &slotPool{total: n, epoch: time.Now(), free: make(timeHeap[freeAt], n)}
}

// advance moves ops whose start or finish is at or before now along.
// The caller holds mu.
func (p *slotPool) advance(now int64) {
	n := 0
	for n < len(p.arrivals) && p.arrivals[n].at <= now {
		p.booked[p.arrivals[n].kind]++
		n++
	}
	p.arrivals = p.arrivals[n:]
	for len(p.starts) > 0 && p.starts[0].at <= now {
		b := heap.Pop(&p.starts).(booking)
		p.started[b.kind]++
	}
	for len(p.finishes) > 0 && p.finishes[0].at <= now {
		b := heap.Pop(&p.finishes).(booking)
		p.finished[b.kind]++
	}
}

// book schedules one op of the given service time and returns how long
// from now it finishes.
func (p *slotPool) book(kind opKind, service time.Duration) time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := int64(time.Since(p.epoch))
	return time.Duration(p.bookLocked(now, now, kind, service) - now)
}

// bookAt schedules one op that arrives at the given time (now or later)
// and returns when it finishes. A write on its way to a secondary is booked
// as it leaves the primary, so that its finish, and hence when the
// secondary has applied it, is known at once; it queues behind the ops
// booked before it, in arrival order, as if it had been booked on arrival.
func (p *slotPool) bookAt(arrival time.Time, kind opKind, service time.Duration) time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := int64(time.Since(p.epoch))
	at := max(int64(arrival.Sub(p.epoch)), now)
	return p.epoch.Add(time.Duration(p.bookLocked(now, at, kind, service)))
}

// bookLocked books an op arriving at arrival (≥ now) into the slot that
// frees first and returns its finish, both in ns since the epoch.
func (p *slotPool) bookLocked(now, arrival int64, kind opKind, service time.Duration) int64 {
	p.advance(now)
	slot := p.slotFor(now, arrival)
	start := max(arrival, int64(p.free[slot]))
	finish := start + int64(service)
	p.free[slot] = freeAt(finish)
	heap.Fix(&p.free, slot)
	heap.Push(&p.starts, booking{start, kind})
	heap.Push(&p.finishes, booking{finish, kind})
	if arrival > now {
		// Counted as queued from its arrival on (advance).
		i := len(p.arrivals)
		for i > 0 && p.arrivals[i-1].at > arrival {
			i--
		}
		p.arrivals = slices.Insert(p.arrivals, i, booking{arrival, kind})
	} else {
		p.booked[kind]++
	}
	p.acquired++
	p.waitNanos += start - arrival
	p.holdNanos += finish - start
	if start > arrival {
		p.waited++
		if q := int(p.queuedLocked()); q > p.maxQueued {
			p.maxQueued = q
		}
	}
	return finish
}

// slotFor is the slot an op arriving at arrival takes: the one that
// frees first, or, for an op booked ahead of its arrival, the one that
// frees last by then. A slot is only when it is next free, with no gaps,
// so an op booked ahead into a slot free now would hold it idle until
// the op arrives, and an op arriving meanwhile would queue behind a slot
// that does nothing: a router's connection, handed on as of its op's
// finish, would keep two slots where it uses one.
//
// The search walks the heap from its root and leaves every subtree whose
// root frees after arrival (its slots all free later still). It looks at
// most slotSearchMax slots: a pool that large has idle slots to spare, so
// one held idle a while costs no op a wait.
func (p *slotPool) slotFor(now, arrival int64) int {
	if arrival <= now || int64(p.free[0]) > arrival {
		return 0
	}
	best := 0
	stack := []int{0}
	for seen := 0; len(stack) > 0 && seen < slotSearchMax; seen++ {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if p.free[i] > p.free[best] {
			best = i
		}
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(p.free) && int64(p.free[c]) <= arrival {
				stack = append(stack, c)
			}
		}
	}
	return best
}

// slotSearchMax bounds slotFor's search.
const slotSearchMax = 4096

func (p *slotPool) queuedLocked() int64 {
	var q int64
	for k := range p.booked {
		q += p.booked[k] - p.started[k]
	}
	return q
}

// run books an op and sleeps until it finishes. It returns early with
// ctx.Err() when ctx ends; the booking stays (the model has no cancellation).
func (p *slotPool) run(ctx context.Context, s *sleeper, kind opKind, service time.Duration) error {
	// Booked at its absolute finish: a duration added to a time read
	// before the lock was taken would wake it early on a busy host.
	return s.until(ctx, p.bookAt(time.Now(), kind, service))
}

// slotSnapshot is a consistent copy of a pool's counters.
type slotSnapshot struct {
	Total, Free               int
	QueuedReads, QueuedWrites int
	ActiveReads, ActiveWrites int
	MaxQueued                 int
	// Acquired ops were booked; Waited of them queued first; Started and
	// Finished have begun and ended their service.
	Acquired, Waited, Started, Finished int64
	WaitTotal, HoldTotal                time.Duration
}

// Queued is the number of ops waiting for a slot, Active the number holding one.
func (s slotSnapshot) Queued() int { return s.QueuedReads + s.QueuedWrites }
func (s slotSnapshot) Active() int { return s.Total - s.Free }

func (p *slotPool) snapshot() slotSnapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.advance(int64(time.Since(p.epoch)))
	active := func(k opKind) int { return int(p.started[k] - p.finished[k]) }
	queued := func(k opKind) int { return int(p.booked[k] - p.started[k]) }
	busy := active(kindRead) + active(kindWrite) + active(kindCommand)
	return slotSnapshot{
		Total: p.total, Free: max(p.total-busy, 0), // busy beyond total: ops booked before a resize
		QueuedReads: queued(kindRead), QueuedWrites: queued(kindWrite),
		ActiveReads: active(kindRead), ActiveWrites: active(kindWrite),
		MaxQueued: p.maxQueued, Acquired: p.acquired, Waited: p.waited,
		Started:   p.started[kindRead] + p.started[kindWrite] + p.started[kindCommand],
		Finished:  p.finished[kindRead] + p.finished[kindWrite] + p.finished[kindCommand],
		WaitTotal: time.Duration(p.waitNanos), HoldTotal: time.Duration(p.holdNanos),
	}
}

// timeHeap is a min-heap (container/heap) of T by time: the slots by when
// each is next free, and the bookings by when they finish.
type timeHeap[T interface{ time() int64 }] []T

func (h timeHeap[T]) Len() int           { return len(h) }
func (h timeHeap[T]) Less(i, j int) bool { return h[i].time() < h[j].time() }
func (h timeHeap[T]) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *timeHeap[T]) Push(x any)        { *h = append(*h, x.(T)) }
func (h *timeHeap[T]) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// freeAt is when a slot is next free, ns since the pool's epoch.
type freeAt int64

func (f freeAt) time() int64 { return int64(f) }

func (b booking) time() int64 { return b.at }

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

// until blocks until deadline, or until ctx ends (then it returns
// ctx.Err()). Long waits (a deep queue, a majority write's replication) use
// a context-aware coarse timer, so that Close does not wait for them; the
// last stretch is slept precisely.
func (s *sleeper) until(ctx context.Context, deadline time.Time) error {
	const coarse = 20 * time.Millisecond
	if wait := time.Until(deadline); wait > 2*coarse {
		t := time.NewTimer(wait - coarse)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.sleep(time.Until(deadline))
	return nil
}

// sleep blocks for about d; it does not watch a context because d is at
// most one op's service time, or the last stretch of a longer wait.
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
