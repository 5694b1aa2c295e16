package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/testsrv"
)

// TestPrepareConcurrentRuns: three runs started at once on one fresh
// database load the collection once; the others wait for the lock and
// reuse the data. (Before the lock, all three failed with E11000 and left
// a half-loaded collection.)
func TestPrepareConcurrentRuns(t *testing.T) {
	uri := testsrv.Ferret(t)
	w := DefaultWorkload()
	w.Records, w.Database = 2000, "ps_lock"
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		results []LoadResult
		errs    []error
		waited  int
	)
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := testsrv.Connect(t, uri)
			lr, err := Prepare(context.Background(), c, w, PrepareOptions{RunID: fmt.Sprintf("run%d", i), Waiting: func(string) {
				mu.Lock()
				waited++
				mu.Unlock()
			}})
			mu.Lock()
			results, errs = append(results, lr), append(errs, err)
			mu.Unlock()
		}()
	}
	wg.Wait()
	loaded, reused := 0, 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if results[i].Loaded {
			loaded++
		}
		if results[i].Reused {
			reused++
		}
	}
	if loaded != 1 || reused != 2 {
		t.Errorf("loaded %d reused %d, want 1 and 2 (waited: %d)", loaded, reused, waited)
	}
	c := testsrv.Connect(t, uri)
	n, err := c.Database(w.Database).Collection(w.Collection).CountDocuments(context.Background(), bson.D{})
	if err != nil || n != int64(w.Records) {
		t.Errorf("collection holds %d documents (%v), want %d", n, err, w.Records)
	}
	if left, _ := c.Database(w.Database).Collection(MetaCollection).CountDocuments(context.Background(), bson.D{{Key: "_id", Value: lockID(w.Collection)}}); left != 0 {
		t.Errorf("the load lock was left behind")
	}
}

// TestPrepareStaleLock: a lock left by a run that died while loading is
// recognised (its heartbeat stands still) and taken over; a live one makes
// the waiter give up at its bound with a line naming the holder.
func TestPrepareStaleLock(t *testing.T) {
	if testing.Short() {
		t.Skip("starts FerretDB")
	}
	old := lockStaleAfter
	lockStaleAfter = time.Second
	defer func() { lockStaleAfter = old }()
	uri := testsrv.Ferret(t)
	c := testsrv.Connect(t, uri)
	ctx := context.Background()
	w := DefaultWorkload()
	w.Records, w.Database = 100, "ps_stale"
	meta := c.Database(w.Database).Collection(MetaCollection)
	dead := lockDoc{ID: lockID(w.Collection), Holder: LockHolder{RunID: "dead-run", Host: "gone", PID: 1}, AcquiredAt: time.Now().Add(-time.Hour)}
	if _, err := meta.InsertOne(ctx, dead); err != nil {
		t.Fatal(err)
	}
	var said []string
	lr, err := Prepare(ctx, c, w, PrepareOptions{RunID: "me", Waiting: func(m string) { said = append(said, m) }})
	if err != nil || !lr.Loaded {
		t.Fatalf("stale lock not taken over: %+v %v", lr, err)
	}
	if !strings.Contains(strings.Join(said, "|"), "took over a stale load lock from run dead-run on gone") {
		t.Errorf("messages: %q", said)
	}

	// A live holder: its heartbeat keeps moving, so the waiter waits and
	// then gives up, naming it.
	w.Records = 200 // another shape, so a reload is needed
	oldBeat := lockBeat
	lockBeat, lockStaleAfter = 100*time.Millisecond, 2*time.Second
	defer func() { lockBeat = oldBeat }()
	held, err := acquireLoadLock(ctx, meta, w.Collection, "holder-run", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.release()
	start := time.Now()
	_, err = Prepare(ctx, c, w, PrepareOptions{RunID: "waiter", LockWait: 3 * time.Second})
	if !errors.Is(err, ErrLockTimeout) || !strings.Contains(err.Error(), "run holder-run") {
		t.Errorf("waiting on a live lock: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("gave up after %s, want about 3 s", d)
	}
}
