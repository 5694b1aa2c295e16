package workload

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/results"
)

// OpType is an op's type as a step counts it (ops_by_type): the built-in
// types, then a replay's shapes in the file's order (shapeType).
type OpType int

// The built-in op types.
const (
	TypeFind OpType = iota
	TypeUpdate
	TypeInsert
	TypeScan
	builtinTypes // how many; a replay's shapes follow
)

// BuiltinOpTypes is how many built-in op types there are: the first
// entries of OpTypes.
const BuiltinOpTypes = int(builtinTypes)

// builtinTypeNames are the built-in op types' names in results, by OpType.
var builtinTypeNames = [builtinTypes]string{results.TypeFind, results.TypeUpdate, results.TypeInsert, results.TypeScan}

// BuiltinOpTypeNames are the built-in op types' names in results
// (ops_by_type), by OpType.
func BuiltinOpTypeNames() []string { return append([]string(nil), builtinTypeNames[:]...) }

// shapeType is the op type of a replay's shape i.
func shapeType(i int) OpType { return builtinTypes + OpType(i) }

// OpTypes are the names of the op types w's calls send, indexed by
// OpType: the built-in types, then a replay's shapes.
func (w *Workload) OpTypes() []string {
	out := BuiltinOpTypeNames()
	if w.Replay != nil {
		out = append(out, w.Replay.OpTypes()...)
	}
	return out
}

// Lookup is what an op by a record key found.
type Lookup int

const (
	// LookupNone: the op was by no loaded key, or it failed.
	LookupNone Lookup = iota
	// LookupFound: by a loaded key, it found its document.
	LookupFound
	// LookupMissed: by a loaded key, it found none: evidence the target
	// lost its data.
	LookupMissed
)

// Caller is one worker's source of calls. It decides what each call does
// and sends its ops; the runner only times them. A Caller is used by one
// goroutine, one call at a time: Next, then Prepare and Exec for each op
// in order.
type Caller interface {
	// Next draws the next call and returns how many ops it sends (at
	// least one).
	Next() int
	// Prepare draws op i's arguments before its clock starts and returns
	// its type.
	Prepare(i int) OpType
	// Exec sends op i, prepared, and returns what it found by its key.
	Exec(ctx context.Context, i int) (Lookup, error)
}

// NewCaller is w's Caller for one worker that sends on coll and draws
// from rng: a replay's shapes when w replays a file, the built-in mix
// otherwise. keys are the records the mix picks from; closeTimeout bounds
// closing a scan's cursor after its op was cancelled.
func (w *Workload) NewCaller(coll *mongo.Collection, keys *KeySpace, rng *rand.Rand, closeTimeout time.Duration) Caller {
	if w.Replay != nil {
		return &replayCaller{r: w.Replay, client: coll.Database().Client(), rng: rng}
	}
	c := &mixCaller{wl: w, coll: coll, keys: keys, rng: rng, closeTimeout: closeTimeout, args: NewOpArgs()}
	if w.Name == "api" {
		// The seeds' API call: 2 finds and 1 update by _id.
		c.mix = []mixCall{{1, apiOps}}
		return c
	}
	for _, m := range w.Mix {
		c.mix = append(c.mix, mixCall{m.Weight, callOps(m.Op)})
	}
	return c
}

// The ops of each built-in call, made once and shared by every worker.
var (
	findOps   = []OpType{TypeFind}
	updateOps = []OpType{TypeUpdate}
	insertOps = []OpType{TypeInsert}
	scanOps   = []OpType{TypeScan}
	rmwOps    = []OpType{TypeFind, TypeUpdate}
	apiOps    = []OpType{TypeFind, TypeFind, TypeUpdate}
)

// callOps are the ops of a call of the mix's operation op.
func callOps(op string) []OpType {
	switch op {
	case OpUpdate:
		return updateOps
	case OpInsert:
		return insertOps
	case OpScan:
		return scanOps
	case OpRMW:
		return rmwOps
	}
	return findOps
}

// mixCall is one entry of the mix: its share of calls and its ops.
type mixCall struct {
	weight float64
	ops    []OpType
}

// mixCaller sends the built-in mix's calls: reads, updates, inserts and
// scans by record key, and read-modify-writes of two.
type mixCaller struct {
	wl           *Workload
	coll         *mongo.Collection
	keys         *KeySpace
	rng          *rand.Rand
	closeTimeout time.Duration
	mix          []mixCall

	ops  []OpType // the current call's
	args *OpArgs  // the next op's arguments, drawn before its clock starts
	doc  bson.D   // an insert's document
	// byLoaded says the prepared op's key is one poolsweep loaded
	// (KeySpace.Loaded).
	byLoaded bool
}

func (c *mixCaller) Next() int {
	c.ops = c.mix[len(c.mix)-1].ops
	u := c.rng.Float64()
	for _, m := range c.mix {
		if u < m.weight {
			c.ops = m.ops
			break
		}
		u -= m.weight
	}
	return len(c.ops)
}

func (c *mixCaller) Prepare(i int) OpType {
	typ := c.ops[i]
	c.byLoaded = false
	switch typ {
	case TypeFind:
		c.setKey(c.keys.Pick(c.rng))
	case TypeUpdate:
		c.setKey(c.keys.Pick(c.rng))
		c.args.SetField(FieldName(c.rng.IntN(c.wl.FieldCount)), c.rng, c.wl.FieldLength)
	case TypeInsert:
		c.doc = NewDocument(c.rng, c.keys.NextInsert(), *c.wl)
	case TypeScan:
		c.setKey(c.keys.Pick(c.rng))
		c.args.ScanN = 1 + c.rng.IntN(c.wl.MaxScanLength)
	}
	return typ
}

// setKey sets the next op's key, noting whether it is a loaded one.
func (c *mixCaller) setKey(n int64) {
	c.args.SetKey(n)
	c.byLoaded = c.keys.Loaded(n)
}

// answered is what an op by the prepared key found: only an op by a
// loaded key (which must find its document) is checked. A key that is
// not there yet, an insert's, is an answer, not evidence.
func (c *mixCaller) answered(found bool) Lookup {
	switch {
	case !c.byLoaded:
		return LookupNone
	case found:
		return LookupFound
	default:
		return LookupMissed
	}
}

// Exec sends the prepared op: find, update, insert or scan.
func (c *mixCaller) Exec(ctx context.Context, i int) (Lookup, error) {
	switch c.ops[i] {
	case TypeFind:
		err := c.coll.FindOne(ctx, c.args.ByID).Err()
		if err == nil || errors.Is(err, mongo.ErrNoDocuments) {
			// A key that is not there is an answer, not a failure; by a
			// loaded key, it is evidence the target lost its data.
			return c.answered(err == nil), nil
		}
		return LookupNone, err
	case TypeUpdate:
		res, err := c.coll.UpdateOne(ctx, c.args.ByID, c.args.Update)
		if err != nil {
			return LookupNone, err
		}
		return c.answered(res.MatchedCount > 0), nil
	case TypeInsert:
		_, err := c.coll.InsertOne(ctx, c.doc)
		return LookupNone, err
	default:
		n := c.args.ScanN
		cur, err := c.coll.Find(ctx, c.args.FromID,
			options.Find().SetLimit(int64(n)).SetSort(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(int32(n)))
		if err != nil {
			return LookupNone, err
		}
		got := 0
		for cur.Next(ctx) {
			got++
		}
		err = cur.Err()
		lookup := LookupNone
		if err == nil {
			lookup = c.answered(got > 0) // a scan from a loaded key finds at least it
		}
		// Close even when the op was cancelled, bounded as an op is: the
		// step's clients have no server-selection timeout, and a
		// killCursors waiting for a connection must not wait forever.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.closeTimeout)
		cur.Close(cctx)
		cancel()
		return lookup, err
	}
}

// replayCaller sends a replay's calls: each one shape, picked by its
// share, instantiated with values drawn as it runs.
type replayCaller struct {
	r      *Replay
	client *mongo.Client
	conn   *ReplayConn // made at the first call
	rng    *rand.Rand
	shape  int
}

func (c *replayCaller) Next() int {
	if c.conn == nil {
		c.conn = c.r.Conn(c.client)
	}
	c.shape = c.r.Pick(c.rng)
	return 1
}

// Prepare draws nothing: a shape draws its values as it runs.
func (c *replayCaller) Prepare(int) OpType { return shapeType(c.shape) }

func (c *replayCaller) Exec(ctx context.Context, _ int) (Lookup, error) {
	return LookupNone, c.conn.Exec(ctx, c.shape, c.rng)
}
