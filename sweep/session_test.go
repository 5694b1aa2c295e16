package sweep

import (
	"context"
	"errors"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep/failpoint"
	"github.com/poolsweep/poolsweep/topology/sim"
	"github.com/poolsweep/poolsweep/workload"
)

// newTestSession is a small plan (C=1,2,4, short windows) against uri.
func newTestSession(t *testing.T, uri, dir string) *Session {
	t.Helper()
	levels, _ := plan.ParseLevels("1,2,4", plan.MaxConcurrency)
	w := workload.DefaultWorkload()
	w.Records, w.Database = 200, "ps_session"
	return &Session{
		RunID:       "test-run",
		Targets:     []SessionTarget{{Header: results.TargetHeader{Name: "sim", Topology: "standalone"}, NewClient: func() *options.ClientOptions { return options.Client().ApplyURI(uri) }}},
		Plan:        plan.Plan{Concurrency: levels, Pool: plan.PoolPlan{Match: true, Given: "match"}, Clients: 1, Trials: 1, Warmup: 100 * time.Millisecond, Duration: 300 * time.Millisecond, OpTimeout: time.Second},
		Workloads:   []workload.Workload{w},
		ResultsPath: filepath.Join(dir, "results.jsonl"),
		MakeDir:     func() error { return outfile.MakeDir(dir) }, // as the CLI makes --out
	}
}

// TestSessionRunsThePlan: a session measures every step, reports each
// through its hooks, and closes the file complete; the file reads back.
func TestSessionRunsThePlan(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	s := newTestSession(t, uri, t.TempDir())
	var (
		mu    sync.Mutex
		seen  []int
		begun int
	)
	s.Hooks = SessionHooks{
		Begin: func(int, int, plan.StepSpec) { begun++ },
		Step: func(n, of int, st results.StepResult) {
			mu.Lock()
			seen = append(seen, st.Concurrency)
			mu.Unlock()
		},
	}
	out, err := s.Run(context.Background())
	if err != nil || out.Status != results.StatusComplete || out.Measured != 3 || out.Planned != 3 {
		t.Fatalf("outcome %+v, %v", out, err)
	}
	if begun != 3 || len(seen) != 3 || seen[0] != 1 || seen[2] != 4 {
		t.Errorf("hooks: begun %d, steps %v", begun, seen)
	}
	res, err := results.ReadResultsFile(s.ResultsPath)
	if err != nil || len(res.Steps) != 3 || res.End.Status != results.StatusComplete || res.End.Steps != 3 || res.End.Planned != 3 || res.Header.RunID != "test-run" {
		t.Fatalf("results: %v %+v", err, res)
	}
	for _, st := range res.Steps {
		if st.Ops == 0 || st.Errors.Total() != 0 {
			t.Errorf("step C=%d: ops %d errors %+v", st.Concurrency, st.Ops, st.Errors)
		}
	}

	// Resuming the finished run finds nothing to do and touches nothing.
	prev, _ := results.ReadResultsFile(s.ResultsPath)
	again := newTestSession(t, uri, filepath.Dir(s.ResultsPath))
	again.Previous = prev
	if _, err := again.Run(context.Background()); !errors.Is(err, ErrAlreadyComplete) {
		t.Errorf("resume of a complete run: %v", err)
	}
	// A resume with another plan is refused, naming the flag.
	other := newTestSession(t, uri, filepath.Dir(s.ResultsPath))
	other.Previous = prev
	other.Plan.Trials = 2
	if _, err := other.Pending(); err == nil || err.Error() != "--trials was 1" {
		t.Errorf("resume with other trials: %v", err)
	}
}

// TestSessionKeepGoingAndInterrupt: with --keep-going a step whose target
// cannot be measured is skipped and the run ends partial, naming it; a
// cancelled context ends the run interrupted, naming the signal, and a
// resume measures only what is missing.
func TestSessionKeepGoingAndInterrupt(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	dir := t.TempDir()
	s := newTestSession(t, uri, dir)
	s.KeepGoing = true
	calls := 0
	s.Targets[0].Check = func() error {
		calls++
		if calls == 2 {
			return errors.New("server process exited")
		}
		return nil
	}
	out, err := s.Run(context.Background())
	if err != nil || out.Status != results.StatusPartial || len(out.Failed) != 1 || out.Failed[0].Concurrency != 2 || out.Measured != 2 {
		t.Fatalf("keep-going: %+v %v", out, err)
	}
	res, _ := results.ReadResultsFile(s.ResultsPath)
	if res.End.Status != results.StatusPartial || len(res.End.FailedSteps) != 1 || res.End.FailedSteps[0].Error != "server process exited" {
		t.Errorf("end record %+v", res.End)
	}

	// Resume: only C=2 is measured. Cancel during it with a signal cause.
	r := newTestSession(t, uri, dir)
	r.Previous = res
	pending, err := r.Pending()
	if err != nil || len(pending) != 1 || pending[0].Concurrency != 2 {
		t.Fatalf("pending after partial: %v %v", pending, err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	r.Hooks.Begin = func(int, int, plan.StepSpec) {
		time.AfterFunc(250*time.Millisecond, func() { cancel(Interrupt{Signal: "SIGTERM"}) })
	}
	out, err = r.Run(ctx)
	if err != nil || out.Status != results.StatusInterrupted || out.Signal != "SIGTERM" {
		t.Fatalf("interrupt: %+v %v", out, err)
	}
	res, err = results.ReadResultsFile(s.ResultsPath)
	if err != nil || res.End.Status != results.StatusInterrupted || res.End.Signal != "SIGTERM" {
		t.Fatalf("after interrupt: %v %+v", err, res.End)
	}
}

// TestSessionResumeMeasuresFailedSteps: a step during which the target
// failed, or an election changed the primary, is measured again on resume,
// as an interrupted one is; the later
// records replace the earlier ones, and the end record counts each step
// once (the audit saw steps: 4, planned: 3 after a resume).
func TestSessionResumeMeasuresFailedSteps(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	dir := t.TempDir()
	s := newTestSession(t, uri, dir)
	if out, err := s.Run(context.Background()); err != nil || out.Status != results.StatusComplete {
		t.Fatalf("first run: %+v %v", out, err)
	}
	first, err := results.ReadResultsFile(s.ResultsPath)
	if err != nil {
		t.Fatal(err)
	}
	// The file as a run would leave it had an election happened during
	// C=1, the target failed during C=2 and a signal cut C=4 short.
	elected, failed, cut := first.Steps[0], first.Steps[1], first.Steps[2]
	elected.PrimaryChange = &results.PrimaryChange{Before: "a:1", After: "b:1", Changes: 1, NoPrimaryMS: 400}
	failed.TargetFailed = &results.TargetFailed{Failed: true, Reason: "no operation succeeded for 1.0 s", StalledS: 1}
	failed.Bound, failed.BoundReason = results.BoundFailed, "target failed during the window: no operation succeeded for 1.0 s"
	cut.Interrupted = true
	again := filepath.Join(t.TempDir(), "results.jsonl")
	w, err := results.CreateResults(again)
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range []any{first.Header, elected, failed, cut,
		results.EndRecord{Kind: results.KindEnd, Status: results.StatusInterrupted, Steps: 3, Planned: 3, Signal: "SIGINT"}} {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()

	prev, err := results.ReadResultsFile(again)
	if err != nil {
		t.Fatal(err)
	}
	r := newTestSession(t, uri, filepath.Dir(again))
	r.Previous = prev
	pending, err := r.Pending()
	if err != nil || len(pending) != 3 || pending[0].Concurrency != 1 || pending[1].Concurrency != 2 || pending[2].Concurrency != 4 {
		t.Fatalf("pending: %v %v; want C=1 (the primary changed), C=2 (the target failed) and C=4 (interrupted)", pending, err)
	}
	out, err := r.Run(context.Background())
	if err != nil || out.Status != results.StatusComplete || out.Measured != 3 {
		t.Fatalf("resume: %+v %v", out, err)
	}
	res, err := results.ReadResultsFile(again)
	if err != nil || res.End.Steps != 3 || res.End.Planned != 3 || len(res.Steps) != 3 {
		t.Fatalf("after resume: %v, end %+v, %d steps", err, res.End, len(res.Steps))
	}
	for _, st := range res.Steps {
		if !st.Measured() {
			t.Errorf("step C=%d is still not a measurement after the resume: %+v", st.Concurrency, st)
		}
	}
}

// TestSessionLoadLockLost: the load lock's document is removed while the
// session loads. The load stops, no step is measured on the half-loaded
// collection, the run fails with an error saying why, and the results
// file ends with a failed end record that says the same.
func TestSessionLoadLockLost(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=8,service=50ms").URI()
	s := newTestSession(t, uri, t.TempDir())
	w := &s.Workloads[0]
	// Several seconds of loading: 200 batches of 500 small documents.
	w.Records, w.FieldCount, w.FieldLength, w.Database = 100_000, 1, 8, "ps_session_lost"
	meta := testsrv.Connect(t, uri).Database(w.Database).Collection(workload.MetaCollection)
	var once sync.Once
	s.Hooks.Loading = func(_ string, done, _ int) {
		if done >= 5000 {
			once.Do(func() {
				go meta.DeleteOne(context.Background(), bson.D{{Key: "_id", Value: "lock:" + w.Collection}})
			})
		}
	}
	measured := 0
	s.Hooks.Begin = func(int, int, plan.StepSpec) { measured++ }
	out, err := s.Run(context.Background())
	if !errors.Is(err, workload.ErrLockLost) || out.Status != results.StatusFailed || measured != 0 || out.Measured != 0 {
		t.Fatalf("outcome %+v, %d step(s) begun, error %v; want a failed run, nothing measured, the lost lock named", out, measured, err)
	}
	res, rerr := results.ReadResultsFile(s.ResultsPath)
	if rerr != nil || res.End == nil || res.End.Status != results.StatusFailed || !strings.Contains(res.End.Reason, "lost the load lock") || len(res.Steps) != 0 {
		t.Fatalf("results: %v, end %+v; want a failed end record naming the lost lock", rerr, res.End)
	}
	t.Logf("end record: %s", res.End.Reason)
}

// TestSessionResumeSwitchesOffFailPoints: a fail point an earlier process
// of the run recorded and never switched off (the process was killed) is
// switched off by the resumed run before anything else, which says so;
// its record is finished, and another run's record is left alone.
func TestSessionResumeSwitchesOffFailPoints(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	dir := t.TempDir()
	s := newTestSession(t, uri, dir)
	ctx, cancel := context.WithCancelCause(context.Background())
	s.Hooks.Begin = func(int, int, plan.StepSpec) { cancel(Interrupt{Signal: "SIGKILL"}) }
	if out, err := s.Run(ctx); err != nil || out.Status != results.StatusInterrupted {
		t.Fatalf("first run: %+v %v", out, err)
	}
	meta := testsrv.Connect(t, uri).Database("ps_session").Collection(workload.MetaCollection)
	on, _ := bson.Marshal(bson.D{{Key: "configureFailPoint", Value: failpoint.Name}, {Key: "mode", Value: "alwaysOn"}})
	for _, run := range []string{"test-run", "another-run"} {
		rec := failpoint.Record{ID: failpoint.Kind + ":" + run, Kind: failpoint.Kind, Tool: "poolsweep", RunID: run,
			Host: testsrv.Host(t, uri), Name: failpoint.Name, On: on, SetAt: time.Now().UTC(), Process: "pid 1 on a killed host"}
		if _, err := meta.InsertOne(t.Context(), rec); err != nil {
			t.Fatal(err)
		}
	}
	prev, err := results.ReadResultsFile(s.ResultsPath)
	if err != nil {
		t.Fatal(err)
	}
	r := newTestSession(t, uri, dir)
	r.Previous = prev
	var said []string
	r.Hooks.Server = func(target, msg string) { said = append(said, target+": "+msg) }
	r.Hooks.Begin = func(int, int, plan.StepSpec) {
		if len(said) == 0 {
			t.Error("a step began before the fail point was switched off")
		}
	}
	if out, err := r.Run(context.Background()); err != nil || out.Status != results.StatusComplete {
		t.Fatalf("resumed run: %+v %v", out, err)
	}
	if len(said) != 1 || !strings.Contains(said[0], "sim: the failCommand fail point this run set on "+testsrv.Host(t, uri)) {
		t.Errorf("said %q", said)
	}
	for run, done := range map[string]bool{"test-run": true, "another-run": false} {
		var rec failpoint.Record
		if err := meta.FindOne(t.Context(), bson.D{{Key: "_id", Value: failpoint.Kind + ":" + run}}).Decode(&rec); err != nil || rec.Done != done {
			t.Errorf("record of %s: done %v, want %v (%v)", run, rec.Done, done, err)
		}
	}
}

// TestSessionTargetCloseSwitchesOffFailPoints: a fail point a step set
// through its runner's guard is switched off when the session closes the
// target, which it does on every way out of Run (its end, an error, a
// signal). Needs the simulator's test commands; skipped without them.
func TestSessionTargetCloseSwitchesOffFailPoints(t *testing.T) {
	t.Parallel()
	if _, err := sim.ParseSpec("test_commands=true"); err != nil {
		t.Skipf("this simulator has no test commands: %v", err)
	}
	uri := testsrv.Sim(t, "slots=4,service=1ms,test_commands=true").URI()
	s := newTestSession(t, uri, t.TempDir())
	ctx, cancel := context.WithCancelCause(context.Background())
	st, err := s.prepare(ctx, s.Targets[0])
	if err != nil {
		t.Fatal(err)
	}
	r := st.runners[s.Workloads[0].Label]
	if r.FailPoints == nil {
		t.Fatal("the step's runner has no fail-point guard")
	}
	block := failpoint.Command{FailCommands: []string{"find"}, BlockConnection: true, BlockTime: 3 * time.Second, AppName: "poolsweep"}
	if _, err := r.FailPoints.Set(ctx, testsrv.Host(t, uri), block); err != nil {
		t.Fatal(err)
	}
	finds := func() time.Duration {
		c := testsrv.Connect(t, uri+"?appName=poolsweep")
		began := time.Now()
		c.Database("ps_session").Collection("usertable").FindOne(t.Context(), bson.D{})
		return time.Since(began)
	}
	if d := finds(); d < 3*time.Second {
		t.Fatalf("a find took %s with the fail point on", d)
	}
	cancel(Interrupt{Signal: "SIGINT"})
	st.close()
	if d := finds(); d >= 3*time.Second {
		t.Fatalf("a find took %s after the target was closed: the fail point is still on", d)
	}
}

// TestSwitchOffFailPointsNamesWhatMayStayOn: at the run's end a fail
// point whose host does not answer the switch-off is an error naming the
// target and the host, which the session records as a failed run (a run
// recorded complete is never resumed), and its meta record stays
// unfinished for --resume.
func TestSwitchOffFailPointsNamesWhatMayStayOn(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, "slots=4,service=1ms").URI()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	silent := ln.Addr().String() // accepts, never answers
	defer ln.Close()
	meta := testsrv.Connect(t, uri).Database("ps_session").Collection(workload.MetaCollection)
	g := failpoint.NewGuard(meta, "run-end", func(host string) *options.ClientOptions {
		return options.Client().SetHosts([]string{host}).SetDirect(true).SetServerSelectionTimeout(time.Second)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	block := failpoint.Command{FailCommands: []string{"find"}, BlockConnection: true, BlockTime: time.Second, AppName: "poolsweep"}
	if _, err := g.Set(ctx, silent, block); err == nil {
		t.Fatal("Set on a host that never answers returned no error")
	}
	if err := switchOffFailPoints(ctx, map[string]*sessionTarget{"a": {guard: g}, "b": {}}); err == nil ||
		!strings.Contains(err.Error(), "target a: switch the failCommand fail point off on "+silent) || !strings.HasSuffix(err.Error(), "--resume switches it off") {
		t.Fatalf("switchOffFailPoints: %v", err)
	}
	var rec failpoint.Record
	if err := meta.FindOne(t.Context(), bson.D{{Key: "run_id", Value: "run-end"}}).Decode(&rec); err != nil || rec.Done {
		t.Errorf("record %+v %v, want it unfinished", rec, err)
	}
}
