package workload

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/beat"
)

// The load lock: one document in poolsweep_meta whose _id names the
// collection being loaded. Whoever inserts it loads; the others wait for
// it to go away and then find the data loaded. The holder bumps a counter
// while it loads; a waiter that sees the counter stand still for
// lockStaleAfter (on its own clock, so clock skew between hosts does not
// matter) takes the lock over from the dead run. A holder that finds the
// lock document gone, or naming another acquisition (removed, or taken
// over by a run that thought it dead), has lost it: it stops loading at
// once, and its run fails rather than measure a collection another run
// may be reloading.
//
// The lock document is only ever inserted and removed, never updated: a
// server that applies an update as a read and a later write of the whole
// document by _id (FerretDB does) would let a late update of a past
// holder, one its client had already given up on, write that holder's
// document back over the next holder's, and the next holder would find
// its lock "taken over" by a run that had finished (seen with three
// sweeps on one FerretDB). So each acquisition has a token of its own:
// the counter lives in a document named after the token (lockBeatID),
// which only its holder writes, and a late write can only bring back a
// document no one reads. Taking a stale lock over removes it, then
// inserts anew; the removal is claimed first by inserting a document
// named after the stale token (lockClaimID), so that of several waiters
// that found the holder dead only one removes its document: two
// removals' reads and writes could otherwise interleave, and the second
// remove the lock the first waiter has just inserted.
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
	return lockTiming{beat: cmp.Or(t.beat, lockBeat), staleAfter: cmp.Or(t.staleAfter, lockStaleAfter), poll: cmp.Or(t.poll, lockPoll)}
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
	Token      string     `bson:"token,omitempty"` // this acquisition's (empty in a lock of a poolsweep before tokens)
	Beat       int64      `bson:"beat"`            // a lock of a poolsweep before tokens beats here
	AcquiredAt time.Time  `bson:"acquired_at"`
}

// poolsweeps says whether l is a lock poolsweep wrote: every poolsweep,
// before tokens too, names its process and the time it took the lock.
func (l lockDoc) poolsweeps() bool { return l.Holder.PID > 0 && !l.AcquiredAt.IsZero() }

// beatDoc is the counter of the acquisition whose token it names.
type beatDoc struct {
	ID   string `bson:"_id"`
	Beat int64  `bson:"beat"`
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
	token  string // this acquisition's
	timing lockTiming
	beat   *beat.Beating
	ctx    context.Context
	lose   context.CancelCauseFunc
}

func lockID(collection string) string { return "lock:" + collection }

// lockBeatID names the counter of the acquisition with token.
func lockBeatID(token string) string { return "lockbeat:" + token }

// lockClaimID names the claim to remove the stale lock with token.
func lockClaimID(token string) string { return "lockclaim:" + token }

// heartbeat is what a waiter watches of the lock cur: the counter of its
// acquisition (-1 while it has none), or, in a lock of a poolsweep
// before tokens, the lock's own.
func heartbeat(ctx context.Context, meta *mongo.Collection, cur lockDoc) (int64, error) {
	if cur.Token == "" {
		return cur.Beat, nil
	}
	var b beatDoc
	err := meta.FindOne(ctx, bson.D{{Key: "_id", Value: lockBeatID(cur.Token)}}).Decode(&b)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return -1, nil
	}
	return b.Beat, err
}

// identity matches the lock document cur and no later one.
func identity(cur lockDoc) bson.D {
	if cur.Token != "" {
		return bson.D{{Key: "_id", Value: cur.ID}, {Key: "token", Value: cur.Token}}
	}
	return bson.D{{Key: "_id", Value: cur.ID}, {Key: "holder.run_id", Value: cur.Holder.RunID}, {Key: "holder.pid", Value: cur.Holder.PID},
		{Key: "beat", Value: cur.Beat}}
}

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
		last      lockDoc // the acquisition watched, and its count
		lastBeat  int64
		lastSeen  time.Time
		announced bool
		tookOver  string    // the stale holder this run removed, for its message
		claimSeen time.Time // when another waiter's claim first kept this one from removing the stale lock
	)
	for {
		l, err := insertLock(ctx, meta, id, me, timing)
		if err == nil {
			if tookOver != "" && waiting != nil {
				waiting(tookOver)
			}
			return l, nil
		}
		if !mongo.IsDuplicateKeyError(err) {
			return nil, fmt.Errorf("take the load lock in %s: %w", MetaCollection, err)
		}
		tookOver = ""
		var cur lockDoc
		err = meta.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&cur)
		switch {
		case errors.Is(err, mongo.ErrNoDocuments):
			continue // released between our insert and our read
		case err != nil:
			return nil, fmt.Errorf("read the load lock in %s: %w", MetaCollection, err)
		case !cur.poolsweeps():
			// A document poolsweep did not write holds the lock's name:
			// waiting would end in taking it for a dead run's and
			// removing it.
			return nil, fmt.Errorf("%s: the document %s %w; pick another --database", MetaCollection, id, ErrNotOurs)
		}
		n, err := heartbeat(ctx, meta, cur)
		if err != nil {
			return nil, fmt.Errorf("read the load lock's heartbeat in %s: %w", MetaCollection, err)
		}
		now := time.Now()
		if lastSeen.IsZero() || cur.Token != last.Token || cur.Holder != last.Holder || n != lastBeat {
			last, lastBeat, lastSeen, claimSeen = cur, n, now, time.Time{}
		}
		if now.Sub(lastSeen) >= timing.staleAfter {
			// The holder stopped beating: a run that died while loading.
			removed, err := removeStale(ctx, meta, cur)
			if err != nil {
				return nil, fmt.Errorf("take over the load lock in %s: %w", MetaCollection, err)
			}
			if removed {
				tookOver = fmt.Sprintf("took over a stale load lock from %s, silent for %s", cur.Holder, now.Sub(lastSeen).Round(time.Second))
				continue
			}
			// Another waiter removes it: wait for that as for a holder.
			// A claim that stands for a whole staleness while the stale
			// lock stays is a waiter's that died between its claim and
			// its removal: drop the claim, so that the next look claims
			// anew, instead of waiting out --lock-wait behind it.
			switch {
			case claimSeen.IsZero():
				claimSeen = now
			case now.Sub(claimSeen) >= timing.staleAfter:
				if err := dropClaim(ctx, meta, cur); err != nil {
					return nil, fmt.Errorf("take over the load lock in %s: %w", MetaCollection, err)
				}
				claimSeen = time.Time{}
				continue
			}
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

// insertLock takes the lock if no one holds it (the insert fails with a
// duplicate key otherwise) and starts its heartbeat.
func insertLock(ctx context.Context, meta *mongo.Collection, id string, me LockHolder, timing lockTiming) (*loadLock, error) {
	token := bson.NewObjectID().Hex()
	doc := lockDoc{ID: id, Holder: me, Token: token, AcquiredAt: time.Now().UTC()}
	if _, err := meta.InsertOne(ctx, doc); err != nil {
		if !mongo.IsDuplicateKeyError(err) {
			// The insert may have landed all the same: remove it, so that
			// it does not stand in the others' way until it is stale.
			removeOwn(meta, identity(doc))
		}
		return nil, err
	}
	return startLock(ctx, meta, id, me, token, timing), nil
}

// staleClaimID names the claim to remove the stale lock cur.
func staleClaimID(cur lockDoc) string {
	if cur.Token == "" {
		return lockClaimID(fmt.Sprintf("%s:%s:%d:%d", cur.ID, cur.Holder.RunID, cur.Holder.PID, cur.Beat))
	}
	return lockClaimID(cur.Token)
}

// dropClaim removes an abandoned claim to remove the stale lock cur.
func dropClaim(ctx context.Context, meta *mongo.Collection, cur lockDoc) error {
	_, err := meta.DeleteOne(ctx, bson.D{{Key: "_id", Value: staleClaimID(cur)}})
	return err
}

// removeStale removes the stale lock cur, if no other waiter has claimed
// its removal, and says whether this run removed it.
func removeStale(ctx context.Context, meta *mongo.Collection, cur lockDoc) (bool, error) {
	claim := staleClaimID(cur)
	if _, err := meta.InsertOne(ctx, bson.D{{Key: "_id", Value: claim}}); mongo.IsDuplicateKeyError(err) {
		return false, nil // another waiter removes it
	} else if err != nil {
		return false, err
	}
	res, err := meta.DeleteOne(ctx, identity(cur))
	if err != nil {
		return false, err // the claim stays: the lock may be half removed
	}
	if cur.Token != "" {
		_, _ = meta.DeleteOne(ctx, bson.D{{Key: "_id", Value: lockBeatID(cur.Token)}})
	}
	// The removal is over: a waiter that claims it now finds the stale
	// lock gone, and removes nothing.
	_, _ = meta.DeleteOne(ctx, bson.D{{Key: "_id", Value: claim}})
	return res.DeletedCount == 1, nil
}

// startLock keeps the lock alive by bumping its acquisition's counter
// until release, and checks at each beat that the lock is still this
// acquisition's; the lock's context derives from ctx and ends when the
// lock is lost.
func startLock(ctx context.Context, meta *mongo.Collection, id string, me LockHolder, token string, timing lockTiming) *loadLock {
	l := &loadLock{meta: meta, id: id, holder: me, token: token, timing: timing}
	l.ctx, l.lose = context.WithCancelCause(ctx)
	var beats int64
	l.beat = beat.Start(timing.beat, func(ctx context.Context) bool {
		// A bump may take up to half the staleness, not one beat: a slow
		// server's late bumps still count, and the server is not told to
		// give up on them (it would, after the client's deadline). Not cut
		// short by release either: release waits for a bump in flight, so
		// that it does not bring its counter back after release removed it.
		bctx, bcancel := context.WithTimeout(context.WithoutCancel(ctx), timing.staleAfter/2)
		defer bcancel()
		beats++
		_, err := meta.UpdateOne(bctx, bson.D{{Key: "_id", Value: lockBeatID(token)}},
			bson.D{{Key: "$set", Value: bson.D{{Key: "beat", Value: beats}}}}, options.UpdateOne().SetUpsert(true))
		if err != nil || ctx.Err() != nil {
			return true // a failed bump says nothing; a waiter's staleness decides
		}
		err = meta.FindOne(bctx, l.ours()).Err()
		if !errors.Is(err, mongo.ErrNoDocuments) {
			return true // still ours, or a read that failed and says nothing
		}
		l.lose(l.lost(ctx))
		return false
	})
	return l
}

// ours matches the lock document while this acquisition holds it: by its
// token and by its holder, since a poolsweep before tokens takes a stale
// lock over by setting the holder and leaving the token as it was.
func (l *loadLock) ours() bson.D {
	return bson.D{{Key: "_id", Value: l.id}, {Key: "token", Value: l.token},
		{Key: "holder.run_id", Value: l.holder.RunID}, {Key: "holder.pid", Value: l.holder.PID}}
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

// release stops the heartbeat and removes the lock, and its counter, if
// the lock is still this acquisition's.
func (l *loadLock) release() {
	l.beat.Stop()
	l.lose(nil)
	removeOwn(l.meta, l.ours())
	removeOwn(l.meta, bson.D{{Key: "_id", Value: lockBeatID(l.token)}})
}

// removeOwn removes the document of this acquisition that filter
// matches, trying again for up to 10 s when the server fails: a lock
// left behind would keep the other runs waiting until it is stale.
func removeOwn(meta *mongo.Collection, filter bson.D) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, err := meta.DeleteOne(ctx, filter)
		if err == nil || beat.Pause(ctx, 100*time.Millisecond) != nil {
			return
		}
	}
}
