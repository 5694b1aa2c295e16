package sweep

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/testkit/testferret"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// replayWorkload reads the workload package's test file (eight shapes on
// app.users, one of each command) and prepares its replay on uri, after
// filling app.users with 200 documents.
func replayWorkload(t *testing.T, uri string) workload.Workload {
	t.Helper()
	ctx := context.Background()
	c := testsrv.Connect(t, uri)
	var docs []any
	for i := range 200 {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "email", Value: fmt.Sprintf("u%d@x", i)}, {Key: "status", Value: "a"}})
	}
	if _, err := c.Database("app").Collection("users").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	f, err := shapes.Read("../workload/testdata/replay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := replayOf(t, f)
	if _, err := workload.Prepare(ctx, c, w, workload.PrepareOptions{}); err != nil {
		t.Fatal(err)
	}
	return w
}

// replayOf is the replay of f as a workload.
func replayOf(t *testing.T, f *shapes.File) workload.Workload {
	t.Helper()
	r, err := workload.NewReplay(f, "replay.yaml", workload.ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w := workload.DefaultWorkload()
	w.Name, w.Label, w.Replay = "replay", "replay", r
	return w
}

// TestReplayStepSharesOnSim: a replayed file's steps on the simulator
// record every shape under its own op type, each in its file's share
// (within 3 points, or 4 standard errors where a busy host ran few ops)
// at two concurrencies, with per-shape latencies that
// follow the simulator's shape classes: an aggregation (agg_service 3ms)
// is slower at the median than a scan (scan_service 1.5ms) below the
// knee.
func TestReplayStepSharesOnSim(t *testing.T) {
	d := testsrv.Sim(t, "slots=8,service=300us,scan_service=1500us,agg_service=3ms,write_service=600us")
	w := replayWorkload(t, d.URI())
	r := &runner{Target: "sim", NewClient: func() *options.ClientOptions { return options.Client().ApplyURI(d.URI()) },
		Workload: w, Keys: workload.NewKeySpace("uniform", 1000, 1000), Warmup: 200 * time.Millisecond, Duration: 1500 * time.Millisecond,
		OpTimeout: 5 * time.Second}
	info := w.Replay.Info()
	for _, c := range []int{4, 16} {
		spec := plan.StepSpec{Target: "sim", Workload: w.Label, Concurrency: c, MaxPoolSize: c, PoolSetting: "match", Clients: 1, Trial: 1}
		step, err := r.RunStep(context.Background(), spec)
		if err != nil {
			t.Fatal(err)
		}
		if step.Ops < 500 || step.Errors.Total() > 0 {
			t.Fatalf("C=%d: %d ops, errors %+v (%s)", c, step.Ops, step.Errors, step.ErrorSample)
		}
		t.Logf("C=%d: %d ops, %.0f ops/s", c, step.Ops, step.OpsPerS)
		for _, s := range info.Shapes {
			st := step.OpsByType[s.OpType]
			got := float64(st.Count) / float64(step.Ops)
			t.Logf("C=%d: shape %-11s share %.3f measured %.3f p50 %.2fms p99 %.2fms", c, s.ID, s.Share, got, st.Latency.P50, st.Latency.P99)
			// 3 points, or four standard errors of a share of the ops
			// counted when a busy host ran few of them.
			if tol := max(0.03, 4*math.Sqrt(s.Share*(1-s.Share)/float64(step.Ops))); math.Abs(got-s.Share) > tol {
				t.Errorf("C=%d: shape %s: %.3f of the ops, want %.3f", c, s.ID, got, s.Share)
			}
			if step.Histograms.Ops[s.OpType] == "" {
				t.Errorf("C=%d: shape %s has no histogram", c, s.ID)
			}
		}
		if results.OpClassOf(results.ShapeOpType("update", "x")) != results.OpClassWrite {
			t.Error("a shape's update is not a write")
		}
		if c == 4 {
			agg, scan := step.OpsByType[results.ShapeOpType("aggregate", "bystatus")], step.OpsByType[results.ShapeOpType("find", "byemail")]
			if agg.Latency.P50 <= scan.Latency.P50 {
				t.Errorf("C=4: the aggregation's median %.2fms is not above the scan's %.2fms", agg.Latency.P50, scan.Latency.P50)
			}
		}
	}
}

// TestReplayResume: a run replayed from a file is resumed only with the
// same shapes and shares; another file's, or the built-in workload, is
// refused by what changed.
func TestReplayResume(t *testing.T) {
	f, err := shapes.Read("../workload/testdata/replay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w := replayOf(t, f)
	p := plan.Plan{Concurrency: []int{4}, Pool: plan.PoolPlan{Given: "match"}, Clients: 1, Trials: 1, Duration: time.Second, OpTimeout: time.Second}
	h := newRunHeader("r", p, []workload.Workload{w}, []results.TargetHeader{{Name: "a"}}, 1)
	if h.Workload.Replay == nil || len(h.Workload.Replay.Shapes) != 8 {
		t.Fatalf("the header's replay: %+v", h.Workload.Replay)
	}
	if err := checkResume(h, p, []workload.Workload{w}, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	g := *f
	g.Shapes = append([]shapes.Shape(nil), f.Shapes...)
	g.Shapes[0].Share, g.Shapes[1].Share = 0.3, 0.3
	w2 := replayOf(t, &g)
	if err := checkResume(h, p, []workload.Workload{w2}, []string{"a"}); err == nil || !strings.Contains(err.Error(), "shapes or shares") {
		t.Errorf("resume with other shares: %v", err)
	}
}

// TestReplayStepOnFerretDB: a replayed step on embedded FerretDB runs
// every shape for real and records each in its share (within 4 standard
// errors of the ops counted: FerretDB runs few), and the user's
// collection is what it was, document for document.
func TestReplayStepOnFerretDB(t *testing.T) {
	t.Parallel()
	uri := testferret.Start(t)
	w := replayWorkload(t, uri)
	users := testsrv.Connect(t, uri).Database("app").Collection("users")
	before := usersDump(t, users)
	r := &runner{Target: "ferret", NewClient: func() *options.ClientOptions { return options.Client().ApplyURI(uri) },
		Workload: w, Keys: workload.NewKeySpace("uniform", 1000, 1000), Warmup: 200 * time.Millisecond, Duration: time.Second,
		OpTimeout: 5 * time.Second,
		// The window runs until it holds 200 calls, however slowly a busy
		// host lets FerretDB answer: the shares are judged on a count, not
		// on a length (beside four busy loops a 1-s window held 24).
		Auto: autoWindow(50, time.Second, time.Minute, 200)}
	spec := plan.StepSpec{Target: "ferret", Workload: w.Label, Concurrency: 4, MaxPoolSize: 4, PoolSetting: "match", Clients: 1, Trial: 1}
	step, err := r.RunStep(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	if step.Ops < 200 || step.Errors.Total() > 0 {
		t.Fatalf("%d ops, errors %+v (%s)", step.Ops, step.Errors, step.ErrorSample)
	}
	t.Logf("%d ops, %.0f ops/s", step.Ops, step.OpsPerS)
	for _, s := range w.Replay.Info().Shapes {
		got := float64(step.OpsByType[s.OpType].Count) / float64(step.Ops)
		t.Logf("shape %-11s share %.3f measured %.3f p50 %.2fms", s.ID, s.Share, got, step.OpsByType[s.OpType].Latency.P50)
		if tol := 4 * math.Sqrt(s.Share*(1-s.Share)/float64(step.Ops)); math.Abs(got-s.Share) > max(tol, 0.03) {
			t.Errorf("shape %s: %.3f of the ops, want %.3f", s.ID, got, s.Share)
		}
	}
	if after := usersDump(t, users); after != before {
		t.Errorf("the user's collection changed during the replay")
	}
}

// usersDump is a collection's documents in _id order, byte for byte.
func usersDump(t *testing.T, coll *mongo.Collection) string {
	t.Helper()
	ctx := context.Background()
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for cur.Next(ctx) {
		b.Write(cur.Current)
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
