package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
)

// Step-down and election through the real driver: writes during the
// election fail or wait and then succeed on the new primary, which the
// driver finds by polling.

// failures records the server errors the driver's commands met, by code,
// with their labels.
type failures struct {
	mu    sync.Mutex
	codes []int32
	retry []bool // RetryableWriteError, by failure
}

func (f *failures) monitor() *event.CommandMonitor {
	return &event.CommandMonitor{Failed: func(_ context.Context, e *event.CommandFailedEvent) {
		// The monitor sees the wire-level error, before the driver wraps it.
		var de driver.Error
		if !errors.As(e.Failure, &de) {
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		f.codes = append(f.codes, de.Code)
		f.retry = append(f.retry, de.HasErrorLabel("RetryableWriteError"))
	}}
}

func TestReplicaSetStepDownWithTheDriver(t *testing.T) {
	t.Parallel()
	const election = 400 * time.Millisecond
	d := startSim(t, fmt.Sprintf("rs=3,slots=8,service=1ms,election=%s", election))
	var failed failures
	c, w := connectWatched(t, d.URI(), 8, options.Client().SetMonitor(failed.monitor()))
	ctx := t.Context()
	coll := c.Database("db").Collection("c", options.Collection().SetWriteConcern(writeconcern.W1()))
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	old := d.Primary()

	// Four writers insert back to back; each records when it sent each
	// insert and when it was acknowledged. The driver retries what the
	// step-down refuses.
	type write struct{ sent, acked time.Time }
	var stop atomic.Bool
	var mu sync.Mutex
	var acked []write
	var writeErrs []error
	var inserted atomic.Int64
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				sent := time.Now()
				_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("w%d-%d", g, i)}})
				mu.Lock()
				if err != nil {
					writeErrs = append(writeErrs, err)
				} else {
					acked = append(acked, write{sent, time.Now()})
					inserted.Add(1)
				}
				mu.Unlock()
			}
		})
	}
	time.Sleep(300 * time.Millisecond)
	stepDown := time.Now()
	// replSetStepDown through the driver goes to the primary; the reply
	// is ok, and the connection stays open (4.2+).
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 60}}).Err(); err != nil {
		t.Fatalf("replSetStepDown: %v", err)
	}
	steppedDown := time.Now() // the member has stepped down by now
	if p := d.Primary(); p != "" {
		t.Errorf("right after the step-down the set has primary %s, want none until the election", p)
	}
	newPrimary, err := d.waitPrimary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// When the set elected it, by the server's own clock (the same as
	// the test's): not when this goroutine, on a busy host, saw it.
	elected := d.rs.view().electedAt
	waitFor(t, 10*time.Second, "the driver finds the new primary", func() bool {
		p, _ := w.primary()
		return p == newPrimary
	})
	time.Sleep(200 * time.Millisecond)
	stop.Store(true)
	wg.Wait()

	if newPrimary == old {
		t.Errorf("the old primary %s was elected again within its 60 s", old)
	}
	if took := elected.Sub(stepDown); took < election {
		t.Errorf("elected %v after the step-down, before the election delay %v", took, election)
	}
	if len(writeErrs) > 0 {
		t.Errorf("%d inserts failed for good (first: %v); the driver should have retried them on the new primary", len(writeErrs), writeErrs[0])
	}
	// No write was acknowledged while the set had no primary. A write
	// sent once the member had stepped down can only be applied by a new
	// primary, so its acknowledgement comes after the election; one sent
	// before may have been applied by the old primary and acknowledged
	// late on a busy host, so it proves nothing either way.
	mu.Lock()
	var during, after int
	var first time.Time
	for _, wr := range acked {
		at := wr.acked
		switch {
		case wr.sent.After(steppedDown) && at.Before(elected):
			during++
		case at.After(elected):
			after++
			if first.IsZero() || at.Before(first) {
				first = at
			}
		}
	}
	mu.Unlock()
	t.Logf("elected %v after the step-down; first write acknowledged %v after it", elected.Sub(stepDown), first.Sub(stepDown))
	if during > 0 || after == 0 {
		t.Errorf("%d writes acknowledged during the election, %d after it: want none during, some after", during, after)
	}
	// The driver met refusals, each labelled for retry: the writes in
	// progress interrupted (11602), and any sent before it knew
	// (NotWritablePrimary, 10107).
	failed.mu.Lock()
	if len(failed.codes) == 0 || slices.Contains(failed.retry, false) ||
		slices.ContainsFunc(failed.codes, func(c int32) bool { return c != 11602 && c != 10107 }) {
		t.Errorf("failures the driver saw: codes %v, labels %v; want 11602 or 10107, each with RetryableWriteError", failed.codes, failed.retry)
	}
	failed.mu.Unlock()
	// Every acknowledged insert is on the new primary, once.
	n, err := c.Database("db").Collection("c").EstimatedDocumentCount(ctx)
	if err != nil || n != inserted.Load() {
		t.Errorf("the new primary holds %d documents (%v), %d inserts were acknowledged", n, err, inserted.Load())
	}
	// The members say so too: the old primary is a secondary of the new
	// term, with a greater electionId on the new primary.
	hello := func(host string) bson.Raw {
		direct := connect(t, "mongodb://"+host+"/?directConnection=true", 1)
		r, err := direct.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	was, is := hello(old), hello(newPrimary)
	if was.Lookup("isWritablePrimary").Boolean() || !was.Lookup("secondary").Boolean() || was.Lookup("primary").StringValue() != newPrimary {
		t.Errorf("the old primary's hello: %v", was)
	}
	if id := is.Lookup("electionId").ObjectID(); id != electionID(2) {
		t.Errorf("the new primary's electionId %v, want %v (term 2)", id, electionID(2))
	}
}

// TestReplicaSetStepDownInterruptsWritesInProgress: a write whose slot was
// held when the primary stepped down is not applied; it fails with
// InterruptedDueToReplStateChange, labelled for retry, and the driver's
// retry lands it once on the new primary.
func TestReplicaSetStepDownInterruptsWritesInProgress(t *testing.T) {
	t.Parallel()
	d := startSim(t, "rs=3,write_slots=1,service=300ms,election=100ms")
	var failed failures
	c, _ := connectWatched(t, d.URI(), 2, options.Client().SetMonitor(failed.monitor()))
	ctx := t.Context()
	coll := c.Database("db").Collection("c", options.Collection().SetWriteConcern(writeconcern.W1()))
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "slow"}})
		done <- err
	}()
	// The insert holds the primary's only write slot (by the primary's own
	// books, not a guess at how long a busy host takes to send it).
	waitFor(t, 10*time.Second, "the insert takes the primary's write slot", func() bool {
		return d.Stats().Shards[0].Writes.Acquired == 1
	})
	if err := d.stepDown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("the interrupted insert was not retried to success: %v", err)
	}
	failed.mu.Lock()
	i := slices.Index(failed.codes, 11602)
	failed.mu.Unlock()
	if i < 0 || !failed.retry[i] {
		t.Errorf("failures the driver saw: codes %v, labels %v; want InterruptedDueToReplStateChange (11602) with RetryableWriteError", failed.codes, failed.retry)
	}
	waitApplied(t, d)
	for _, h := range d.Hosts() {
		direct := connect(t, "mongodb://"+h+"/?directConnection=true", 1)
		if n, err := direct.Database("db").Collection("c").EstimatedDocumentCount(ctx); err != nil || n != 1 {
			t.Errorf("%s holds %d documents (%v), want the insert once", h, n, err)
		}
	}
}

func TestReplicaSetStepDownRefusals(t *testing.T) {
	t.Parallel()
	d := startSim(t, "rs=3,service=0s,election=10s")
	ctx := t.Context()
	direct := func(host string) *mongo.Client { return connect(t, "mongodb://"+host+"/?directConnection=true", 1) }
	var ce mongo.CommandError
	// A secondary cannot step down.
	err := direct(d.Hosts()[1]).Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 60}}).Err()
	if !errors.As(err, &ce) || ce.Code != 10107 {
		t.Errorf("replSetStepDown on a secondary: %v, want NotWritablePrimary", err)
	}
	// A step-down period shorter than the catch-up period is refused.
	err = direct(d.Hosts()[0]).Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 5}}).Err()
	if !errors.As(err, &ce) || ce.Code != 2 {
		t.Errorf("replSetStepDown: 5: %v, want BadValue", err)
	}
	if err := d.stepDown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := d.stepDown(ctx); err == nil {
		t.Error("a second step-down during the election succeeded")
	}
	// A one-member set has no one to elect without force.
	one := startSim(t, "rs=1,service=0s")
	err = direct(one.Hosts()[0]).Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 60}}).Err()
	if !errors.As(err, &ce) || ce.Code != 262 {
		t.Errorf("replSetStepDown on a one-member set: %v, want ExceededTimeLimit", err)
	}
	// A standalone is not a set; a router knows no such command.
	err = direct(startSim(t, "service=0s").Hosts()[0]).Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Err()
	if !errors.As(err, &ce) || ce.Code != 76 {
		t.Errorf("replSetGetStatus on a standalone: %v, want NoReplicationEnabled", err)
	}
	err = connect(t, startSim(t, "shards=1,service=0s").URI(), 1).Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 60}}).Err()
	if !errors.As(err, &ce) || ce.Code != 59 {
		t.Errorf("replSetStepDown on a router: %v, want CommandNotFound", err)
	}
}

// TestElectionMetrics: every 4.2+ mongod reports electionMetrics with the
// fields and types of the captures (both ways: none missing, none added),
// a mongos and a 4.0 mongod none; a set's first primary counts its
// election by timeout, and the member elected after a step-down an
// election handed off to it (stepUpCmd), each caught up already.
func TestElectionMetrics(t *testing.T) {
	t.Parallel()
	real := loadReply(t, "serverStatus.mongod-8.0.9.json").Lookup("electionMetrics").Document()
	for _, v := range versions {
		for _, spec := range []string{"service=0s", "shards=1,service=0s"} {
			d := startSim(t, spec+",version="+v.name)
			sim := runCmd(t, d.fronts[0], "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
			em, err := sim.LookupErr("electionMetrics")
			want := v.wire >= 8 && !d.fronts[0].router
			if (err == nil) != want {
				t.Errorf("%s %s: electionMetrics reported %v, want %v", spec, v.name, err == nil, want)
				continue
			}
			if want {
				checkSubset(t, v.name+" electionMetrics", real, em.Document())
				checkSubset(t, v.name+" electionMetrics (the capture's)", em.Document(), real)
			}
		}
	}
	d := startSim(t, "rs=3,service=0s,election=50ms")
	metrics := func(i int) bson.Raw {
		return runCmd(t, d.fronts[i], "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil).Lookup("electionMetrics").Document()
	}
	if m := metrics(0); m.Lookup("electionTimeout", "successful").Int64() != 1 || m.Lookup("numCatchUpsAlreadyCaughtUp").Int64() != 1 {
		t.Errorf("the first primary's electionMetrics %v", m)
	}
	if err := d.stepDown(t.Context()); err != nil {
		t.Fatal(err)
	}
	p, err := d.waitPrimary(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	i := slices.Index(d.Hosts(), p)
	if m := metrics(i); m.Lookup("stepUpCmd", "called").Int64() != 1 || m.Lookup("stepUpCmd", "successful").Int64() != 1 ||
		m.Lookup("electionTimeout", "called").Int64() != 0 || m.Lookup("numCatchUpsAlreadyCaughtUp").Int64() != 1 {
		t.Errorf("the member elected after the step-down: electionMetrics %v", m)
	}
}
