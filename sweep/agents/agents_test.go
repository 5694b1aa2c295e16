package agents

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/testkit/testhost"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/workload"
)

// The simulators of the agents' tests. The lock step (serial) measures
// against 1-ms service; the tests that run in parallel against 5-ms
// service, so that their closed loops cost the machine a fifth as much:
// at 1 ms, seven of them at once beside two busy loops starved their own
// coordination (a leader's word once stood still for 5 s).
const (
	lockStepSim = "slots=8,service=1ms"
	parallelSim = "slots=8,service=5ms"
)

// agentSessions starts a simulator of spec and returns its URI and made
// sessions (agents 0 to made-1) of run, a run of count agents, each
// writing to its own directory; timeout is --agent-timeout. The plan is
// C=1,2,4 with windows long enough that the few tens of milliseconds by
// which a busy 2-core machine starts agents apart stay under 5% of them.
func agentSessions(t *testing.T, spec, run string, made, count int, timeout time.Duration) (string, []*sweep.Session) {
	t.Helper()
	uri := testsrv.Sim(t, spec).URI()
	dir := t.TempDir()
	levels, _ := plan.ParseLevels("1,2,4", plan.MaxConcurrency)
	ss := make([]*sweep.Session, made)
	for index := range ss {
		w := workload.DefaultWorkload()
		w.Records, w.Database = 200, "ps_agents"
		s := &sweep.Session{RunID: run, Workloads: []workload.Workload{w},
			Targets: []sweep.SessionTarget{{Header: results.TargetHeader{Name: "sim", Topology: "standalone"},
				NewClient: func() *options.ClientOptions { return options.Client().ApplyURI(uri) }, Observers: []sweep.WindowObserver{testhost.Observer(t, uri, 0)}}},
			Plan: plan.Plan{Concurrency: levels, Pool: plan.PoolPlan{Match: true, Given: "match"}, Clients: 1, Trials: 1,
				Warmup: 100 * time.Millisecond, Duration: 1500 * time.Millisecond, OpTimeout: time.Second},
			ResultsPath: filepath.Join(dir, fmt.Sprintf("agent-%d", index), "results.jsonl")}
		s.MakeDir = func() error { return outfile.MakeDir(filepath.Dir(s.ResultsPath)) } // as the CLI makes --out
		s.Coordinator = &Agent{RunID: run, Count: count, Index: index, PlanHash: PlanHash(s, count), ClientsPerAgent: 1,
			Timeout: timeout, StepTime: 5 * time.Second, Window: s.Plan.Warmup + s.Plan.Duration, NewClient: s.Targets[0].NewClient, Database: "ps_agents"}
		ss[index] = s
	}
	return uri, ss
}

type agentRun struct {
	out sweep.Outcome
	err error
}

// runAgents runs the sessions at once and returns their outcomes.
func runAgents(ctxs []context.Context, ss ...*sweep.Session) []agentRun {
	res := make([]agentRun, len(ss))
	var wg sync.WaitGroup
	for i, s := range ss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i].out, res[i].err = s.Run(ctxs[i])
		}()
	}
	wg.Wait()
	return res
}

func bg(n int) []context.Context {
	out := make([]context.Context, n)
	for i := range out {
		out[i] = context.Background()
	}
	return out
}

// checkNoLeftover fails the test if the run's coordination documents are
// still in the target.
func checkNoLeftover(t *testing.T, uri, run string) {
	t.Helper()
	c := testsrv.Connect(t, uri)
	// Find, not CountDocuments: the simulator serves no aggregate.
	cur, err := c.Database("ps_agents").Collection(Collection).Find(context.Background(), bson.D{{Key: "run_id", Value: run}})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.M
	if err := cur.All(context.Background(), &docs); err != nil {
		t.Fatal(err)
	}
	if len(docs) != 0 {
		t.Errorf("%d coordination documents of run %s left behind", len(docs), run)
	}
}

// TestAgentsLockStep: three agents in one process measure the plan in
// lock step: every step of every agent is complete, the windows line up
// (overlap ≥ 95%), the merge sums them, and the coordination documents
// are gone at the end.
func TestAgentsLockStep(t *testing.T) {
	uri, ss := agentSessions(t, lockStepSim, "lockstep", 3, 3, 20*time.Second)
	for i, r := range runAgents(bg(3), ss...) {
		if r.err != nil || r.out.Status != results.StatusComplete || r.out.Measured != 3 {
			t.Fatalf("agent %d: %+v %v", i, r.out, r.err)
		}
	}
	var files []*results.Results
	for _, s := range ss {
		res, err := results.ReadResultsFile(s.ResultsPath)
		if err != nil {
			t.Fatal(err)
		}
		if a := res.Header.Agents; a == nil || a.Count != 3 || a.PlanHash == "" {
			t.Fatalf("header agents %+v", a)
		}
		for _, st := range res.Steps {
			if st.Agent == nil || st.Histograms == nil || st.Partial || st.Phases.Barrier <= 0 {
				t.Errorf("%s C=%d: agent %+v partial %v phases %+v", res.Path, st.Concurrency, st.Agent, st.Partial, st.Phases)
			}
		}
		files = append(files, res)
	}
	m, err := results.MergeAgents(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range m.Steps {
		var sum float64
		for _, a := range st.Agents {
			sum += a.OpsPerS
		}
		t.Logf("C=%d: %.0f ops/s over %d agents, skew start %.1f ms end %.1f ms, overlap %.3f", st.Concurrency, st.OpsPerS, len(st.Agents), st.WindowSkew.StartMS, st.WindowSkew.EndMS, st.WindowSkew.Overlap)
		if len(st.Agents) != 3 || st.Partial || st.Clients != 3 || st.OpsPerS != sum {
			t.Errorf("merged C=%d: %d agents, partial %v, clients %d", st.Concurrency, len(st.Agents), st.Partial, st.Clients)
		}
		if st.WindowSkew.Overlap < 0.95 {
			// A starved load host delays an agent's start or end of its
			// window by its own amount: a miss is accepted only with the
			// agents' own evidence of it.
			if why := agentsStarved(files, st); why != "" {
				t.Logf("C=%d: windows overlap %.3f, under 0.95, on a load host the agents' own telemetry shows starved: %s", st.Concurrency, st.WindowSkew.Overlap, why)
			} else {
				t.Errorf("C=%d: windows overlap %.3f, want ≥ 0.95 (skew %+v), and no agent's telemetry shows its load host starved", st.Concurrency, st.WindowSkew.Overlap, st.WindowSkew)
			}
		}
	}
	if m.End.Status != results.StatusComplete {
		t.Errorf("merged end %+v", m.End)
	}
	checkNoLeftover(t, uri, "lockstep")
}

// TestAgentsRefusedAndMissing: an agent with another plan is refused at
// the start, by name, before it loads anything; the leader runs without
// it, and without an agent that never came: after --agent-timeout each
// step is partial, naming both, and so is the run.
func TestAgentsRefusedAndMissing(t *testing.T) {
	t.Parallel() // it waits on agent timeouts (TestAgentsLockStep measures skew: serial)
	uri, ss := agentSessions(t, parallelSim, "refused", 2, 3, 1500*time.Millisecond)
	for _, s := range ss { // it asserts no skew: short windows
		s.Plan.Duration = 500 * time.Millisecond
		a := s.Coordinator.(*Agent)
		a.PlanHash, a.Window = PlanHash(s, 3), s.Plan.Warmup+s.Plan.Duration
	}
	leader, odd := ss[0], ss[1]
	odd.Plan.Trials = 2
	odd.Coordinator.(*Agent).PlanHash = PlanHash(odd, 3)
	rs := runAgents(bg(2), leader, odd)
	var refused *Refused
	if !errors.As(rs[1].err, &refused) || !strings.Contains(refused.Reason, "is not the leader's") || !strings.Contains(refused.Reason, "agent 0") {
		t.Fatalf("odd agent: %+v %v", rs[1].out, rs[1].err)
	}
	if rs[0].err != nil || rs[0].out.Status != results.StatusPartial || !strings.Contains(rs[0].out.Reason, "ran without some agents") {
		t.Fatalf("leader: %+v %v", rs[0].out, rs[0].err)
	}
	res, err := results.ReadResultsFile(leader.ResultsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Steps {
		if !st.Partial || len(st.MissingAgents) != 2 {
			t.Fatalf("C=%d: partial %v missing %+v", st.Concurrency, st.Partial, st.MissingAgents)
		}
		// The leader may judge the plan itself, or read the agent's own
		// refusal first; either way the plan is named.
		if m := st.MissingAgents[0]; m.Index != 1 || !strings.Contains(m.Reason, "plan (hash") {
			t.Errorf("agent 1: %+v", m)
		}
		if m := st.MissingAgents[1]; m.Index != 2 || !strings.Contains(m.Reason, "not registered within --agent-timeout") {
			t.Errorf("agent 2: %+v", m)
		}
	}
	if res.End.Status != results.StatusPartial {
		t.Errorf("end %+v", res.End)
	}
	if _, err := results.ReadResultsFile(odd.ResultsPath); err == nil {
		t.Errorf("the refused agent wrote results")
	}
	checkNoLeftover(t, uri, "refused")
}

// TestAgentsLeaderInterrupt: Ctrl-C on the leader stops the followers at
// their next barrier; they end interrupted, naming the leader.
func TestAgentsLeaderInterrupt(t *testing.T) {
	t.Parallel() // it waits on agent timeouts (TestAgentsLockStep measures skew: serial)
	uri, ss := agentSessions(t, parallelSim, "interrupt", 2, 2, 20*time.Second)
	ctx, cancel := context.WithCancelCause(context.Background())
	ss[0].Hooks.Step = func(n, _ int, _ results.StepResult) {
		if n == 1 {
			cancel(sweep.Interrupt{Signal: "SIGINT"})
		}
	}
	rs := runAgents([]context.Context{ctx, context.Background()}, ss...)
	if rs[0].out.Status != results.StatusInterrupted || rs[0].out.Signal != "SIGINT" {
		t.Fatalf("leader: %+v %v", rs[0].out, rs[0].err)
	}
	f := rs[1].out
	if f.Status != results.StatusInterrupted || !strings.Contains(f.Reason, "agent 0") || !strings.Contains(f.Reason, "stopped the run") || f.Measured > 2 {
		t.Fatalf("follower: %+v %v", f, rs[1].err)
	}
	checkNoLeftover(t, uri, "interrupt")
}

// TestAgentsLateAgentSkipsAStep: an agent that is not ready within
// --agent-timeout is named, the step runs without it and is partial; the
// late agent skips that step (keeping off the server until the others'
// window has ended) and is back in lock step for the next one.
func TestAgentsLateAgentSkipsAStep(t *testing.T) {
	t.Parallel() // it waits on agent timeouts (TestAgentsLockStep measures skew: serial)
	// A 3-s --agent-timeout: beside the other parallel tests and two busy
	// loops, the late agent was once not ready for step 1 within 1.5 s.
	_, ss := agentSessions(t, parallelSim, "late", 2, 2, 3*time.Second)
	leader, late := ss[0], ss[1]
	checks := 0
	late.Targets[0].Check = func() error {
		if checks++; checks == 2 {
			time.Sleep(5 * time.Second) // step 2: far past the leader's --agent-timeout
		}
		return nil
	}
	rs := runAgents(bg(2), leader, late)
	if rs[0].err != nil || rs[0].out.Status != results.StatusPartial || rs[0].out.Measured != 3 {
		t.Fatalf("leader: %+v %v", rs[0].out, rs[0].err)
	}
	f := rs[1].out
	if rs[1].err != nil || f.Status != results.StatusPartial || f.Measured != 2 || len(f.Failed) != 1 || f.Failed[0].Concurrency != 2 ||
		!strings.Contains(f.Failed[0].Error, "not ready within --agent-timeout") {
		t.Fatalf("late agent: %+v %v", f, rs[1].err)
	}
	res, err := results.ReadResultsFile(leader.ResultsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range res.Steps {
		want := st.Concurrency == 2
		if st.Partial != want || (want && (len(st.MissingAgents) != 1 || st.MissingAgents[0].Index != 1 || !strings.Contains(st.MissingAgents[0].Reason, "not ready within --agent-timeout"))) {
			t.Errorf("leader C=%d: partial %v missing %+v", st.Concurrency, st.Partial, st.MissingAgents)
		}
	}
	other, err := results.ReadResultsFile(late.ResultsPath)
	if err != nil {
		t.Fatal(err)
	}
	m, err := results.MergeAgents([]*results.Results{res, other}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range m.Steps {
		if st.Concurrency == 4 && (len(st.Agents) != 2 || st.WindowSkew.Overlap < 0.95) {
			t.Errorf("C=4 after the skip: %d agents, skew %+v", len(st.Agents), st.WindowSkew)
		}
		if st.Concurrency == 2 && (len(st.Agents) != 1 || !st.Partial) {
			t.Errorf("C=2: %d agents, partial %v", len(st.Agents), st.Partial)
		}
	}
}
