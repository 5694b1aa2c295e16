package sweep

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// worker issues one call at a time.
type worker struct {
	id       int
	rng      *rand.Rand
	coll     *mongo.Collection
	wl       *Workload
	api      bool // the seeds' API call instead of the mix
	keys     *KeySpace
	rec      *recorder
	parent   context.Context // cancelled when the step is interrupted
	deadline opDeadline
}

// opDeadline gives a worker's operations their timeout without making a
// context (and a timer) per operation, which the driver's own timeoutMS
// would: one context whose deadline is renewed whenever less than the op
// timeout T is left, so every operation gets between T and 1.25 T.
type opDeadline struct {
	timeout time.Duration
	base    time.Time     // the recorder's clock origin
	until   time.Duration // the current deadline on that clock
	ctx     context.Context
	cancel  context.CancelFunc
}

// at returns the context for an operation starting at now (recorder clock).
func (d *opDeadline) at(parent context.Context, now time.Duration) context.Context {
	if d.ctx == nil || d.until-now < d.timeout {
		d.release()
		d.until = now + d.timeout + d.timeout/4
		d.ctx, d.cancel = context.WithDeadline(parent, d.base.Add(d.until))
	}
	return d.ctx
}

func (d *opDeadline) release() {
	if d.cancel != nil {
		d.cancel()
	}
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

// call runs one workload call and records its ops and its latency.
func (w *worker) call() {
	start := w.rec.callStart(w.id)
	w.ops()
	// An interrupted call's outcome says nothing about the server.
	w.rec.callEnd(w.id, start, w.parent.Err() == nil)
}

// ops runs the operations of one workload call (the closed loop's worker
// and the open loop's arrivals alike).
func (w *worker) ops() {
	if w.api {
		// The seeds' API call: 2 finds and 1 update by _id.
		w.find()
		w.find()
		w.update()
	} else {
		switch w.pickOp() {
		case OpRead:
			w.find()
		case OpUpdate:
			w.update()
		case OpInsert:
			w.insert()
		case OpScan:
			w.scan()
		case OpRMW:
			w.find()
			w.update()
		}
	}
}

// begin marks an op of type typ starting and returns its context.
func (w *worker) begin(typ int) (context.Context, time.Duration) {
	start := w.rec.opStart(w.id, typ)
	return w.deadline.at(w.parent, start), start
}

func (w *worker) done(typ int, start time.Duration, err error) {
	w.rec.opEnd(w.id, typ, start, classify(err), err, w.parent.Err() == nil)
}

func (w *worker) find() {
	key := Key(w.keys.Pick(w.rng))
	ctx, start := w.begin(0)
	err := w.coll.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		err = nil // a key that is not there (yet) is an answer, not a failure
	}
	w.done(0, start, err)
}

func (w *worker) update() {
	key := Key(w.keys.Pick(w.rng))
	f := fieldName(w.rng.IntN(w.wl.FieldCount))
	val := randomString(w.rng, w.wl.FieldLength)
	ctx, start := w.begin(1)
	_, err := w.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: bson.D{{Key: f, Value: val}}}})
	w.done(1, start, err)
}

func (w *worker) insert() {
	doc := NewDocument(w.rng, w.keys.NextInsert(), *w.wl)
	ctx, start := w.begin(2)
	_, err := w.coll.InsertOne(ctx, doc)
	w.done(2, start, err)
}

func (w *worker) scan() {
	key := Key(w.keys.Pick(w.rng))
	n := 1 + w.rng.IntN(w.wl.MaxScanLength)
	ctx, start := w.begin(3)
	cur, err := w.coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: key}}}},
		options.Find().SetLimit(int64(n)).SetSort(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(int32(n)))
	if err == nil {
		for cur.Next(ctx) {
		}
		err = cur.Err()
		cur.Close(context.WithoutCancel(ctx))
	}
	w.done(3, start, err)
}

// classify sorts an op error into the kinds results.jsonl counts.
func classify(err error) int {
	switch {
	case err == nil:
		return errNone
	case mongo.IsTimeout(err), errors.Is(err, context.DeadlineExceeded):
		return errTimeout
	case mongo.IsNetworkError(err):
		return errNetwork
	default:
		return errServer
	}
}
