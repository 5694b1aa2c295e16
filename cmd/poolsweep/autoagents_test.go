package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// fleetWindowTolerance is how close every agent's window start and end
// must be to the others' with auto lengths: within one base batch
// (100 ms). Each agent closes its window at the tick of its batch loop
// nearest the leader's agreed end, so a busy machine's late tick shows
// here; an agent that ended on its own data, or a second late (FleetLead),
// would be far outside it.
const fleetWindowTolerance = 100 * time.Millisecond

// agentRuns reads the two agents' results and the merged file of a
// --spawn 2 run in dir.
func agentRuns(t *testing.T, dir string) (agents [2]*results.Results, merged *results.Results) {
	t.Helper()
	for i := range agents {
		agents[i] = readRes(t, filepath.Join(dir, fmt.Sprintf("agent-%d", i), "results.jsonl"))
	}
	return agents, readRes(t, filepath.Join(dir, "results.jsonl"))
}

// spawnTwo runs a sweep of target with args as two spawned agents, and
// returns its output directory and its stderr; a run that fails fails
// the test with the agents' logs.
func spawnTwo(t *testing.T, target string, args ...string) (dir, stderr string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "out")
	all := append([]string{"sweep", "--target", target, "--spawn", "2", "--records", "500", "--out", dir}, args...)
	code, stdout, stderr := runBinary(t, t.TempDir(), 2*time.Minute, all...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s\n%s", code, stdout, stderr, spawnLogs(dir))
	}
	return dir, stderr
}

func spawnLogs(dir string) string {
	var logs []string
	for i := range 2 {
		b, _ := os.ReadFile(filepath.Join(dir, fmt.Sprintf("agent-%d.log", i)))
		logs = append(logs, fmt.Sprintf("agent %d's log:\n%s", i, b))
	}
	return strings.Join(logs, "\n")
}

// TestSpawnAutoWindowsTogether: two agents (--spawn 2) with auto lengths
// on a steady, server-bound simulator step. The leader ends both phases
// for both: each agent's record carries the same steady record (the
// fleet's: two agents' batches summed), its window opens and closes with
// the other's within fleetWindowTolerance, the window ended by precision
// well before its maximum, and the merged step keeps that one record.
func TestSpawnAutoWindowsTogether(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns agents against the simulator")
	}
	// 2 agents × 4 workers on 4 slots of 20 ms: 200 calls/s, the server's,
	// whatever the machine's load.
	dir, stderr := spawnTwo(t, "s=sim:slots=4,service=20ms", "--concurrency", "4", "--warmup", "auto", "--duration", "auto",
		"--max-warmup", "8s", "--max-duration", "10s", "--min-duration", "1s", "--min-calls", "200", "--precision", "10%")
	if !strings.Contains(stderr, "agent 0 ends the auto phases of all 2 agents at once") {
		t.Errorf("the plan line does not say who ends the auto phases:\n%s", stderr)
	}
	agents, merged := agentRuns(t, dir)
	var steps [2]results.StepResult
	for i, r := range agents {
		if len(r.Steps) != 1 || r.Header.Plan.Auto == nil || !r.Header.Plan.Auto.Window {
			t.Fatalf("agent %d: %d steps, plan auto %+v", i, len(r.Steps), r.Header.Plan.Auto)
		}
		steps[i] = r.Steps[0]
		s := steps[i].Steady
		if s == nil || steps[i].Agent == nil {
			t.Fatalf("agent %d: no steady or agent record: %+v", i, steps[i])
		}
		b, _ := json.Marshal(s)
		t.Logf("agent %d: window %s .. %s (%.3f s), %.0f calls/s; steady %s", i, steps[i].Agent.WindowStart.Format(time.StampMicro),
			steps[i].Agent.WindowEnd.Format(time.StampMicro), steps[i].DurationS, steps[i].CallsPerS, b)
	}
	s := steps[0].Steady
	if !reflect.DeepEqual(steps[0].Steady, steps[1].Steady) {
		t.Errorf("the agents' steady records differ: the leader's word was not every agent's")
	}
	if s.FleetAgents != 2 || s.WarmupMode != results.WindowAuto || s.WindowMode != results.WindowAuto {
		t.Errorf("steady %+v, want the fleet's (2 agents) with auto lengths", s)
	}
	if s.WindowEnd != "precision" || s.HalfWidthPct == nil || steps[0].DurationS > 8 {
		t.Errorf("window ended %q after %.1f s (half-width %v), want by precision well before its 10-s maximum", s.WindowEnd, steps[0].DurationS, s.HalfWidthPct)
	}
	// The fleet's series is the sum of both agents': its mean is their
	// rates added, not one agent's.
	if sum := steps[0].CallsPerS + steps[1].CallsPerS; s.MeanPerS == nil || *s.MeanPerS < 0.8*sum || *s.MeanPerS > 1.2*sum {
		t.Errorf("fleet mean %v calls/s, the agents' rates add up to %.0f", s.MeanPerS, sum)
	}
	a, b := steps[0].Agent, steps[1].Agent
	if a.StartAt != b.StartAt {
		t.Errorf("agreed starts %s and %s differ", a.StartAt, b.StartAt)
	}
	startSkew, endSkew := a.WindowStart.Sub(b.WindowStart).Abs(), a.WindowEnd.Sub(b.WindowEnd).Abs()
	t.Logf("window start skew %s, end skew %s", startSkew, endSkew)
	if startSkew > fleetWindowTolerance || endSkew > fleetWindowTolerance {
		t.Errorf("windows start %s and end %s apart, want within %s", startSkew, endSkew, fleetWindowTolerance)
	}
	// The window opened where the steady record says the warm-up ended.
	if got, want := a.WindowStart.Sub(a.StartAt).Seconds(), *s.WindowStartS; got < want-0.1 || got > want+0.1 {
		t.Errorf("window opened %.3f s after the agreed start, the record says %.3f s", got, want)
	}
	if len(merged.Steps) != 1 || merged.Steps[0].WindowSkew == nil {
		t.Fatalf("merged: %+v", merged.Steps)
	}
	m := merged.Steps[0]
	if !reflect.DeepEqual(m.Steady, s) {
		t.Errorf("merged steady %+v, want the agents' one record", m.Steady)
	}
	if m.WindowSkew.EndMS > float64(fleetWindowTolerance/time.Millisecond) {
		t.Errorf("merged window skew %+v", m.WindowSkew)
	}
}

// TestSpawnFixedWindowsUnchanged: with fixed lengths agent mode is as
// before: every agent's steady record is its own (no fleet_agents, fixed
// modes), and the merged step has none.
func TestSpawnFixedWindowsUnchanged(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns agents against the simulator")
	}
	dir, stderr := spawnTwo(t, "s=sim:slots=4,service=5ms", "--concurrency", "2", "--warmup", "300ms", "--duration", "1s")
	if strings.Contains(stderr, "ends the auto phases") {
		t.Errorf("a fixed plan's line speaks of auto phases:\n%s", stderr)
	}
	agents, merged := agentRuns(t, dir)
	for i, r := range agents {
		if r.Header.Plan.Auto != nil || len(r.Steps) != 1 {
			t.Fatalf("agent %d: plan auto %+v, %d steps", i, r.Header.Plan.Auto, len(r.Steps))
		}
		st := r.Steps[0]
		if s := st.Steady; s == nil || s.FleetAgents != 0 || s.WarmupMode != results.WindowFixed || s.WindowEnd != "fixed" || st.DurationS < 0.9 || st.DurationS > 1.2 {
			t.Errorf("agent %d: steady %+v, window %.3f s; want its own fixed 1-s window", i, st.Steady, st.DurationS)
		}
	}
	if len(merged.Steps) != 1 || merged.Steps[0].Steady != nil {
		t.Errorf("merged step's steady %+v, want none with fixed lengths", merged.Steps[0].Steady)
	}
}
