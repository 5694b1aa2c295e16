package agents

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

// autoSessions are agentSessions with one level (C=2), a fixed 200-ms
// warm-up and an auto window of at most maxWindow, and a silence rule
// of 3 s instead of 10, so that a lost agent is found quickly. progress
// is told each agent's phases.
func autoSessions(t *testing.T, run string, maxWindow time.Duration, progress func(agent int, p sweep.Progress)) (string, []*sweep.Session) {
	t.Helper()
	uri, ss := agentSessions(t, parallelSim, run, 2, 2, 20*time.Second)
	for i, s := range ss {
		s.Plan.Concurrency = []int{2}
		s.Plan.Warmup = 200 * time.Millisecond
		s.Plan.Duration = 500 * time.Millisecond
		s.Plan.Auto = plan.NewAutoPlan(false, true, 0, 0, 500*time.Millisecond, maxWindow, 5, 100)
		a := s.Coordinator.(*Agent)
		a.PlanHash, a.Window, a.Silence = PlanHash(s, 2), s.Plan.Warmup+maxWindow, 3*time.Second
		s.Hooks.Progress = func(p sweep.Progress) { progress(i, p) }
	}
	return uri, ss
}

// TestAgentsAutoFollowerLost: a follower stops in the middle of an auto
// window. The leader stops waiting for its batches once they have stood
// still as long as a silent heartbeat, ends the window from its own, and
// records the step as partial, naming the follower, as with fixed
// windows; its steady record sums the one agent left.
func TestAgentsAutoFollowerLost(t *testing.T) {
	t.Parallel() // it waits on windows and the silence rule, its own agents' (no ratio)
	ctx1, stop1 := context.WithCancel(context.Background())
	defer stop1()
	uri, ss := autoSessions(t, "autofollower", 8*time.Second, func(agent int, p sweep.Progress) {
		if agent == 1 && p.Phase == sweep.PhaseMeasure {
			stop1()
		}
	})
	began := time.Now()
	res := runAgents([]context.Context{context.Background(), ctx1}, ss...)
	t.Logf("leader %+v %v; follower %+v %v; %s", res[0].out, res[0].err, res[1].out, res[1].err, time.Since(began))
	if res[1].out.Status != results.StatusInterrupted {
		t.Errorf("follower ended %q, want interrupted", res[1].out.Status)
	}
	if res[0].out.Status != results.StatusPartial {
		t.Fatalf("leader ended %q (%s), want partial", res[0].out.Status, res[0].out.Reason)
	}
	r, err := results.ReadResultsFile(ss[0].ResultsPath)
	if err != nil || len(r.Steps) != 1 {
		t.Fatalf("leader's results: %v, %+v", err, r)
	}
	st := r.Steps[0]
	if !st.Partial || len(st.MissingAgents) != 1 || st.MissingAgents[0].Index != 1 {
		t.Errorf("leader's step: partial %v, missing %+v; want partial naming agent 1", st.Partial, st.MissingAgents)
	}
	if s := st.Steady; s != nil {
		t.Logf("leader's steady: window end %s after %.1f s, %d batch means, a fleet of %d", s.WindowEnd, st.DurationS, s.Batches, s.FleetAgents)
	}
	if s := st.Steady; s == nil || s.FleetAgents != 1 || s.WindowMode != results.WindowAuto {
		t.Errorf("leader's steady %+v, want the one agent left's auto window", s)
	}
	checkNoLeftover(t, uri, "autofollower")
}

// TestAgentsAutoLeaderLost: the leader stops in the middle of an auto
// window, and its word never comes. The follower does not run on to the
// longest window: it finds the leader silent and its run fails, naming
// the leader, as with fixed windows.
func TestAgentsAutoLeaderLost(t *testing.T) {
	t.Parallel() // it waits on windows and the silence rule, its own agents' (no ratio)
	ctx0, stop0 := context.WithCancel(context.Background())
	defer stop0()
	var stopped time.Time
	_, ss := autoSessions(t, "autoleader", 30*time.Second, func(agent int, p sweep.Progress) {
		if agent == 0 && p.Phase == sweep.PhaseMeasure && stopped.IsZero() {
			stopped = time.Now()
			stop0()
		}
	})
	res := runAgents([]context.Context{ctx0, context.Background()}, ss...)
	took := time.Since(stopped)
	t.Logf("leader %+v %v; follower %+v %v; the follower stopped %s after the leader", res[0].out, res[0].err, res[1].out, res[1].err, took)
	if res[1].out.Status != results.StatusFailed || !strings.Contains(res[1].out.Reason, "agent 0") {
		t.Errorf("follower ended %q (%s), err %v; want failed naming agent 0", res[1].out.Status, res[1].out.Reason, res[1].err)
	}
	if took > 20*time.Second {
		t.Errorf("the follower went on %s after the leader stopped; its window may last 30 s, the silence rule is 3 s", took)
	}
}

// TestAgentsAutoWarmupLongerThanSilence: an auto warm-up that lasts
// longer than the silence rule (3 s here) does not make the leader drop
// the followers once the window begins: their window batches are new,
// not late. Both agents' records carry the same fleet record of two.
// The window may last 4 s, longer than the silence rule too.
func TestAgentsAutoWarmupLongerThanSilence(t *testing.T) {
	t.Parallel() // it waits on windows and the silence rule, its own agents' (no ratio)
	_, ss := autoSessions(t, "autolong", 4*time.Second, func(int, sweep.Progress) {})
	for _, s := range ss {
		s.Plan.Warmup = 4 * time.Second
		s.Plan.Auto = plan.NewAutoPlan(true, true, 4*time.Second, 10*time.Second, 500*time.Millisecond, 4*time.Second, 5, 100)
		a := s.Coordinator.(*Agent)
		a.PlanHash, a.Window = PlanHash(s, 2), 14*time.Second
	}
	res := runAgents(bg(2), ss...)
	var steady [2]*results.StepSteady
	for i, r := range res {
		if r.err != nil || r.out.Status != results.StatusComplete {
			t.Fatalf("agent %d: %+v %v", i, r.out, r.err)
		}
		f, err := results.ReadResultsFile(ss[i].ResultsPath)
		if err != nil || len(f.Steps) != 1 || f.Steps[0].Steady == nil {
			t.Fatalf("agent %d's results: %v %+v", i, err, f)
		}
		steady[i] = f.Steps[0].Steady
		t.Logf("agent %d: warm-up %s at %.1f s, window %s after %.1f s, fleet of %d", i, steady[i].WarmupEnd, *steady[i].WindowStartS,
			steady[i].WindowEnd, f.Steps[0].DurationS, steady[i].FleetAgents)
	}
	if steady[0].FleetAgents != 2 || !reflect.DeepEqual(steady[0], steady[1]) {
		t.Errorf("steady records %+v and %+v, want one fleet record of 2 agents", steady[0], steady[1])
	}
}
