package sweep

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/workload"
)

// worker is a timing loop around its workload's calls: the workload's
// Caller decides what each call does and sends its ops, and the worker
// times them, keeps their op context and records their outcomes.
type worker struct {
	id      int
	rng     *rand.Rand
	coll    *mongo.Collection
	wl      *workload.Workload
	keys    *workload.KeySpace
	rec     *recorder
	parent  context.Context // cancelled when the step is interrupted
	opCtx   context.Context // see opContext
	timeout time.Duration   // --op-timeout, enforced by recorder.watch

	calls workload.Caller // made at the first call (caller)
}

// caller is the worker's Caller, made at its first call.
func (w *worker) caller() workload.Caller {
	if w.calls == nil {
		w.calls = w.wl.NewCaller(w.coll, w.keys, w.rng, w.timeout)
	}
	return w.calls
}

// opContext is the context of the worker's next op: one per worker,
// made again after the watchdog (recorder.watch) cancelled it because an op
// outlived --op-timeout. One cancellable context per worker, not a
// deadline per op: a deadline makes the driver arm socket timers and
// compute maxTimeMS for every op, which costs the client about 4% of its
// CPU at high concurrency.
func (w *worker) opContext() context.Context {
	if w.opCtx == nil || w.opCtx.Err() != nil {
		ctx, cancel := context.WithCancel(w.parent)
		w.opCtx = ctx
		w.rec.slots[w.id].cancel.Store(&cancel)
	}
	return w.opCtx
}

// release cancels the worker's op context when it stops.
func (w *worker) release() {
	if c := w.rec.slots[w.id].cancel.Load(); c != nil {
		(*c)()
	}
}

// outcome classifies an op's error. An op the watchdog cancelled (its
// context cancelled while the step goes on) timed out.
func (w *worker) outcome(start time.Duration, err error) (int, error) {
	if err != nil && w.parent.Err() == nil &&
		(w.rec.slots[w.id].expired.Load() == int64(start)+1 || errors.Is(err, context.Canceled)) {
		return errTimeout, opTimeoutError{w.timeout}
	}
	return classify(err), err
}

// opTimeoutError is the error of an op cancelled at --op-timeout.
type opTimeoutError struct{ after time.Duration }

func (e opTimeoutError) Error() string {
	return "operation cancelled after --op-timeout " + e.after.String()
}

// call runs one workload call and records its ops and its latency. A call
// of one op (a read, update, insert, scan or replayed shape) is timed and
// recorded once for both: the common case, and the hot path of a step.
func (w *worker) call() {
	c := w.caller()
	n := c.Next()
	if n == 1 {
		typ := int(c.Prepare(0))
		start := w.rec.startOne(w.id, typ)
		lookup, err := c.Exec(w.opContext(), 0)
		kind, err := w.outcome(start, err)
		w.rec.endOne(w.id, typ, start, kind, lookup, err, w.parent.Err() == nil)
		return
	}
	start := w.rec.callStart(w.id)
	for i := range n {
		w.timed(c, i)
	}
	// An interrupted call's outcome says nothing about the server.
	w.rec.callEnd(w.id, start, w.parent.Err() == nil)
}

// ops runs the ops of one workload call, each timed and recorded as an
// op (the open loop's arrivals, which time their calls themselves).
func (w *worker) ops() {
	c := w.caller()
	for i := range c.Next() {
		w.timed(c, i)
	}
}

// timed runs op i of c's call and records it.
func (w *worker) timed(c workload.Caller, i int) {
	typ := int(c.Prepare(i))
	start := w.rec.opStart(w.id, typ)
	lookup, err := c.Exec(w.opContext(), i)
	kind, err := w.outcome(start, err)
	w.rec.opEnd(w.id, typ, start, kind, lookup, err, w.parent.Err() == nil)
}

// classify sorts an op error into the kinds results.jsonl counts.
func classify(err error) int {
	switch {
	case err == nil:
		return errNone
	case mongo.IsTimeout(err), errors.Is(err, context.DeadlineExceeded):
		return errTimeout
	case mongo.IsNetworkError(err), errCause(err) == causePoolCleared:
		// A checkout refused because another operation found the server
		// unreachable and the pool was cleared carries no label of its
		// own: it failed on the network all the same.
		return errNetwork
	default:
		return errServer
	}
}
