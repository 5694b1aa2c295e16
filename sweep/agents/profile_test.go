package agents

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/analysis/timeline"
	"github.com/poolsweep/poolsweep/internal/outfile"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// TestAgentsProfileWithEvent: two agents run one profile as a fleet of
// their clients against a simulator whose connections cost its acceptor
// 20 ms each, and a reset 2 s into it. Each agent offers its clients'
// share of the profile, so the fleet offers the profile's calls once; the
// profile starts at the moment the agents agreed on; the leader fires the
// reset once and the follower records it as the leader's; and the merged
// step sums the timelines, keeps the leader's event, and joins both
// agents' reconnect storms on the host into the fleet's, its summaries
// computed again from the merged timeline.
func TestAgentsProfileWithEvent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two agents through a 4-s profile")
	}
	const clients, run = 3, "fleetevent"
	uri := testsrv.Sim(t, "slots=64,service=50ms,accept_cost=20ms").URI()
	info, err := topology.Detect(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	h := sweep.NewTargetHeader("sim", uri, info)
	prof, err := loadprofile.Parse("rate:240:4s", nil)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := plan.ParseEvent("2s=reset")
	if err != nil {
		t.Fatal(err)
	}
	ss := fleetSessions(t, uri, h, run, clients, &prof, ev)
	res := runAgents([]context.Context{context.Background(), context.Background()}, ss...)
	for i, r := range res {
		t.Logf("agent %d: %v %+v", i, r.err, r.out)
	}
	var files []*results.Results
	for i, r := range res {
		if r.err != nil || r.out.Status != results.StatusComplete {
			t.Fatalf("agent %d: %v %+v", i, r.err, r.out)
		}
		f, err := results.ReadResultsFile(ss[i].ResultsPath)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	steps := [2]results.StepResult{files[0].Steps[0], files[1].Steps[0]}
	for i, st := range steps {
		if st.Profile == nil || len(st.Profile.Events) != 1 {
			t.Fatalf("agent %d: events %+v", i, st.Profile)
		}
		se := st.Profile.Events[0]
		t.Logf("agent %d: offered %d, event %s via %q fired %.3f, storms%s, barrier %v s", i, st.Open.Offered, se.Spec, se.Via, se.FiredS, stormsText(se.Storms), st.Phases.Barrier)
	}
	lead, follow := steps[0].Profile.Events[0], steps[1].Profile.Events[0]
	if lead.Via != results.EventViaSimulator || lead.Error != "" || follow.Via != results.EventViaLeader || follow.FiredS != 2 {
		t.Errorf("the leader's event %+v, the follower's %+v: want the leader to fire it and the follower to hold it as the leader's", lead, follow)
	}
	// Each agent's clients offered their share: the fleet the profile's
	// 960 calls once (uniform arrivals: within one per client).
	if sum := steps[0].Open.Offered + steps[1].Open.Offered; math.Abs(float64(sum)-960) > 2*clients {
		t.Errorf("the agents offered %d + %d calls, the profile %d", steps[0].Open.Offered, steps[1].Open.Offered, 960)
	}
	for i, st := range steps {
		if n := st.Open.Offered; math.Abs(float64(n)-480) > clients {
			t.Errorf("agent %d offered %d calls, its share is 480", i, n)
		}
		if len(st.Profile.Events[0].Storms) == 0 {
			t.Errorf("agent %d: its clients' pools made no reconnect storm after the reset", i)
		}
	}

	m, err := results.MergeAgents(files, timeline.LabelMerged(nil))
	if err != nil {
		t.Fatal(err)
	}
	ms := m.Steps[0]
	if err := results.ValidateStep(&ms, &m.Header); err != nil {
		t.Errorf("the merged step does not validate: %v", err)
	}
	if ms.Mode != results.ModeProfile || ms.Profile == nil || len(ms.Profile.Events) != 1 {
		t.Fatalf("merged: mode %q profile %+v", ms.Mode, ms.Profile)
	}
	var offered, created int64
	for _, iv := range ms.Profile.Timeline.Intervals {
		offered += iv.Offered
		created += iv.Created
	}
	var agentCreated int64
	for _, st := range steps {
		for _, iv := range st.Profile.Timeline.Intervals {
			agentCreated += iv.Created
		}
	}
	if offered != steps[0].Open.Offered+steps[1].Open.Offered || created != agentCreated || ms.Open == nil || ms.Open.Offered != offered {
		t.Errorf("merged timeline offers %d and creates %d, the agents %d and %d; open loop %+v", offered, created, steps[0].Open.Offered+steps[1].Open.Offered, agentCreated, ms.Open)
	}
	me := ms.Profile.Events[0]
	t.Logf("merged: event via %q fired %.3f, storms%s, summary %+v", me.Via, me.FiredS, stormsText(me.Storms), me.Summary)
	if me.Via != results.EventViaSimulator || me.FiredS != lead.FiredS || me.Summary == nil {
		t.Errorf("merged event %+v: want the leader's, summarized", me)
	}
	if len(me.Storms) == 0 {
		t.Fatal("merged: no storm")
	}
	ls, fs, mstorm := lead.Storms[0], follow.Storms[0], me.Storms[0]
	if mstorm.Created != ls.Created+fs.Created || mstorm.Clients != ls.Clients+fs.Clients || mstorm.StartS != min(ls.StartS, fs.StartS) {
		t.Errorf("merged storm %+v, want the agents' %+v and %+v joined", mstorm, ls, fs)
	}
	if mstorm.RefillS == nil || ls.RefillS == nil || fs.RefillS == nil ||
		math.Abs(mstorm.StartS+*mstorm.RefillS-max(ls.StartS+*ls.RefillS, fs.StartS+*fs.RefillS)) > 0.002 {
		t.Errorf("merged storm refill %v: want until the later agent's last connection was ready", mstorm.RefillS)
	}
}

func stormsText(ss []results.ReconnectStorm) string {
	out := ""
	for _, s := range ss {
		r := "-"
		if s.RefillS != nil {
			r = fmt.Sprintf("%.3f", *s.RefillS)
		}
		out += fmt.Sprintf(" [%s start %.3f created %d clients %d refill %s peak %.0f/s]", s.Host, s.StartS, s.Created, s.Clients, r, s.PeakCreatedPerS)
	}
	return out
}

// fleetSessions are two agents' sessions of run against the target at
// uri (detected as h): clients clients each, pools of 5, the profile prof
// and the event ev.
func fleetSessions(t *testing.T, uri string, h results.TargetHeader, run string, clients int, prof *loadprofile.Profile, ev results.EventSpec) []*sweep.Session {
	t.Helper()
	dir := t.TempDir()
	ss := make([]*sweep.Session, 2)
	for index := range ss {
		w := workload.DefaultWorkload()
		w.Records, w.Database = 200, "ps_agents"
		newClient := func() *options.ClientOptions { return options.Client().ApplyURI(uri) }
		s := &sweep.Session{RunID: run, Workloads: []workload.Workload{w},
			Targets: []sweep.SessionTarget{{Header: h, NewClient: newClient}},
			Plan: plan.Plan{Concurrency: []int{20}, Pool: plan.PoolPlan{Sizes: []int{5}, Given: "5"}, Clients: clients, Trials: 1,
				Duration: prof.Duration(), OpTimeout: 5 * time.Second, Arrivals: results.ArrivalsUniform, MaxInFlight: 20, Profile: prof,
				Events: []results.EventSpec{ev}},
			ResultsPath: filepath.Join(dir, fmt.Sprintf("agent-%d", index), "results.jsonl")}
		s.MakeDir = func() error { return outfile.MakeDir(filepath.Dir(s.ResultsPath)) }
		s.Coordinator = &Agent{RunID: run, Count: 2, Index: index, PlanHash: PlanHash(s, 2), ClientsPerAgent: clients,
			Timeout: 30 * time.Second, StepTime: 40 * time.Second, Window: s.Plan.LongestStep(), NewClient: newClient, Database: "ps_agents"}
		ss[index] = s
	}
	return ss
}

// TestAgentsProfileStepDown: two agents through a step-down of a
// simulated set's primary, fired once by the leader. Each agent's step is
// a measurement (the election was its event's, by the leader for the
// follower), and the merged step's busiest reconnect storm is on the new
// primary and holds both agents' clients.
func TestAgentsProfileStepDown(t *testing.T) {
	if testing.Short() {
		t.Skip("runs two agents through a step-down")
	}
	const clients, run = 2, "fleetstepdown"
	uri := testsrv.SimChild(t, "rs=3,election=1s,slots=64,service=50ms,accept_cost=10ms").URI
	info, err := topology.Detect(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	h := sweep.NewTargetHeader("rs", uri, info)
	prof, err := loadprofile.Parse("rate:160:5s", nil)
	if err != nil {
		t.Fatal(err)
	}
	ev, err := plan.ParseEvent("2s=stepdown")
	if err != nil {
		t.Fatal(err)
	}
	ss := fleetSessions(t, uri, h, run, clients, &prof, ev)
	for _, s := range ss {
		// Cold pools on the primary alone: the new primary has none
		// before the step-down.
		s.Workloads[0].PoolOptions = &results.PoolOptions{Cold: true, MaxConnecting: 2}
		s.Workloads[0].PoolSwept.MaxConnecting = true
	}
	res := runAgents([]context.Context{context.Background(), context.Background()}, ss...)
	var files []*results.Results
	for i, r := range res {
		if r.err != nil || r.out.Status != results.StatusComplete {
			t.Fatalf("agent %d: %v %+v", i, r.err, r.out)
		}
		f, err := results.ReadResultsFile(ss[i].ResultsPath)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for i, f := range files {
		st := f.Steps[0]
		if !st.Measured() || st.PrimaryChange == nil || len(st.Profile.Events) != 1 {
			t.Fatalf("agent %d: measured %v, primary change %+v, events %+v, warnings %q", i, st.Measured(), st.PrimaryChange, st.Profile.Events, st.Warnings)
		}
		se := st.Profile.Events[0]
		t.Logf("agent %d: event via %q fired %.3f, storms%s", i, se.Via, se.FiredS, stormsText(se.Storms))
		if want := []string{results.EventViaStepDown, results.EventViaLeader}[i]; se.Via != want {
			t.Errorf("agent %d: the step-down via %q, want %q", i, se.Via, want)
		}
	}
	m, err := results.MergeAgents(files, timeline.LabelMerged(nil))
	if err != nil {
		t.Fatal(err)
	}
	me := m.Steps[0].Profile.Events[0]
	t.Logf("merged: storms%s", stormsText(me.Storms))
	if len(me.Storms) == 0 || me.Storms[0].Host != m.Steps[0].PrimaryChange.After || me.Storms[0].Clients != 2*clients {
		t.Errorf("merged storms %+v: want the busiest on the new primary %s, from every agent's %d clients", me.Storms, m.Steps[0].PrimaryChange.After, 2*clients)
	}
}
