package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/poolsweep/poolsweep/internal/testkit/testferret"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// TestPrepareConcurrentRuns: three runs started at once on one fresh
// database load the collection once; the others wait for the lock and
// reuse the data. (Before the lock, all three failed with E11000 and left
// a half-loaded collection.)
func TestPrepareConcurrentRuns(t *testing.T) {
	t.Parallel() // it waits on FerretDB and the lock (each test's timing is its own)
	uri := testferret.Start(t)
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
	// Only the collection's record stays: no lock, heartbeat or claim.
	if left, _ := c.Database(w.Database).Collection(MetaCollection).CountDocuments(context.Background(), bson.D{{Key: "_id", Value: bson.D{{Key: "$ne", Value: w.Collection}}}}); left != 0 {
		t.Errorf("%d documents of the load lock were left behind", left)
	}
}

// TestPrepareStaleLock: a lock left by a run that died while loading is
// recognised (its heartbeat stands still) and taken over, in this
// poolsweep's form (a token, a heartbeat of its own) and in the form of a
// poolsweep before tokens (the beat in the lock); a live one makes the
// waiter give up at its bound with a line naming the holder.
func TestPrepareStaleLock(t *testing.T) {
	t.Parallel()
	uri := testferret.Start(t)
	ctx := context.Background()
	for _, tc := range []struct {
		token     string
		claimLeft bool // a waiter that died after claiming the removal left its claim
	}{{"dead-token", false}, {"", false}, {"dead-token", true}} {
		token := tc.token
		t.Run(fmt.Sprintf("token %q claim left %v", token, tc.claimLeft), func(t *testing.T) {
			t.Parallel()
			c := testsrv.Connect(t, uri)
			w := DefaultWorkload()
			w.Records, w.Database = 100, "ps_stale"+token
			if tc.claimLeft {
				w.Database += "_claim"
			}
			meta := c.Database(w.Database).Collection(MetaCollection)
			dead := lockDoc{ID: lockID(w.Collection), Holder: LockHolder{RunID: "dead-run", Host: "gone", PID: 1}, Token: token, Beat: 7, AcquiredAt: time.Now().Add(-time.Hour)}
			if _, err := meta.InsertOne(ctx, dead); err != nil {
				t.Fatal(err)
			}
			if token != "" {
				if _, err := meta.InsertOne(ctx, beatDoc{ID: lockBeatID(token), Beat: 7}); err != nil {
					t.Fatal(err)
				}
			}
			if tc.claimLeft {
				if _, err := meta.InsertOne(ctx, bson.D{{Key: "_id", Value: staleClaimID(dead)}}); err != nil {
					t.Fatal(err)
				}
			}
			var said []string
			// A 2-s staleness: the holder's last check of its lock, bounded
			// by the staleness, may take over a second on a busy FerretDB.
			lr, err := Prepare(ctx, c, w, PrepareOptions{RunID: "me", LockWait: 20 * time.Second, Waiting: func(m string) { said = append(said, m) }, lock: lockTiming{staleAfter: 2 * time.Second}})
			if err != nil || !lr.Loaded {
				t.Fatalf("stale lock not taken over: %+v %v", lr, err)
			}
			if !strings.Contains(strings.Join(said, "|"), "took over a stale load lock from run dead-run on gone") {
				t.Errorf("messages: %q", said)
			}
			if left, _ := meta.CountDocuments(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$ne", Value: w.Collection}}}}); left != 0 {
				t.Errorf("%d documents of the load locks were left behind", left)
			}
		})
	}

	// A live holder: its heartbeat keeps moving, so the waiter waits and
	// then gives up, naming it.
	t.Run("live", func(t *testing.T) {
		t.Parallel()
		c := testsrv.Connect(t, uri)
		w := DefaultWorkload()
		w.Records, w.Database = 200, "ps_stale_live"
		meta := c.Database(w.Database).Collection(MetaCollection)
		live := lockTiming{beat: 100 * time.Millisecond, staleAfter: 2 * time.Second}
		held, err := acquireLoadLock(ctx, meta, w.Collection, "holder-run", time.Second, live, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer held.release()
		start := time.Now()
		_, err = Prepare(ctx, c, w, PrepareOptions{RunID: "waiter", LockWait: 3 * time.Second, lock: live})
		if !errors.Is(err, ErrLockTimeout) || !strings.Contains(err.Error(), "run holder-run") {
			t.Errorf("waiting on a live lock: %v", err)
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("gave up after %s, want about 3 s", d)
		}
	})
}

// shortLock is the load lock's timing shortened for a test, in the
// production ratio (ten beats missed make a lock stale).
func shortLock(beatEvery time.Duration) lockTiming {
	return lockTiming{beat: beatEvery, staleAfter: 10 * beatEvery}
}

// slowLoad is a workload whose load on a simulator with a 100 ms service
// time takes at least 2.5 s of the simulator's own time, however fast the
// machine (100 batches of 500 small documents, four at a time): longer
// than the lock's staleness, so that a waiter that took a live holder's
// silence for death would take the lock over.
func slowLoad(db string) Workload {
	w := DefaultWorkload()
	w.Records, w.FieldCount, w.FieldLength, w.Database = 50_000, 1, 8, db
	return w
}

// TestPrepareTwoRunsOnSimulator: two runs started together on a fresh
// simulator database. The second waits for the first, then finds the data
// loaded; it never takes the lock over while the holder lives, though the
// load lasts several times the lock's staleness. (When the simulator
// matched a dotted filter key as a top-level name, the holder's heartbeat
// matched nothing and the waiter "took over a stale load lock" from a live
// holder after 20 s.)
func TestPrepareTwoRunsOnSimulator(t *testing.T) {
	t.Parallel() // the simulator, not this machine, paces the load
	timing := shortLock(100 * time.Millisecond)
	uri := testsrv.Sim(t, "slots=8,service=100ms").URI()
	w := slowLoad("ps_twolock")
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		said = map[string][]string{}
		lrs  = map[string]LoadResult{}
		errs = map[string]error{}
	)
	began := time.Now()
	for _, run := range []string{"first", "second"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := testsrv.Connect(t, uri)
			lr, err := Prepare(context.Background(), c, w, PrepareOptions{RunID: run, Waiting: func(m string) {
				mu.Lock()
				said[run] = append(said[run], m)
				mu.Unlock()
			}, lock: timing})
			mu.Lock()
			lrs[run], errs[run] = lr, err
			mu.Unlock()
		}()
	}
	wg.Wait()
	took := time.Since(began)
	loader, waiter := "first", "second"
	if lrs["second"].Loaded {
		loader, waiter = "second", "first"
	}
	t.Logf("%s loaded in %s (%s); %s said %q", loader, lrs[loader].Took.Round(time.Millisecond), took.Round(time.Millisecond), waiter, said[waiter])
	if errs[loader] != nil || errs[waiter] != nil || !lrs[loader].Loaded || !lrs[waiter].Reused {
		t.Fatalf("loader %+v %v; waiter %+v %v", lrs[loader], errs[loader], lrs[waiter], errs[waiter])
	}
	if lrs[loader].Took < 2*timing.staleAfter {
		t.Errorf("the load took %s, under twice the lock's staleness (%s): the test proves nothing", lrs[loader].Took, timing.staleAfter)
	}
	all := strings.Join(said[waiter], "|")
	if !strings.Contains(all, "waiting for run "+loader) || strings.Contains(all, "took over") || len(said[loader]) != 0 {
		t.Errorf("messages: loader %q, waiter %q; want the waiter to wait for %s and never take over", said[loader], said[waiter], loader)
	}
	c := testsrv.Connect(t, uri)
	var docs []bson.M
	cur, err := c.Database(w.Database).Collection(w.Collection).Find(context.Background(), bson.D{})
	if err == nil {
		err = cur.All(context.Background(), &docs)
	}
	if err != nil || len(docs) != w.Records {
		t.Errorf("collection holds %d documents (%v), want %d", len(docs), err, w.Records)
	}
}

// TestPrepareLockLostMidLoad: a holder whose lock document is removed, or
// taken over by another run, while it loads stops loading at its next
// beat and fails, saying so; the collection is left marked incomplete, so
// the next run reloads it whole. The holder's load is paced by its
// progress callback (50 ms after each batch of 500, four loaders: at
// least 1.5 s for its 60,000 documents), so that it outlasts the beat
// (200 ms) several times over whatever the machine; the next run loads
// unpaced.
func TestPrepareLockLostMidLoad(t *testing.T) {
	t.Parallel()
	timing := shortLock(200 * time.Millisecond)
	uri := testsrv.Sim(t, "slots=8,service=1ms").URI()
	for _, tt := range []struct {
		name string
		lose func(meta *mongo.Collection, id string) error
		want string
	}{
		{"removed", func(meta *mongo.Collection, id string) error {
			_, err := meta.DeleteOne(context.Background(), bson.D{{Key: "_id", Value: id}})
			return err
		}, "its document in poolsweep_meta was removed"},
		{"taken over", func(meta *mongo.Collection, id string) error {
			_, err := meta.UpdateOne(context.Background(), bson.D{{Key: "_id", Value: id}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "holder", Value: LockHolder{RunID: "usurper", Host: "elsewhere", PID: 7}}}}})
			return err
		}, "run usurper on elsewhere (pid 7) took it over"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w := DefaultWorkload()
			w.Records, w.FieldCount, w.FieldLength, w.Database = 60_000, 1, 8, "ps_lost_"+strings.ReplaceAll(tt.name, " ", "_")
			c := testsrv.Connect(t, uri)
			meta := c.Database(w.Database).Collection(MetaCollection)
			var loaded atomic.Int64
			done := make(chan error, 1)
			began := time.Now()
			go func() {
				_, err := Prepare(context.Background(), c, w, PrepareOptions{RunID: "holder", lock: timing, Progress: func(d, _ int) {
					loaded.Store(int64(d))
					time.Sleep(50 * time.Millisecond)
				}})
				done <- err
			}()
			for loaded.Load() < 5000 {
				if time.Since(began) > time.Minute {
					t.Fatal("the load did not start")
				}
				time.Sleep(10 * time.Millisecond)
			}
			if err := tt.lose(meta, lockID(w.Collection)); err != nil {
				t.Fatal(err)
			}
			lostAt, at := time.Now(), loaded.Load()
			var err error
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("the holder did not stop")
			}
			stopped := time.Since(lostAt)
			t.Logf("lost at %d documents; Prepare ended %s later at %d: %v", at, stopped.Round(time.Millisecond), loaded.Load(), err)
			if !errors.Is(err, ErrLockLost) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "stopped loading") {
				t.Fatalf("Prepare: %v; want a lost lock naming %q", err, tt.want)
			}
			if n := loaded.Load(); n >= int64(w.Records) {
				t.Errorf("the holder loaded all %d documents after losing its lock", n)
			}
			var m metaDoc
			if err := meta.FindOne(context.Background(), bson.D{{Key: "_id", Value: w.Collection}}).Decode(&m); err != nil || m.Complete {
				t.Errorf("meta %+v (%v): want the collection marked incomplete", m, err)
			}
			// The next run reloads it whole (the lock document is cleared
			// first, as the usurper would on its release).
			_, _ = meta.DeleteOne(context.Background(), bson.D{{Key: "_id", Value: lockID(w.Collection)}})
			lr, err := Prepare(context.Background(), c, w, PrepareOptions{RunID: "next", lock: timing})
			if err != nil || !lr.Loaded || lr.Documents != int64(w.Records) {
				t.Errorf("the next run: %+v %v, want a reload of %d documents", lr, err, w.Records)
			}
		})
	}
}

// TestLoadLockOutlivesLateWrites: a holder's writes that land late, after
// its client gave up on them, neither take the lock from the next holder
// nor bring back a released lock. FerretDB applies an update as a read
// and then a write of the whole document by _id; with a lock document
// that its holder updated (its heartbeat), an update read before the
// holder released the lock and written after the next run took it wrote
// the old holder's document back: the next holder then failed, "run X
// took it over", though X had finished, or the lock outlived its
// release and the others waited out its staleness (three sweeps on one
// FerretDB took 28 s instead of 7). Here run A holds the lock and beats
// every 2 ms, each bump given up after 2 ms, while other writers keep
// FerretDB's writes queued; it releases, and run B, waiting, takes the
// lock. B must still hold it a moment later, and after B's release A
// must take it again at once, ten times over. The staleness is an hour:
// no one may take a lock over here.
func TestLoadLockOutlivesLateWrites(t *testing.T) {
	t.Parallel()
	uri := testferret.Start(t)
	ca, cb, busy := testsrv.Connect(t, uri), testsrv.Connect(t, uri), testsrv.Connect(t, uri)
	ctx, stop := context.WithCancel(context.Background())
	var writers sync.WaitGroup
	for g := range 2 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			coll := busy.Database("ps_late").Collection(fmt.Sprintf("busy%d", g))
			docs := make([]any, 50)
			for j := range docs {
				docs[j] = bson.D{{Key: "pad", Value: strings.Repeat("x", 40)}}
			}
			for ctx.Err() == nil {
				_, _ = coll.InsertMany(ctx, docs)
			}
		}()
	}
	defer func() { stop(); writers.Wait() }()
	timing := lockTiming{beat: 2 * time.Millisecond, staleAfter: time.Hour, poll: time.Millisecond}
	metaA := ca.Database("ps_late").Collection(MetaCollection)
	metaB := cb.Database("ps_late").Collection(MetaCollection)
	// A read that FerretDB interrupts (its SQLite driver can interrupt
	// the next query on a connection whose earlier one ran out of time,
	// and the bumps here do) says nothing about the lock: tried again.
	// A lock lost or waited for in vain is never tried again.
	again := func(what string, f func() error) {
		t.Helper()
		for try := 1; ; try++ {
			err := f()
			if err == nil {
				return
			}
			if errors.Is(err, ErrLockLost) || errors.Is(err, ErrLockTimeout) || try == 5 {
				t.Fatalf("%s: %v", what, err)
			}
			t.Logf("%s: %v; trying again", what, err)
		}
	}
	for i := range 10 {
		var a, b *loadLock
		again(fmt.Sprintf("round %d: A after B's release", i), func() (err error) {
			a, err = acquireLoadLock(ctx, metaA, "c", "A", 3*time.Second, timing, nil)
			return err
		})
		got := make(chan error, 1)
		go func() {
			var err error
			for try := 1; ; try++ {
				b, err = acquireLoadLock(ctx, metaB, "c", "B", 3*time.Second, timing, nil)
				if err == nil || errors.Is(err, ErrLockTimeout) || try == 5 {
					break
				}
			}
			got <- err
		}()
		time.Sleep(30 * time.Millisecond)
		a.release()
		if err := <-got; err != nil {
			t.Fatalf("round %d: B after A's release: %v", i, err)
		}
		time.Sleep(100 * time.Millisecond)
		again(fmt.Sprintf("round %d: B, which took the lock after A's release", i), b.held)
		b.release()
	}
}
