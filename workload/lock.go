package workload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/beat"
)

// The load lock: one document in poolsweep_meta whose _id names the
// collection being loaded. Whoever inserts it loads; the others wait for
// it to go away and then find the data loaded. The holder bumps a counter
// in it while it loads; a waiter that sees the counter stand still for
// lockStaleAfter (on its own clock, so clock skew between hosts does not
// matter) takes the lock over from the dead run. A holder whose bump
// matches no document (the lock was removed, or taken over by a run that
// thought it dead) has lost it: it stops loading at once, and its run
// fails rather than measure a collection another run may be reloading.
const (
	lockBeat       = 2 * time.Second
	lockStaleAfter = 20 * time.Second // ten beats missed
	lockPoll       = 500 * time.Millisecond
)

// lockTiming is one lock's timing: the beat, the staleness and the
// waiter's poll. Its zero value (and each zero field) is the production
// timing above; tests shorten it per call, so that they can run at once.
type lockTiming struct {
	beat, staleAfter, poll time.Duration
}

// orDefault fills the zero fields with the production timing.
func (t lockTiming) orDefault() lockTiming {
	if t.beat <= 0 {
		t.beat = lockBeat
	}
	if t.staleAfter <= 0 {
		t.staleAfter = lockStaleAfter
	}
	if t.poll <= 0 {
		t.poll = lockPoll
	}
	return t
}

// LockHolder describes who holds a load lock, for the waiter's message.
type LockHolder struct {
	RunID string `bson:"run_id"`
	Host  string `bson:"host"`
	PID   int    `bson:"pid"`
}

func (h LockHolder) String() string {
	return fmt.Sprintf("run %s on %s (pid %d)", h.RunID, h.Host, h.PID)
}

type lockDoc struct {
	ID         string     `bson:"_id"`
	Holder     LockHolder `bson:"holder"`
	Beat       int64      `bson:"beat"`
	AcquiredAt time.Time  `bson:"acquired_at"`
}

// ErrLockTimeout is returned when another run held the load lock for
// longer than the wait allowed.
var ErrLockTimeout = errors.New("another poolsweep run is loading the same collection")

// ErrLockLost is returned when this run's load lock went away while it
// loaded: its document was removed, or another run took it over.
var ErrLockLost = errors.New("lost the load lock")

// loadLock is a held lock. Its context ends, with an ErrLockLost cause,
// when the lock is found lost; the load runs under it.
type loadLock struct {
	meta   *mongo.Collection
	id     string
	holder LockHolder
	timing lockTiming
	beat   *beat.Beating
	ctx    context.Context
	lose   context.CancelCauseFunc
}

func lockID(collection string) string { return "lock:" + collection }

// acquireLoadLock takes the load lock for collection, waiting up to wait
// for another run that holds it. waiting is told once when it has to wait,
// and when it takes over a stale lock.
func acquireLoadLock(ctx context.Context, meta *mongo.Collection, collection, runID string, wait time.Duration, timing lockTiming, waiting func(string)) (*loadLock, error) {
	timing = timing.orDefault()
	host, _ := os.Hostname()
	me := LockHolder{RunID: runID, Host: host, PID: os.Getpid()}
	id := lockID(collection)
	deadline := time.Now().Add(wait)
	var (
		lastBeat  int64 = -1
		lastSeen  time.Time
		announced bool
	)
	for {
		_, err := meta.InsertOne(ctx, lockDoc{ID: id, Holder: me, AcquiredAt: time.Now().UTC()})
		if err == nil {
			return startLock(ctx, meta, id, me, timing), nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return nil, fmt.Errorf("take the load lock in %s: %w", MetaCollection, err)
		}
		var cur lockDoc
		err = meta.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&cur)
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
			continue // released between our insert and our read
		case err != nil:
			return nil, fmt.Errorf("read the load lock in %s: %w", MetaCollection, err)
		}
		now := time.Now()
		if cur.Beat != lastBeat {
			lastBeat, lastSeen = cur.Beat, now
		}
		if now.Sub(lastSeen) >= timing.staleAfter {
			// The holder stopped beating: a run that died while loading.
			res, err := meta.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "beat", Value: cur.Beat}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "holder", Value: me}, {Key: "beat", Value: cur.Beat + 1}, {Key: "acquired_at", Value: now.UTC()}}}})
			if err != nil {
				return nil, fmt.Errorf("take over the load lock in %s: %w", MetaCollection, err)
			}
			if res.ModifiedCount == 1 {
				if waiting != nil {
					waiting(fmt.Sprintf("took over a stale load lock from %s, silent for %s", cur.Holder, now.Sub(lastSeen).Round(time.Second)))
				}
				return startLock(ctx, meta, id, me, timing), nil
			}
			continue
		}
		if now.After(deadline) {
			return nil, fmt.Errorf("%w: %s has held the lock since %s; wait for it to finish, or use another --database",
				ErrLockTimeout, cur.Holder, cur.AcquiredAt.Local().Format(time.TimeOnly))
		}
		if !announced && waiting != nil {
			waiting(fmt.Sprintf("waiting for %s, which is loading the same collection", cur.Holder))
			announced = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(timing.poll):
		}
	}
}

// startLock keeps the lock alive by bumping its counter until release;
// the lock's context derives from ctx and ends when the lock is lost.
func startLock(ctx context.Context, meta *mongo.Collection, id string, me LockHolder, timing lockTiming) *loadLock {
	l := &loadLock{meta: meta, id: id, holder: me, timing: timing}
	l.ctx, l.lose = context.WithCancelCause(ctx)
	l.beat = beat.Start(timing.beat, func(ctx context.Context) bool {
		bctx, bcancel := context.WithTimeout(ctx, timing.beat)
		defer bcancel()
		res, err := meta.UpdateOne(bctx, l.ours(), bson.D{{Key: "$inc", Value: bson.D{{Key: "beat", Value: 1}}}})
		if err != nil || res.MatchedCount > 0 {
			return true // a failed bump says nothing; a waiter's staleness decides
		}
		l.lose(l.lost(ctx))
		return false
	})
	return l
}

// ours matches the lock document while this run holds it.
func (l *loadLock) ours() bson.D {
	return bson.D{{Key: "_id", Value: l.id}, {Key: "holder.run_id", Value: l.holder.RunID}, {Key: "holder.pid", Value: l.holder.PID}}
}

// lost says how the lock was lost: taken over (by whom) or removed.
func (l *loadLock) lost(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var cur lockDoc
	err := l.meta.FindOne(ctx, bson.D{{Key: "_id", Value: l.id}}).Decode(&cur)
	switch {
	case err == nil:
		return fmt.Errorf("%w: %s took it over, taking this run for dead", ErrLockLost, cur.Holder)
	case errors.Is(err, mongo.ErrNoDocuments):
		return fmt.Errorf("%w: its document in %s was removed", ErrLockLost, MetaCollection)
	}
	return fmt.Errorf("%w: its document in %s no longer names this run (who holds it now could not be read: %v)", ErrLockLost, MetaCollection, err)
}

// held returns nil while this run still holds the lock, and how it was
// lost otherwise: checked once more before the load is marked complete,
// between two beats.
func (l *loadLock) held() error {
	if err := context.Cause(l.ctx); errors.Is(err, ErrLockLost) {
		return err
	}
	ctx, cancel := context.WithTimeout(l.ctx, l.timing.staleAfter)
	defer cancel()
	err := l.meta.FindOne(ctx, l.ours()).Err()
	switch {
	case errors.Is(err, mongo.ErrNoDocuments):
		return l.lost(l.ctx)
	case err != nil && l.ctx.Err() == nil:
		return fmt.Errorf("check the load lock in %s: %w", MetaCollection, err)
	}
	return l.ctx.Err()
}

// release stops the heartbeat and removes the lock if it is still ours.
func (l *loadLock) release() {
	l.beat.Stop()
	l.lose(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, _ = l.meta.DeleteOne(ctx, l.ours())
}
