package sweep

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"

	"github.com/poolsweep/poolsweep/results"
)

// What a step with events records beyond its timeline's usual counts:
// the causes of errors an event brings (a primary gone, a pool cleared),
// the operations the driver's retry saved, and the connections per host
// (the refill of a new primary's pools, a router's clients moving to
// another).

// Causes of an op's error that an event brings, counted beside its kind.
const (
	causeOther = iota
	causeNotPrimary
	causePoolCleared
)

// notPrimaryCodes are the server's replies that it is not (or is no
// longer) the primary: NotWritablePrimary, NotPrimaryNoSecondaryOk,
// NotPrimaryOrSecondary, PrimarySteppedDown and
// InterruptedDueToReplStateChange, the "not primary" errors of the
// drivers' server discovery specification.
var notPrimaryCodes = []int{10107, 13435, 13436, 189, 11602}

// errCause is the cause of an op's error, as far as the driver's error
// says it.
func errCause(err error) int {
	if err == nil {
		return causeOther
	}
	var se mongo.ServerError
	if errors.As(err, &se) && slices.ContainsFunc(notPrimaryCodes, se.HasErrorCode) {
		return causeNotPrimary
	}
	// The driver's error for a checkout from a cleared pool is the one
	// pool error it retries.
	var pe driver.RetryablePoolError
	if errors.As(err, &pe) && pe.Retryable() {
		return causePoolCleared
	}
	return causeOther
}

// retryWatch finds the operations that succeeded on the driver's retry:
// a command that failed, then a command that succeeded, within one op of
// one slot (the op's start, which the recorder's slot holds, is the
// same). An attempt that failed before a command was sent (a checkout
// from a cleared pool) is not seen: the driver reports no event for it.
type retryWatch struct {
	rec    *recorder
	tl     *timelineRecorder
	failed []atomic.Int64 // per slot: the op whose attempt failed (its start + 1)
}

func newRetryWatch(rec *recorder, tl *timelineRecorder) *retryWatch {
	return &retryWatch{rec: rec, tl: tl, failed: make([]atomic.Int64, len(rec.slots))}
}

// monitor is m with the retries counted.
func (r *retryWatch) monitor(m *event.CommandMonitor) *event.CommandMonitor {
	slot := func(ctx context.Context) int {
		if w, ok := ctx.Value(slotKey{}).(int); ok && w >= 0 && w < len(r.failed) {
			return w
		}
		return -1
	}
	return &event.CommandMonitor{
		Started: m.Started,
		Succeeded: func(ctx context.Context, e *event.CommandSucceededEvent) {
			m.Succeeded(ctx, e)
			if w := slot(ctx); w >= 0 {
				if op := r.rec.slots[w].op.Load(); op != 0 && r.failed[w].CompareAndSwap(op, 0) {
					r.tl.retried(r.rec.slots[w].call.Load())
				}
			}
		},
		Failed: func(ctx context.Context, e *event.CommandFailedEvent) {
			m.Failed(ctx, e)
			if w := slot(ctx); w >= 0 {
				r.failed[w].Store(r.rec.slots[w].op.Load())
			}
		},
	}
}

// maxHostIntervals bounds the hosts a timeline counts connections for,
// so that a record stays bounded (each interval lists each host): more
// than a replica set's voting members or a few routers. Hosts beyond it
// are counted in the interval's totals only.
const maxHostIntervals = results.MaxHostIntervals

// tlHosts counts each host's connections created and closed per
// interval. A host gets its counters when its first connection opens;
// from then on nothing locks.
type tlHosts struct {
	n     int // intervals
	mu    sync.Mutex
	index map[string]int
	hosts []*tlHost
	count atomic.Int32 // len(hosts), for the readers that do not lock
}

type tlHost struct {
	addr              string
	created0, closed0 atomic.Int64 // before the profile's start
	created, closed   []atomic.Int64
}

func newTLHosts(intervals int) *tlHosts {
	return &tlHosts{n: intervals, index: map[string]int{}}
}

// host is addr's counters; nil beyond maxHostIntervals.
func (h *tlHosts) host(addr string) *tlHost {
	h.mu.Lock()
	defer h.mu.Unlock()
	if i, ok := h.index[addr]; ok {
		return h.hosts[i]
	}
	if len(h.hosts) >= maxHostIntervals {
		return nil
	}
	c := &tlHost{addr: addr, created: make([]atomic.Int64, h.n), closed: make([]atomic.Int64, h.n)}
	h.index[addr] = len(h.hosts)
	h.hosts = append(h.hosts, c)
	h.count.Add(1)
	return c
}

// add counts a connection to addr created (or closed) in interval i, or
// before the start when !inStep.
func (h *tlHosts) add(addr string, i int, inStep, created bool) {
	c := h.host(addr)
	switch {
	case c == nil:
	case !inStep && created:
		c.created0.Add(1)
	case !inStep:
		c.closed0.Add(1)
	case created:
		c.created[i].Add(1)
	default:
		c.closed[i].Add(1)
	}
}

// fill lists each host in every interval, once it has had a connection,
// with what it had open at the interval's end.
func (h *tlHosts) fill(ivs []results.TimelineInterval) {
	h.mu.Lock()
	hosts := slices.Clone(h.hosts)
	h.mu.Unlock()
	slices.SortFunc(hosts, func(a, b *tlHost) int {
		switch {
		case a.addr < b.addr:
			return -1
		case a.addr > b.addr:
			return 1
		}
		return 0
	})
	open := make([]int64, len(hosts))
	seen := make([]bool, len(hosts))
	for j, c := range hosts {
		open[j] = c.created0.Load() - c.closed0.Load()
		seen[j] = c.created0.Load() > 0
	}
	for i := range ivs {
		for j, c := range hosts {
			cr, cl := c.created[i].Load(), c.closed[i].Load()
			open[j] += cr - cl
			if seen[j] = seen[j] || cr > 0; seen[j] {
				ivs[i].Hosts = append(ivs[i].Hosts, results.HostInterval{Host: c.addr, Open: int(max(open[j], 0)), Created: cr, Closed: cl})
			}
		}
	}
}
