package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// MetaCollection is where poolsweep records the collections it created.
// Its presence is what lets poolsweep reuse, reload or drop a collection;
// without it poolsweep treats the data as someone else's and never writes.
const MetaCollection = "poolsweep_meta"

// ErrNotOurs is returned when the target collection holds data poolsweep
// did not create.
var ErrNotOurs = errors.New("holds documents poolsweep did not create")

// LoadResult says what Prepare found and did.
type LoadResult struct {
	Loaded     bool          // documents were inserted now
	Reused     bool          // an earlier load of the same size was reused
	Documents  int64         // documents in the collection afterwards
	NextInsert int64         // first free user<n> index for inserts
	Took       time.Duration // time spent loading
	Note       string        // human-readable summary
}

// metaTool is the tool a poolsweep_meta record of poolsweep's names.
const metaTool = "poolsweep"

type metaDoc struct {
	ID         string    `bson:"_id"`
	Records    int       `bson:"records"`
	FieldCount int       `bson:"field_count"`
	FieldLen   int       `bson:"field_length"`
	Complete   bool      `bson:"complete"`
	CreatedAt  time.Time `bson:"created_at"`
	Tool       string    `bson:"tool"`
}

// PrepareOptions tune Prepare.
type PrepareOptions struct {
	Drop bool // reload poolsweep's own collection even if it matches
	// DropForeign lets Prepare drop and reload a collection poolsweep
	// created that also holds documents it did not write (--drop-foreign);
	// without it such a collection is refused with a ForeignError, also
	// when its own data could be reused. A collection poolsweep did not
	// create is refused either way.
	DropForeign bool
	// RunID names this run in the load lock, so that another run waiting
	// for it can say who holds it.
	RunID string
	// LockWait bounds waiting for another run that is loading the same
	// collection (0: DefaultLockWait).
	LockWait time.Duration
	Progress func(done, total int) // documents loaded so far
	Waiting  func(msg string)      // told when this run waits for another

	lock lockTiming // the load lock's timing (zero: production's); tests shorten it
}

// DefaultLockWait is how long Prepare waits for another run's load.
const DefaultLockWait = 10 * time.Minute

// Prepare makes sure w.Database.w.Collection holds w.Records poolsweep
// documents: it reuses an earlier complete load of the same shape, reloads
// a collection poolsweep created with another shape (or with Drop), and
// refuses to touch a non-empty collection it did not create. Loading is
// done under a lock in poolsweep_meta, so that runs started together
// load once: the others wait, then reuse the data.
//
// A replay (w.Replay) loads nothing: it builds or reuses its copies for
// the writes instead (Replay.Prepare).
func Prepare(ctx context.Context, client *mongo.Client, w Workload, o PrepareOptions) (LoadResult, error) {
	if w.Replay != nil {
		return w.Replay.Prepare(ctx, client, o)
	}
	db := client.Database(w.Database)
	meta := db.Collection(MetaCollection)
	ns := w.Database + "." + w.Collection

	lr, state, err := inspectCollection(ctx, db, w, o)
	if err != nil || state == stateReusable {
		return lr, err
	}
	wait := o.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	lock, err := acquireLoadLock(ctx, meta, w.Collection, o.RunID, wait, o.lock, o.Waiting)
	if err != nil {
		return LoadResult{}, fmt.Errorf("load %s: %w", ns, err)
	}
	defer lock.release()
	// Another run may have loaded it while this one waited.
	lr, state, err = inspectCollection(lock.ctx, db, w, o)
	if err == nil && state != stateReusable {
		lr, err = loadCollection(lock.ctx, db, w, state, lr.Note, o, lock.held)
	}
	if err != nil {
		lost := context.Cause(lock.ctx)
		if !errors.Is(lost, ErrLockLost) {
			lost = err
		}
		if errors.Is(lost, ErrLockLost) {
			// Whatever the load was doing when the lock went, it stopped:
			// the collection may be half loaded, or another run reloading it.
			return LoadResult{}, fmt.Errorf("load %s: %w; stopped loading, and nothing is measured on a collection that may be incomplete (%s marks it so: the next run reloads it)", ns, lost, MetaCollection)
		}
	}
	return lr, err
}

// CheckData says, writing nothing, whether Prepare may use w's collection
// on the target newClient reaches: an error wrapping ErrNotOurs when it
// holds documents poolsweep did not create (a ForeignError when poolsweep
// created it, unless dropForeign). Agent mode asks before the agents
// meet, so that none of them joins a run that cannot load, and a sweep of
// several targets before it loads the first.
func CheckData(ctx context.Context, newClient func() *options.ClientOptions, w Workload, dropForeign bool) error {
	client, err := mongo.Connect(newClient().SetMaxPoolSize(2).SetTimeout(30 * time.Second))
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = client.Disconnect(dctx)
		cancel()
	}()
	if w.Replay != nil {
		return w.Replay.Check(ctx, client, PrepareOptions{DropForeign: dropForeign})
	}
	_, _, err = inspectCollection(ctx, client.Database(w.Database), w, PrepareOptions{DropForeign: dropForeign})
	return err
}

type collectionState int

const (
	stateEmpty    collectionState = iota // nothing there: load
	stateReusable                        // our complete load of this shape
	stateOurs                            // ours, but another shape, incomplete or --drop: reload
)

// inspectCollection says what Prepare must do with w's collection
// (inspectOwned, by the _ids of poolsweep's keys): reuse an earlier
// complete load of the same shape that holds at least w.Records
// documents, or load it (anew). It writes nothing.
func inspectCollection(ctx context.Context, db *mongo.Database, w Workload, o PrepareOptions) (LoadResult, collectionState, error) {
	ns := w.Database + "." + w.Collection
	return inspectOwned(ctx, owned{db: db, coll: w.Collection, own: ownFilter()}, o, func(record bson.Raw, total int64) (LoadResult, bool) {
		var m metaDoc
		if err := bson.Unmarshal(record, &m); err != nil || !m.Complete || m.Records != w.Records || m.FieldCount != w.FieldCount || m.FieldLen != w.FieldLength || total < int64(w.Records) {
			return LoadResult{}, false
		}
		return LoadResult{Reused: true, Documents: total, NextInsert: total,
			Note: fmt.Sprintf("reusing %s: %d documents loaded earlier by poolsweep", ns, total)}, true
	})
}

// loadCollection (re)loads the collection; the caller holds the lock.
// why, when not empty, is inspectCollection's reason for a reload.
func loadCollection(ctx context.Context, db *mongo.Database, w Workload, state collectionState, why string, o PrepareOptions, held func() error) (LoadResult, error) {
	meta := db.Collection(MetaCollection)
	coll := db.Collection(w.Collection)
	ns := w.Database + "." + w.Collection
	if state == stateEmpty {
		why = "loading"
	}
	if state == stateOurs {
		switch {
		case why != "":
		case o.Drop:
			why = "reloading (--drop)"
		default:
			why = "reloading (poolsweep's own data, different size or incomplete)"
		}
		if err := coll.Drop(ctx); err != nil {
			return LoadResult{}, fmt.Errorf("drop %s (created by poolsweep): %w", ns, err)
		}
	}
	m := metaDoc{ID: w.Collection, Records: w.Records, FieldCount: w.FieldCount, FieldLen: w.FieldLength, CreatedAt: time.Now().UTC(), Tool: metaTool}
	if _, err := meta.ReplaceOne(ctx, bson.D{{Key: "_id", Value: w.Collection}}, m, options.Replace().SetUpsert(true)); err != nil {
		return LoadResult{}, fmt.Errorf("record %s in %s.%s: %w", ns, w.Database, MetaCollection, err)
	}
	start := time.Now()
	if err := load(ctx, coll, w, o.Progress); err != nil {
		return LoadResult{}, fmt.Errorf("load %s: %w", ns, err)
	}
	// Complete only while still ours: a run that took the lock over may
	// be reloading the collection now.
	if err := held(); err != nil {
		return LoadResult{}, err
	}
	if _, err := meta.UpdateOne(ctx, bson.D{{Key: "_id", Value: w.Collection}}, bson.D{{Key: "$set", Value: bson.D{{Key: "complete", Value: true}}}}); err != nil {
		return LoadResult{}, fmt.Errorf("mark %s complete: %w", ns, err)
	}
	took := time.Since(start)
	return LoadResult{Loaded: true, Documents: int64(w.Records), NextInsert: int64(w.Records), Took: took,
		Note: fmt.Sprintf("%s %s: %d documents in %.1fs", why, ns, w.Records, took.Seconds())}, nil
}

// load inserts user0..user<records-1> in unordered batches from a few
// goroutines; the collection is known to be empty.
func load(ctx context.Context, coll *mongo.Collection, w Workload, progress func(done, total int)) error {
	batch := int64(LoadBatch(w))
	var (
		next     atomic.Int64
		done     atomic.Int64
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
			for {
				lo := next.Add(batch) - batch
				if lo >= int64(w.Records) || ctx.Err() != nil {
					return
				}
				hi := min(lo+batch, int64(w.Records))
				docs := make([]any, 0, hi-lo)
				for n := lo; n < hi; n++ {
					docs = append(docs, NewDocument(r, n, w))
				}
				if _, err := coll.InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					return
				}
				d := done.Add(hi - lo)
				if progress != nil {
					progress(int(d), w.Records)
				}
			}
		}(uint64(g + 1))
	}
	wg.Wait()
	return firstErr
}

// LoadBatch is how many documents one insert carries while loading: 500,
// or fewer when documents are large, so that a batch stays near 4 MiB and
// four loaders hold about 16 MiB of documents at once.
func LoadBatch(w Workload) int {
	return max(1, min(500, (4<<20)/max(w.DocumentBytes(), 1)))
}

// NewDocument builds record n: _id user<n> and YCSB-like fields.
func NewDocument(r *rand.Rand, n int64, w Workload) bson.D {
	d := make(bson.D, 0, w.FieldCount+1)
	d = append(d, bson.E{Key: "_id", Value: Key(n)})
	for i := 0; i < w.FieldCount; i++ {
		d = append(d, bson.E{Key: FieldName(i), Value: randomString(r, w.FieldLength)})
	}
	return d
}

var fieldNames [64]string

func init() {
	for i := range fieldNames {
		fieldNames[i] = fmt.Sprintf("field%d", i)
	}
}

// FieldName is YCSB's name of field i: "field0", "field1", ….
func FieldName(i int) string {
	if i < len(fieldNames) {
		return fieldNames[i]
	}
	return fmt.Sprintf("field%d", i)
}
