package sweep

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testferret"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/workload"
)

func TestPrepareOwnership(t *testing.T) {
	t.Parallel()
	uri := testferret.Start(t)
	c := testsrv.Connect(t, uri)
	ctx := context.Background()
	w := workload.DefaultWorkload()
	w.Records = 300
	w.Database = "ps_test"

	lr, err := workload.Prepare(ctx, c, w, workload.PrepareOptions{})
	if err != nil || !lr.Loaded || lr.NextInsert != 300 {
		t.Fatalf("first load: %+v %v", lr, err)
	}
	n, _ := c.Database("ps_test").Collection("usertable").CountDocuments(ctx, bson.D{})
	if n != 300 {
		t.Fatalf("loaded %d documents, want 300", n)
	}
	// same size: reused, nothing rewritten
	if lr, err = workload.Prepare(ctx, c, w, workload.PrepareOptions{}); err != nil || !lr.Reused {
		t.Fatalf("second prepare should reuse: %+v %v", lr, err)
	}
	// a different size of our own collection is reloaded
	w.Records = 200
	if lr, err = workload.Prepare(ctx, c, w, workload.PrepareOptions{}); err != nil || !lr.Loaded {
		t.Fatalf("resize: %+v %v", lr, err)
	}
	// someone else's collection is refused, even with --drop, and left intact
	other := c.Database("theirs").Collection("usertable")
	if _, err := other.InsertOne(ctx, bson.D{{Key: "_id", Value: "precious"}}); err != nil {
		t.Fatal(err)
	}
	w.Database = "theirs"
	for _, drop := range []bool{false, true} {
		if _, err := workload.Prepare(ctx, c, w, workload.PrepareOptions{Drop: drop}); !errors.Is(err, workload.ErrNotOurs) {
			t.Fatalf("drop=%v: want ErrNotOurs, got %v", drop, err)
		}
	}
	if n, _ := other.CountDocuments(ctx, bson.D{}); n != 1 {
		t.Fatalf("their collection was changed: %d documents", n)
	}
}

func TestRunStepAgainstFerretDB(t *testing.T) {
	t.Parallel()
	uri := testferret.Start(t)
	c := testsrv.Connect(t, uri)
	ctx := context.Background()
	w, _ := workload.BuiltinWorkload("api", "")
	w.Records = 200
	lr, err := workload.Prepare(ctx, c, w, workload.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var phases []string
	r := &runner{Target: "ferret", NewClient: func() *options.ClientOptions { return options.Client().ApplyURI(uri) },
		Workload: w, Keys: workload.NewKeySpace("uniform", 200, lr.NextInsert), Warmup: 200 * time.Millisecond, Duration: 1500 * time.Millisecond,
		OpTimeout: 5 * time.Second, Progress: func(p Progress) { phases = append(phases, p.Phase) }}
	spec := plan.StepSpec{Target: "ferret", Workload: w.Label, Concurrency: 4, MaxPoolSize: 2, PoolSetting: "2", Clients: 2, Trial: 1}
	step, err := r.RunStep(ctx, spec)
	if err != nil {
		t.Fatal(err)
	}
	if step.Calls == 0 || step.Errors.Total() != 0 {
		t.Fatalf("no successful calls: %+v", step)
	}
	// api calls are 2 finds + 1 update each; calls that straddle the
	// window's edges count some of their ops only, at most one call per
	// worker (8) at each edge
	f, u := step.OpsByType["find"].Count, step.OpsByType["update"].Count
	if f < 2*(step.Calls-8) || f > 2*(step.Calls+8) || u < step.Calls-8 || u > step.Calls+8 || step.Ops != f+u {
		t.Errorf("ops %d finds, %d updates for %d calls", f, u, step.Calls)
	}
	// K=2 clients × min(C=4, P=2) connections, counted from pool events
	if step.Connections != 4 {
		t.Errorf("connections = %d, want 4", step.Connections)
	}
	// 4 workers share 2 connections per client: they must have waited
	if step.Pool.CheckoutWait.P99 <= 0 {
		t.Errorf("pool wait not recorded: %+v", step.Pool)
	}
	if step.DurationS < 1.4 || step.DurationS > 3 || step.OpsPerS <= 0 || step.Latency.P99 < step.Latency.P50 {
		t.Errorf("window/latency implausible: %+v", step)
	}
	if len(phases) == 0 {
		t.Error("no progress reported")
	}

	// An interrupted window returns the partial step, marked. The cancel
	// comes half a second into the window, whenever a busy host opens it
	// (a cancel during the pre-warm or warm-up is not a window's).
	ictx, cancel := context.WithCancel(ctx)
	defer cancel()
	var once sync.Once
	r.Progress = func(p Progress) {
		if p.Phase == PhaseMeasure {
			once.Do(func() { time.AfterFunc(500*time.Millisecond, cancel) })
		}
	}
	r.Warmup, r.Duration = 100*time.Millisecond, 10*time.Second
	start := time.Now()
	step, err = r.RunStep(ictx, spec)
	if !errors.Is(err, context.Canceled) || !step.Interrupted || time.Since(start) > 8*time.Second {
		t.Errorf("interrupt: err=%v interrupted=%v after %s", err, step.Interrupted, time.Since(start))
	}
}
