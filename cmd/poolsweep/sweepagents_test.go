package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep/agents"
)

// TestAgentFlags: agent-mode flags are checked against each other and
// the targets before anything starts: exit 2, one line naming the flag.
func TestAgentFlags(t *testing.T) {
	t.Parallel()
	uri := "mongodb://127.0.0.1:1/"
	bad := []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--uri", uri, "--agents", "3", "--run-id", "r"}, "--agent-index: required"},
		{[]string{"sweep", "--uri", uri, "--agents", "3", "--agent-index", "0"}, "--run-id: required"},
		{[]string{"sweep", "--uri", uri, "--agents", "3", "--agent-index", "3", "--run-id", "r"}, "--agent-index: 3 is not between 0 and 2"},
		{[]string{"sweep", "--uri", uri, "--agents", "0", "--agent-index", "0", "--run-id", "r"}, "--agents: 0"},
		{[]string{"sweep", "--uri", uri, "--agent-index", "1"}, "--agent-index: only with --agents"},
		{[]string{"sweep", "--uri", uri, "--agent-timeout", "5s"}, "--agent-timeout: only with --agents"},
		{[]string{"sweep", "--uri", uri, "--agents", "2", "--agent-index", "0", "--run-id", "r", "--agent-timeout", "10ms"}, "--agent-timeout"},
		{[]string{"sweep", "--uri", uri, "--run-id", "no spaces"}, "--run-id"},
		{[]string{"sweep", "--agents", "2", "--agent-index", "0", "--run-id", "r"}, "--agents: every agent must measure the same deployment"},
		{[]string{"sweep", "--target", "s=sim:slots=4", "--agents", "2", "--agent-index", "0", "--run-id", "r"}, "--agents: every agent"},
		{[]string{"sweep", "--uri", uri, "--agents", "2", "--agent-index", "0", "--run-id", "r", "--resume", "x"}, "--resume"},
		{[]string{"sweep", "--spawn", "0"}, "--spawn: 0"},
		{[]string{"sweep", "--spawn", "2", "--agents", "2"}, "--spawn: it starts its own agents"},
		{[]string{"sweep", "--uri", "mongodb://h/", "--spawn", "2", "--rate", "1000", "--pool", "16"}, "--rate: open-loop arrivals are measured by one process"},
		{[]string{"sweep", "--uri", "mongodb://h/", "--spawn", "2", "--search", "knee", "--concurrency", "1..64x2"}, "--search: an adaptive search runs in one process"},
		{[]string{"sweep", "--targets-fd", "3"}, "--targets-fd: only for the agents --spawn starts"},
		{[]string{"sweep", "--targets-fd", "1", "--agents", "2", "--agent-index", "0", "--run-id", "r"}, "--targets-fd: 1 is not between 3 and 1024"},
		{[]string{"sweep", "--targets-fd", "3", "--uri", uri, "--agents", "2", "--agent-index", "0", "--run-id", "r"}, "--targets-fd: the targets come from the descriptor"},
		{[]string{"merge", "x.jsonl"}, "--out: required"},
		{[]string{"merge", "-o", "m.jsonl"}, "merge: give the results"},
		{[]string{"merge", "/nonexistent/results.jsonl", "-o", filepath.Join(t.TempDir(), "m.jsonl")}, "/nonexistent/results.jsonl"},
	}
	for _, tt := range bad {
		code, stdout, stderr := runCLI(t, tt.args...)
		if code != errext.ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, tt.want) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want exit 2 and one line naming %q", tt.args, code, stderr, stdout, tt.want)
		}
	}
}

// compareAgentsWithClients runs the same plan against targets as one
// process with --clients 3 and as three spawned agents, alternately for
// rounds rounds, and checks the agent machinery end to end: every merged
// step has all three agents, their windows overlap by at least 95%, the
// merged ops/s (median over rounds and trials) is within 10% of the
// single process's, and analyze, plot, report and compare read the
// merged file. A level outside 10% is accepted only with evidence, which
// is logged: the single process was client-bound by its own telemetry
// (then it was the one process that ran out, which is the point of
// agents; with an in-host simulator, by the lower bar of sim_test.go's
// sharedHost, since the server's capacity is this host's CPU too), or, when noisy is set (a server whose own throughput swings
// from window to window on a busy machine), the two sides' samples
// overlap: the difference is inside the server's own swings. A merge
// that lost or double-counted an agent still fails. When together is set
// the two sides of a round run at the same time, each against a target of
// its own (a sim: target, whose service time, not this machine, paces
// it): the same moment's machine for both, in half the time.
func compareAgentsWithClients(t *testing.T, rounds int, noisy, together bool, plan []string, targets ...string) {
	t.Helper()
	dir := t.TempDir()
	args := append(append([]string{"sweep"}, targets...), plan...)
	began := time.Now()
	oneOps, mergedOps := map[int][]float64{}, map[int][]float64{}
	clientBound := map[int]string{}
	var levels []int
	var single, spawn string
	for r := range rounds {
		single, spawn = filepath.Join(dir, fmt.Sprintf("single-%d", r)), filepath.Join(dir, fmt.Sprintf("spawn-%d", r))
		var one struct {
			code           int
			stdout, stderr string
		}
		runOne := func() {
			one.code, one.stdout, one.stderr = runBinary(t, dir, 4*time.Minute, append(args, "--clients", "3", "--out", single, "--no-plot")...)
		}
		var wg sync.WaitGroup
		if together {
			wg.Go(runOne)
		} else {
			runOne()
		}
		// A long --agent-timeout: beside four busy loops (PSI 98%), an
		// agent once took over the default minute to be ready for its
		// first step, and the run ended partial.
		code, stdout, stderr := runBinary(t, dir, 8*time.Minute, append(args, "--spawn", "3", "--agent-timeout", "4m", "--out", spawn)...)
		wg.Wait()
		if one.code != 0 {
			t.Fatalf("--clients 3: exit %d\n%s\n%s", one.code, one.stdout, one.stderr)
		}
		if code != 0 {
			var logs []string
			for i := range 3 {
				b, _ := os.ReadFile(filepath.Join(spawn, fmt.Sprintf("agent-%d.log", i)))
				logs = append(logs, fmt.Sprintf("agent %d's log:\n%s", i, b))
			}
			t.Fatalf("--spawn 3: exit %d\n%s\n%s\n%s", code, stdout, stderr, strings.Join(logs, "\n"))
		}
		if !strings.Contains(stdout, "merged run") || !strings.Contains(stdout, "windows: start skew") {
			t.Errorf("spawn printed no merge summary:\n%s", stdout)
		}
		for _, s := range readRes(t, filepath.Join(single, "results.jsonl")).Steps {
			oneOps[s.Concurrency] = append(oneOps[s.Concurrency], s.OpsPerS)
			if s.Bound == "client" {
				clientBound[s.Concurrency] = s.BoundReason
			} else if ok, why := sharedHost().Contended(&s); ok {
				// The simulator's capacity is this host's CPU too: the
				// in-host tests' lower bar for a starved step (sim_test.go).
				clientBound[s.Concurrency] = "labelled " + s.Bound + ", but the simulator shares this host: " + why
			}
		}
		merged := readRes(t, filepath.Join(spawn, "results.jsonl"))
		if merged.End == nil || merged.End.Status != results.StatusComplete || merged.Header.Agents == nil || len(merged.Header.Agents.Merged) != 3 {
			t.Fatalf("merged end %+v header agents %+v", merged.End, merged.Header.Agents)
		}
		var own []*results.Results // each agent's own file, with its own telemetry
		for i := range 3 {
			own = append(own, readRes(t, filepath.Join(spawn, fmt.Sprintf("agent-%d", i), "results.jsonl")))
		}
		for _, m := range merged.Steps {
			if mergedOps[m.Concurrency] == nil {
				levels = append(levels, m.Concurrency)
			}
			mergedOps[m.Concurrency] = append(mergedOps[m.Concurrency], m.OpsPerS)
			t.Logf("round %d C=%d trial %d: window skew start %.1f ms, end %.1f ms, overlap %.4f", r+1, m.Concurrency, m.Trial, m.WindowSkew.StartMS, m.WindowSkew.EndMS, m.WindowSkew.Overlap)
			if len(m.Agents) != 3 || m.Partial || m.Clients != 3 || m.Errors.Total() != 0 {
				t.Errorf("C=%d: %d agents, partial %v, clients %d, errors %+v", m.Concurrency, len(m.Agents), m.Partial, m.Clients, m.Errors)
			}
			if m.WindowSkew.Overlap < 0.95 {
				if why := agentsLimited(own, m); why != "" {
					t.Logf("C=%d: the agents' windows overlap %.3f, under 0.95, on a load host the agents' own telemetry shows contended: %s", m.Concurrency, m.WindowSkew.Overlap, why)
				} else {
					t.Errorf("C=%d: the agents' windows overlap %.3f, want ≥ 0.95 (skew %+v), and no agent's telemetry shows its load host contended", m.Concurrency, m.WindowSkew.Overlap, m.WindowSkew)
				}
			}
		}
	}
	t.Logf("%d round(s) took %s", rounds, time.Since(began).Round(time.Second))
	t.Logf("%4s %14s %14s %7s", "C", "--clients 3", "3 agents", "ratio")
	for _, c := range levels {
		a, b := oneOps[c], mergedOps[c]
		if len(a) == 0 {
			t.Fatalf("no --clients 3 step at C=%d", c)
		}
		ratio := median(b) / median(a)
		t.Logf("%4d %14.0f %14.0f %7.3f   (ops/s, median of %d; one process %v, agents %v)", c, median(a), median(b), ratio, len(b), roundAll(a), roundAll(b))
		switch {
		case ratio >= 0.9 && ratio <= 1.1:
		case clientBound[c] != "":
			t.Logf("C=%d: ratio %.3f outside 10%%; the single process was client-bound: %s", c, ratio, clientBound[c])
		case noisy && len(a) >= 5 && slices.Min(b) <= slices.Max(a) && slices.Min(a) <= slices.Max(b):
			t.Logf("C=%d: ratio %.3f outside 10%%, but the samples overlap: the server's own swings on this machine (one process %.0f to %.0f ops/s, agents %.0f to %.0f) are larger than the difference",
				c, ratio, slices.Min(a), slices.Max(a), slices.Min(b), slices.Max(b))
		default:
			t.Errorf("C=%d: 3 agents %.0f ops/s, one process with --clients 3 %.0f (ratio %.3f): not within 10%%, and no evidence explains it", c, median(b), median(a), ratio)
		}
	}
	// The readers take the merged file as it is.
	mergedPath := filepath.Join(spawn, "results.jsonl")
	for _, c := range [][]string{
		{"analyze", mergedPath, "--format", "json"},
		{"compare", filepath.Join(single, "results.jsonl"), mergedPath},
		{"report", mergedPath, "-o", filepath.Join(dir, "report.html")},
		{"plot", mergedPath, "-o", filepath.Join(dir, "figs")},
	} {
		if code, out, errs := runCLI(t, c...); code != 0 {
			t.Errorf("%s: exit %d\n%s\n%s", c[0], code, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(spawn, "report.html")); err != nil {
		t.Errorf("spawn drew no report: %v", err)
	}
}

// agentsLimited is the evidence, from the agents' own records of merged
// step m (their client telemetry, judged as each agent judged its step),
// that the load host rather than the coordination set the agents' timing:
// an agent whose step is client-bound (its CPU, or the host's CPU
// contended). "" when no agent's record shows it.
func agentsLimited(own []*results.Results, m results.StepResult) string {
	var why []string
	for i, r := range own {
		for _, s := range r.Steps {
			if s.Target != m.Target || s.Workload != m.Workload || s.PoolSetting != m.PoolSetting || s.Concurrency != m.Concurrency || s.Trial != m.Trial {
				continue
			}
			if ok, reason := bound.ClientLimited(&s); ok {
				why = append(why, fmt.Sprintf("agent %d: %s", i, reason))
			}
		}
	}
	return strings.Join(why, "; ")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func roundAll(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x + 0.5)
	}
	return out
}

// TestSpawnAgentsSimulatedSharded is the proof against the simulator: a
// sharded target of known capacity (3 shards × 2 slots / 50 ms = 120
// ops/s; 3, 12 and 48 calls in flight put it below, at and past its
// knee), three agents against one process with --clients 3. The service
// time is long, so that a busy machine's scheduling delays (a millisecond
// or two to wake an idle process) stay small beside it, and the windows
// long enough to hold 180 operations or more per level (a closed loop
// against a fixed service time: one call in flight more or less is 2% at
// most), and to hold the agents' start skew (tens of ms on a loaded
// machine) under the 5% of a window (150 ms) that the overlap check allows.
func TestSpawnAgentsSimulatedSharded(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns agents against the simulator")
	}
	compareAgentsWithClients(t, 1, false, true, []string{"--concurrency", "1,4,16", "--warmup", "300ms", "--duration", "3s", "--records", "1000"},
		"--target", "sharded=sim:shards=3,slots=2,service=50ms,routers=2")
}

// agentProcs starts n agents of run as separate processes, as on n
// hosts, each sweeping uri with args and writing to dir/agent-I; their
// stderr is in the returned logs. The test's end kills any still running.
func agentProcs(t *testing.T, uri, dir, run string, n int, args ...string) ([]*exec.Cmd, []*strings.Builder) {
	t.Helper()
	procs := make([]*exec.Cmd, n)
	logs := make([]*strings.Builder, n)
	for i := range procs {
		logs[i] = &strings.Builder{}
		all := append([]string{"sweep", "--uri", uri}, args...)
		all = append(all, "--agents", fmt.Sprint(n), "--agent-index", fmt.Sprint(i), "--run-id", run, "--agent-timeout", "30s",
			"--out", filepath.Join(dir, fmt.Sprintf("agent-%d", i)), "--no-plot")
		procs[i] = exec.Command(binary, all...)
		procs[i].Stdout, procs[i].Stderr = io.Discard, logs[i]
		if err := procs[i].Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { procs[i].Process.Kill() })
	}
	return procs, logs
}

// awaitStepStart waits for the leader's start of step seq of run in the
// coordination documents and returns it (reference clock).
func awaitStepStart(t *testing.T, uri, run string, seq int, leaderLog *strings.Builder) time.Time {
	t.Helper()
	coll := testsrv.Connect(t, uri).Database("poolsweep").Collection(agents.Collection)
	var step struct {
		StartAt time.Time `bson:"start_at"`
	}
	deadline := time.Now().Add(2 * time.Minute)
	for coll.FindOne(context.Background(), bson.D{{Key: "_id", Value: fmt.Sprintf("%s/step/%d", run, seq)}}).Decode(&step) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("step %d never started; agent 0:\n%s", seq, leaderLog.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return step.StartAt
}

// exitOf waits (bounded) for an agent process and returns its exit status.
func exitOf(t *testing.T, p *exec.Cmd, name string, log *strings.Builder) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		return 0
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s did not end; its log:\n%s", name, log.String())
	}
	return -1
}

// TestAgentKilledMidSweep: three agents started as on three hosts (the
// ssh flow) against one simulated cluster; agent 2 is killed in the
// middle of step 2's window. The others' steps are all complete records;
// step 2 and the steps after it are partial and name agent 2; the merge
// says the same; and no coordination document is left behind.
func TestAgentKilledMidSweep(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs agents against the simulator")
	}
	uri, _ := startServe(t, "--sim", "shards=3,slots=4,service=2ms,routers=2")
	dir := t.TempDir()
	const run = "killtest"
	// A 4-s silence rule (10 s by default): the survivors wait that long
	// after step 2 for agent 2 before they go on without it.
	procs, logs := agentProcs(t, uri, dir, run, 3, "--concurrency", "1,2,4", "--warmup", "300ms", "--duration", "2s", "--records", "1000", "--agent-silence", "4s")
	// Watch the coordination documents for step 2's start, and kill agent
	// 2 halfway through its window.
	coll := testsrv.Connect(t, uri).Database("poolsweep").Collection(agents.Collection)
	start2 := awaitStepStart(t, uri, run, 2, logs[0])
	time.Sleep(time.Until(start2.Add(300*time.Millisecond + 1000*time.Millisecond)))
	if err := procs[2].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	procs[2].Wait()
	codes := make([]int, 2)
	for i := range 2 {
		codes[i] = exitOf(t, procs[i], fmt.Sprintf("agent %d", i), logs[i])
	}
	if codes[0] != errext.ExitPartial || codes[1] != errext.ExitPartial {
		t.Errorf("exit statuses %v, want 3 (partial) for both; agent 0:\n%s\nagent 1:\n%s", codes, logs[0].String(), logs[1].String())
	}
	for i := range 2 {
		res := readRes(t, filepath.Join(dir, fmt.Sprintf("agent-%d", i), "results.jsonl"))
		if len(res.Steps) != 3 || res.End == nil || res.End.Status != results.StatusPartial {
			t.Fatalf("agent %d: %d steps, end %+v", i, len(res.Steps), res.End)
		}
		for _, s := range res.Steps {
			t.Logf("agent %d C=%d: partial %v, missing %+v", i, s.Concurrency, s.Partial, s.MissingAgents)
			if s.Interrupted || s.Ops == 0 || s.Agent == nil {
				t.Errorf("agent %d C=%d: not a complete record (interrupted %v, ops %d)", i, s.Concurrency, s.Interrupted, s.Ops)
			}
			wantPartial := s.Concurrency >= 2
			if i == 1 && s.Concurrency == 2 {
				wantPartial = false // agent 1 learns of the loss at the next barrier
			}
			if s.Partial != wantPartial || (wantPartial && (len(s.MissingAgents) != 1 || s.MissingAgents[0].Index != 2)) {
				t.Errorf("agent %d C=%d: partial %v missing %+v, want partial %v naming agent 2", i, s.Concurrency, s.Partial, s.MissingAgents, wantPartial)
			}
		}
		if i == 0 {
			if m := res.Steps[1].MissingAgents; len(m) == 1 && !strings.Contains(m[0].Reason, "during the step") {
				t.Errorf("leader on step 2: %q, want it to say agent 2 stopped during the step", m[0].Reason)
			}
		}
	}
	// The merge: step 1 whole, steps 2 and 3 partial naming agent 2.
	mergedPath := filepath.Join(dir, "merged.jsonl")
	code, stdout, stderr := runCLI(t, "merge", filepath.Join(dir, "agent-0"), filepath.Join(dir, "agent-1"), filepath.Join(dir, "agent-2"), "-o", mergedPath)
	if code != 0 || !strings.Contains(stdout, "2 partial") {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, stderr)
	}
	t.Logf("merge:\n%s", stdout)
	m := readRes(t, mergedPath)
	if len(m.Steps) != 3 || m.End.Status != results.StatusPartial {
		t.Fatalf("merged: %d steps, end %+v", len(m.Steps), m.End)
	}
	for _, s := range m.Steps {
		want := 3
		if s.Concurrency >= 2 {
			want = 2
		}
		if len(s.Agents) != want || s.Partial != (want == 2) || (want == 2 && (len(s.MissingAgents) != 1 || s.MissingAgents[0].Index != 2)) {
			t.Errorf("merged C=%d: %d agents, partial %v, missing %+v", s.Concurrency, len(s.Agents), s.Partial, s.MissingAgents)
		}
	}
	if code, _, stderr := runCLI(t, "analyze", mergedPath); code != 0 {
		t.Errorf("analyze of the merged file: exit %d %s", code, stderr)
	}
	// A file of another run is refused, by name.
	other := filepath.Join(dir, "other.jsonl")
	b, _ := os.ReadFile(filepath.Join(dir, "agent-1", "results.jsonl"))
	os.WriteFile(other, []byte(strings.Replace(string(b), `"run_id":"killtest"`, `"run_id":"another"`, 1)), 0o644)
	code, _, stderr = runCLI(t, "merge", filepath.Join(dir, "agent-0"), other, "-o", filepath.Join(dir, "m2.jsonl"))
	if code != errext.ExitUsage || !strings.Contains(stderr, "other.jsonl is from run another") {
		t.Errorf("merge of two runs: exit %d %q", code, stderr)
	}
	var docs []bson.M
	cur, err := coll.Find(context.Background(), bson.D{{Key: "run_id", Value: run}})
	if err == nil {
		err = cur.All(context.Background(), &docs)
	}
	if err != nil || len(docs) != 0 {
		t.Errorf("coordination documents left behind: %v %v", len(docs), err)
	}
}

// TestAgentLeaderDiesFollowerFails: the leader is killed as step 2
// starts; the follower finds it silent, ends its results with a failed
// end record naming the leader, and its exit status says so (1): it used
// to write "failed" and exit 0.
func TestAgentLeaderDiesFollowerFails(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs agents against the simulator")
	}
	uri, _ := startServe(t, "--sim", "slots=4,service=2ms")
	dir := t.TempDir()
	const run = "leaderdies"
	procs, logs := agentProcs(t, uri, dir, run, 2, "--concurrency", "1,2,4", "--warmup", "300ms", "--duration", "1s", "--records", "500", "--agent-silence", "4s")
	awaitStepStart(t, uri, run, 2, logs[0])
	if err := procs[0].Process.Kill(); err != nil {
		t.Fatal(err)
	}
	procs[0].Wait()
	code := exitOf(t, procs[1], "the follower", logs[1])
	res := readRes(t, filepath.Join(dir, "agent-1", "results.jsonl"))
	if res.End == nil || res.End.Status != results.StatusFailed || !strings.Contains(res.End.Reason, "agent 0") {
		t.Fatalf("follower's end record %+v, want failed naming agent 0; log:\n%s", res.End, logs[1].String())
	}
	if code != errext.ExitFailed {
		t.Errorf("the follower ended %q but exited %d, want 1; log:\n%s", res.End.Status, code, logs[1].String())
	}
	t.Logf("follower: exit %d, end %s: %s", code, res.End.Status, res.End.Reason)
}
