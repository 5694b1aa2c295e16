package main

import (
	"strings"
	"testing"
	"time"
)

// TestSpawnProfileWithEvent: --spawn 2 with --profile and --event runs
// one fleet: the agents' command lines are taken (a profile has no levels
// or lengths of its own), each agent offers its clients' share of the
// profile, the leader fires the reset once, and the merged run holds the
// leader's event with both agents' reconnect storms joined, which analyze
// words.
func TestSpawnProfileWithEvent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns agents against the simulator")
	}
	dir, _ := spawnTwo(t, "s=sim:slots=64,service=50ms,accept_cost=10ms", "--profile", "rate:120:3s", "--event", "1.5s=reset",
		"--pool", "4", "--clients", "2", "--trials", "1", "--no-plot")
	agents, merged := agentRuns(t, dir)
	var offered int64
	for i, r := range agents {
		if len(r.Steps) != 1 || r.Steps[0].Profile == nil || len(r.Steps[0].Profile.Events) != 1 || r.Steps[0].Open == nil {
			t.Fatalf("agent %d: steps %+v", i, r.Steps)
		}
		offered += r.Steps[0].Open.Offered
		if via := r.Steps[0].Profile.Events[0].Via; via != []string{"simulator", "leader"}[i] {
			t.Errorf("agent %d: the reset via %q", i, via)
		}
	}
	if offered < 360-4 || offered > 360+4 {
		t.Errorf("the agents offered %d calls, the profile 360", offered)
	}
	if len(merged.Steps) != 1 || merged.Steps[0].Profile == nil || len(merged.Steps[0].Profile.Events) != 1 {
		t.Fatalf("merged steps %+v", merged.Steps)
	}
	me := merged.Steps[0].Profile.Events[0]
	if me.Via != "simulator" || me.Summary == nil || len(me.Storms) == 0 || me.Storms[0].Clients != 4 {
		t.Errorf("merged event %+v: want the leader's, summarized, with a storm from the 4 clients", me)
	}
	code, stdout, stderr := runBinary(t, t.TempDir(), 30*time.Second, "analyze", dir+"/results.jsonl")
	if code != 0 || !strings.Contains(stdout, "the reconnect storm on") || !strings.Contains(stdout, "from 4 of 4 clients") {
		t.Errorf("analyze: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
