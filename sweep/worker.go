package sweep

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/workload"
)

// What an op by a key found (worker.answered): lookupNone for an op by no
// loaded key, or one that failed.
const (
	lookupNone = iota
	lookupFound
	lookupMissed
)

// worker issues one call at a time.
type worker struct {
	id      int
	rng     *rand.Rand
	coll    *mongo.Collection
	wl      *workload.Workload
	api     bool // the seeds' API call instead of the mix
	keys    *workload.KeySpace
	rec     *recorder
	parent  context.Context // cancelled when the step is interrupted
	opCtx   context.Context // see opContext
	timeout time.Duration   // --op-timeout, enforced by recorder.watch

	// The next op's arguments, drawn before its clock starts.
	args *workload.OpArgs // made on the first op
	doc  bson.D           // an insert's document
	// byLoaded says the next op's key is one poolsweep loaded
	// (KeySpace.Loaded); lookup is what the op found by it (exec).
	byLoaded bool
	lookup   int
	// replay runs a replayed shape's call (op types len(opTypes) on);
	// nil unless the workload replays a file.
	replay *workload.ReplayConn
}

// replayed is the op type of a replay's next call, a shape picked by
// its share; false when the workload is not a replay.
func (w *worker) replayed() (int, bool) {
	if w.wl.Replay == nil {
		return 0, false
	}
	if w.replay == nil {
		w.replay = w.wl.Replay.Conn(w.coll.Database().Client())
	}
	return len(opTypes) + w.wl.Replay.Pick(w.rng), true
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

func (w *worker) pickOp() string {
	u := w.rng.Float64()
	for _, m := range w.wl.Mix {
		if u < m.Weight {
			return m.Op
		}
		u -= m.Weight
	}
	return w.wl.Mix[len(w.wl.Mix)-1].Op
}

// call runs one workload call and records its ops and its latency. A call
// of one op (read, update, insert, scan) is timed and recorded once for
// both: the common case, and the hot path of a step.
func (w *worker) call() {
	op := ""
	if typ, ok := w.replayed(); ok {
		start := w.rec.startOne(w.id, typ)
		kind, err := w.outcome(start, w.exec(w.opContext(), typ))
		w.rec.endOne(w.id, typ, start, kind, lookupNone, err, w.parent.Err() == nil)
		return
	}
	if !w.api {
		op = w.pickOp()
		if typ, ok := opTypeOf(op); ok {
			w.prepare(typ)
			start := w.rec.startOne(w.id, typ)
			kind, err := w.outcome(start, w.exec(w.opContext(), typ))
			w.rec.endOne(w.id, typ, start, kind, w.lookup, err, w.parent.Err() == nil)
			return
		}
	}
	start := w.rec.callStart(w.id)
	w.run(op)
	// An interrupted call's outcome says nothing about the server.
	w.rec.callEnd(w.id, start, w.parent.Err() == nil)
}

// opTypeOf is the op type of a one-op operation of the mix; false for
// rmw, which is two.
func opTypeOf(op string) (int, bool) {
	switch op {
	case workload.OpRead:
		return 0, true
	case workload.OpUpdate:
		return 1, true
	case workload.OpInsert:
		return 2, true
	case workload.OpScan:
		return 3, true
	}
	return 0, false
}

// ops runs the operations of one workload call (the open loop's arrivals,
// which time their calls themselves).
func (w *worker) ops() {
	if typ, ok := w.replayed(); ok {
		w.timed(typ)
		return
	}
	op := ""
	if !w.api {
		op = w.pickOp()
	}
	w.run(op)
}

// run runs the ops of a call, each timed and recorded as an op.
func (w *worker) run(op string) {
	if w.api {
		// The seeds' API call: 2 finds and 1 update by _id.
		w.timed(0)
		w.timed(0)
		w.timed(1)
		return
	}
	if op == workload.OpRMW {
		w.timed(0)
		w.timed(1)
		return
	}
	typ, _ := opTypeOf(op)
	w.timed(typ)
}

// timed runs one op of type typ and records it.
func (w *worker) timed(typ int) {
	w.prepare(typ)
	start := w.rec.opStart(w.id, typ)
	kind, err := w.outcome(start, w.exec(w.opContext(), typ))
	w.rec.opEnd(w.id, typ, start, kind, w.lookup, err, w.parent.Err() == nil)
}

// prepare draws the next op's arguments (keys, values, a document), before
// its clock starts.
func (w *worker) prepare(typ int) {
	if w.args == nil {
		w.args = workload.NewOpArgs()
	}
	w.byLoaded = false
	if typ >= len(opTypes) {
		return // a replayed shape draws its values as it runs
	}
	switch typ {
	case 0:
		w.setKey(w.keys.Pick(w.rng))
	case 1:
		w.setKey(w.keys.Pick(w.rng))
		w.args.SetField(workload.FieldName(w.rng.IntN(w.wl.FieldCount)), w.rng, w.wl.FieldLength)
	case 2:
		w.doc = workload.NewDocument(w.rng, w.keys.NextInsert(), *w.wl)
	case 3:
		w.setKey(w.keys.Pick(w.rng))
		w.args.ScanN = 1 + w.rng.IntN(w.wl.MaxScanLength)
	}
}

// setKey sets the next op's key, noting whether it is a loaded one.
func (w *worker) setKey(n int64) {
	w.args.SetKey(n)
	w.byLoaded = w.keys.Loaded(n)
}

// answered notes what an op by the prepared key found: only an op by a
// loaded key (which must find its document) is checked. A key that is
// not there yet, an insert's, is an answer, not evidence.
func (w *worker) answered(found bool) {
	switch {
	case !w.byLoaded:
	case found:
		w.lookup = lookupFound
	default:
		w.lookup = lookupMissed
	}
}

// exec sends the prepared op of type typ: find, update, insert or scan.
func (w *worker) exec(ctx context.Context, typ int) error {
	w.lookup = lookupNone
	if typ >= len(opTypes) {
		return w.replay.Exec(ctx, typ-len(opTypes), w.rng)
	}
	switch typ {
	case 0:
		err := w.coll.FindOne(ctx, w.args.ByID).Err()
		if err == nil || errors.Is(err, mongo.ErrNoDocuments) {
			// A key that is not there is an answer, not a failure; by a
			// loaded key, it is evidence the target lost its data.
			w.answered(err == nil)
			return nil
		}
		return err
	case 1:
		res, err := w.coll.UpdateOne(ctx, w.args.ByID, w.args.Update)
		if err == nil {
			w.answered(res.MatchedCount > 0)
		}
		return err
	case 2:
		_, err := w.coll.InsertOne(ctx, w.doc)
		return err
	default:
		n := w.args.ScanN
		cur, err := w.coll.Find(ctx, w.args.FromID,
			options.Find().SetLimit(int64(n)).SetSort(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(int32(n)))
		if err == nil {
			got := 0
			for cur.Next(ctx) {
				got++
			}
			err = cur.Err()
			if err == nil {
				w.answered(got > 0) // a scan from a loaded key finds at least it
			}
			// Close even when the watchdog cancelled the op, bounded as an op
			// is: the step's clients have no server-selection timeout, and a
			// killCursors waiting for a connection must not wait forever.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), w.timeout)
			cur.Close(cctx)
			cancel()
		}
		return err
	}
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
