package results

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// agentStepOf builds one agent's record of a step the way the runner
// does: counts, rates and quantiles from its own histograms, and the
// histograms encoded.
func agentStepOf(calls, finds, checkouts []int64, window time.Duration, start time.Time) StepResult {
	call := hdr.New(1, 60_000_000, 3)
	find := hdr.New(1, 60_000_000, 3)
	for _, v := range calls {
		call.RecordValue(v)
	}
	for _, v := range finds {
		find.RecordValue(v)
	}
	pool := hdr.New(1, 600_000_000, 3)
	for _, v := range checkouts {
		pool.RecordValue(v)
	}
	secs := window.Seconds()
	s := StepResult{Kind: KindStep, Target: "t", Workload: "read", PoolSetting: "match", Concurrency: 8, MaxPoolSize: 8, Clients: 1, Trial: 1,
		Connections: 8, StartedAt: start, DurationS: secs, Calls: int64(len(calls)), Ops: int64(len(finds)),
		CallsPerS: float64(len(calls)) / secs, OpsPerS: float64(len(finds)) / secs, Latency: NewLatencySummary(call),
		OpsByType:  map[string]OpTypeStats{"find": {Count: int64(len(finds)), PerS: float64(len(finds)) / secs, Latency: NewLatencySummary(find)}},
		Pool:       PoolStats{CheckoutWait: NewQuantiles(pool), ConnectionsOpen: 8, ConnectionsMax: 8},
		Histograms: &StepHistograms{Call: EncodeHistogram(call), Ops: map[string]string{"find": EncodeHistogram(find)}, CheckoutWait: EncodeHistogram(pool)}}
	return s
}

func agentResults(path, run, plan string, index, count int, steps ...StepResult) *Results {
	i := index
	return &Results{Path: path, Header: RunHeader{Kind: KindRun, Schema: SchemaVersion, RunID: run,
		Plan:   PlanInfo{Concurrency: []int{8}, Clients: 1, Trials: 1},
		Agents: &AgentsHeader{Count: count, Index: &i, PlanHash: plan, ClientsPerAgent: 1, Host: "h" + string(rune('0'+index))}},
		Steps: steps, End: &EndRecord{Kind: KindEnd, Status: StatusComplete, Steps: len(steps), Planned: 1}}
}

// TestMergeExactPercentiles is the exact-merge proof: the merged step's
// percentiles (per call, per op type and of pool checkout wait) equal
// those of one histogram of every agent's samples, and its counts and
// rates are the sums.
func TestMergeExactPercentiles(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	all := hdr.New(1, 60_000_000, 3)
	allFind := hdr.New(1, 60_000_000, 3)
	allPool := hdr.New(1, 600_000_000, 3)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var files []*Results
	var wantOps int64
	for a := range 3 {
		// Each agent sees a different distribution: one fast, one slow,
		// one with a long tail, so averaging percentiles would be wrong.
		var calls, finds, pool []int64
		n := 2000 + 1500*a
		for range n {
			v := int64(200*(a+1)) + int64(rng.ExpFloat64()*float64(300*(a+1)))
			if a == 2 && rng.IntN(100) == 0 {
				v += 50_000
			}
			calls = append(calls, v)
			finds = append(finds, v/2+1)
			pool = append(pool, 1+int64(rng.IntN(100*(a+1))))
		}
		for i := range calls {
			all.RecordValue(calls[i])
			allFind.RecordValue(finds[i])
			allPool.RecordValue(pool[i])
		}
		wantOps += int64(len(finds))
		s := agentStepOf(calls, finds, pool, 2*time.Second, start.Add(time.Duration(a)*time.Millisecond))
		files = append(files, agentResults("agent-"+string(rune('0'+a))+".jsonl", "run1", "hash1", a, 3, s))
	}
	m, err := MergeAgents(files, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) != 1 {
		t.Fatalf("%d merged steps", len(m.Steps))
	}
	s := m.Steps[0]
	if want := NewLatencySummary(all); s.Latency != want {
		t.Errorf("call latency %+v, want %+v", s.Latency, want)
	}
	if want := NewLatencySummary(allFind); s.OpsByType["find"].Latency != want {
		t.Errorf("find latency %+v, want %+v", s.OpsByType["find"].Latency, want)
	}
	if want := NewQuantiles(allPool); s.Pool.CheckoutWait != want {
		t.Errorf("checkout wait %+v, want %+v", s.Pool.CheckoutWait, want)
	}
	// The merged histogram itself decodes to all the samples.
	h, err := DecodeHistogram(s.Histograms.Call)
	if err != nil || !h.Equals(all) {
		t.Errorf("merged call histogram differs from one of all samples (%v)", err)
	}
	if s.Ops != wantOps || s.Calls != wantOps || s.Connections != 24 || s.Clients != 3 || s.OpsPerS != float64(wantOps)/2 {
		t.Errorf("sums: ops %d calls %d conns %d clients %d ops/s %g", s.Ops, s.Calls, s.Connections, s.Clients, s.OpsPerS)
	}
	if len(s.Agents) != 3 || s.Agents[2].Ops != 5000 || s.Partial {
		t.Errorf("agents %+v partial %v", s.Agents, s.Partial)
	}
	// Windows 0, 1 and 2 ms apart over 2 s.
	if sk := s.WindowSkew; sk == nil || sk.StartMS != 2 || sk.EndMS != 2 || sk.Overlap < 0.998 || sk.Overlap > 0.999 {
		t.Errorf("skew %+v", s.WindowSkew)
	}
	if m.Header.Plan.Clients != 3 || m.Header.Agents.Index != nil || len(m.Header.Agents.Merged) != 3 || m.End.Status != StatusComplete {
		t.Errorf("header %+v agents %+v end %+v", m.Header.Plan, m.Header.Agents, m.End)
	}
	// Averaging the agents' p99s would not give the merged p99.
	avg := (files[0].Steps[0].Latency.P99 + files[1].Steps[0].Latency.P99 + files[2].Steps[0].Latency.P99) / 3
	if avg == s.Latency.P99 {
		t.Errorf("the test data cannot tell an exact merge from an average (p99 %g)", avg)
	}
}

// TestMergeRefusals: files of other runs or plans, a file given twice, a
// file of no agent run, each refused naming the file; a step one agent
// has no record of is partial and names it.
func TestMergeRefusals(t *testing.T) {
	start := time.Now().UTC()
	st := agentStepOf([]int64{100, 200}, []int64{50, 60}, []int64{1}, time.Second, start)
	other := st
	other.Concurrency = 16
	a0 := agentResults("a0.jsonl", "run1", "hash1", 0, 3, st, other)
	a1 := agentResults("a1.jsonl", "run1", "hash1", 1, 3, st)
	tests := []struct {
		name  string
		files []*Results
		want  string
	}{
		{"other run", []*Results{a0, agentResults("b1.jsonl", "run2", "hash1", 1, 3, st)}, "b1.jsonl is from run run2"},
		{"other plan", []*Results{a0, agentResults("c1.jsonl", "run1", "hash2", 1, 3, st)}, "c1.jsonl was measured with another plan"},
		{"twice", []*Results{a0, a1, agentResults("a1-copy.jsonl", "run1", "hash1", 1, 3, st)}, "a1.jsonl and a1-copy.jsonl are both agent 1"},
		{"not an agent run", []*Results{a0, {Path: "plain.jsonl", Header: RunHeader{RunID: "run1"}}}, "plain.jsonl: not one agent's results"},
	}
	for _, tt := range tests {
		if _, err := MergeAgents(tt.files, nil); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error naming %q", tt.name, err, tt.want)
		}
	}
	noHist := st
	noHist.Histograms = nil
	if _, err := MergeAgents([]*Results{a0, agentResults("old.jsonl", "run1", "hash1", 1, 3, noHist)}, nil); err == nil || !strings.Contains(err.Error(), "old.jsonl") {
		t.Errorf("a step without histograms: %v", err)
	}

	// Agent 1 has C=8 only; agent 2's file was not given.
	m, err := MergeAgents([]*Results{a1, a0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Steps) != 2 || m.Steps[0].Concurrency != 8 || m.Steps[1].Concurrency != 16 {
		t.Fatalf("steps in the leader's order: %+v", m.Steps)
	}
	s8, s16 := m.Steps[0], m.Steps[1]
	if !s8.Partial || len(s8.MissingAgents) != 1 || s8.MissingAgents[0].Index != 2 || !strings.Contains(s8.MissingAgents[0].Reason, "no results file") {
		t.Errorf("C=8 missing %+v", s8.MissingAgents)
	}
	if !s16.Partial || len(s16.MissingAgents) != 2 || !strings.Contains(s16.MissingAgents[0].Reason, "a1.jsonl has no record") {
		t.Errorf("C=16 missing %+v", s16.MissingAgents)
	}
	// A partial step counts the clients that ran, not the plan's: its
	// per-client numbers are those of the agents present.
	if s8.Clients != 2 || s16.Clients != 1 || m.Header.Plan.Clients != 3 {
		t.Errorf("clients: C=8 %d (want 2), C=16 %d (want 1), plan %d (want 3)", s8.Clients, s16.Clients, m.Header.Plan.Clients)
	}
	if m.End.Status != StatusPartial || !strings.Contains(m.End.Reason, "2 of 2 merged step(s) are partial") {
		t.Errorf("end %+v", m.End)
	}
}

// TestMergeKeepsTargetFailed: a step during which the target failed in
// any agent's window is no measurement once merged either: it keeps the
// mark, and the merged file reads back valid.
func TestMergeKeepsTargetFailed(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	ok := agentStepOf([]int64{500, 600}, []int64{300, 400}, []int64{1, 2}, 2*time.Second, start)
	failed := agentStepOf([]int64{500}, []int64{300}, []int64{1}, 2*time.Second, start)
	failed.TargetFailed = &TargetFailed{Failed: true, Reason: "no operation succeeded for 1.4 s", StalledS: 1.4}
	m, err := MergeAgents([]*Results{agentResults("a0", "run1", "h", 0, 2, ok), agentResults("a1", "run1", "h", 1, 2, failed)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Steps[0]
	if s.TargetFailed == nil || s.TargetFailed.StalledS != 1.4 || s.Measured() {
		t.Fatalf("merged step lost the mark: %+v", s.TargetFailed)
	}
	m.Header.Targets = []TargetHeader{{Name: "t"}}
	if err := ValidateStep(&s, &m.Header); err != nil {
		t.Errorf("merged step is not valid: %v", err)
	}
}

// TestMergeNamesCorruptHistogram: a histogram that does not decode is
// reported with the file and step it came from, whichever agent's file
// holds it (it used to name the first file always).
func TestMergeNamesCorruptHistogram(t *testing.T) {
	start := time.Now().UTC()
	for _, bad := range []int{1, 2} {
		for _, which := range []string{"call", "find", "checkout"} {
			var files []*Results
			for a := range 3 {
				st := agentStepOf([]int64{100, 200}, []int64{50, 60}, []int64{1}, time.Second, start)
				if a == bad {
					h := *st.Histograms
					h.Ops = map[string]string{"find": h.Ops["find"]}
					switch which {
					case "call":
						h.Call = "HISTFAAAAB" + h.Call[10:]
					case "find":
						h.Ops["find"] = "not base64!"
					case "checkout":
						h.CheckoutWait = h.CheckoutWait[:len(h.CheckoutWait)/2]
					}
					st.Histograms = &h
				}
				files = append(files, agentResults(fmt.Sprintf("agent-%d.jsonl", a), "run1", "hash1", a, 3, st))
			}
			_, err := MergeAgents(files, nil)
			want := fmt.Sprintf("agent-%d.jsonl: step t C=8 P=match trial 1", bad)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("corrupt %s histogram in file %d: %v, want an error naming %q", which, bad+1, err, want)
				continue
			}
			for a := range 3 {
				if a != bad && strings.Contains(err.Error(), fmt.Sprintf("agent-%d.jsonl", a)) {
					t.Errorf("corrupt %s histogram in file %d: %v names another file", which, bad+1, err)
				}
			}
		}
	}
}

// MergeAgents hands label every merged step, in order, after merging.
func TestMergeAgentsLabels(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var files []*Results
	for a := range 2 {
		s1 := agentStepOf([]int64{100, 200, 300}, []int64{50, 60}, []int64{1, 2}, time.Second, start)
		s2 := s1
		s2.Concurrency, s2.MaxPoolSize = 16, 16
		r := agentResults(fmt.Sprintf("agent-%d.jsonl", a), "run1", "hash1", a, 2, s1, s2)
		r.Header.Plan.Concurrency = []int{8, 16}
		files = append(files, r)
	}
	var seen []int
	m, err := MergeAgents(files, func(s *StepResult) {
		seen = append(seen, s.Concurrency)
		s.Bound = "none"
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []int{8, 16}) || m.Steps[0].Bound != "none" || m.Steps[1].Bound != "none" || m.Steps[0].Ops != 2*files[0].Steps[0].Ops {
		t.Errorf("labelled %v; steps %+v", seen, m.Steps)
	}
}

// TestMergeSumsOpsAfterClose: the ops that ended after each agent's
// window are summed like its ops, so the merged step's loaded-key count
// (counted among both) stays within them and the merged file validates.
// The merge used to drop ops_after_close (seen as "loaded_key_ops: 2529,
// but only 2526 operations ended" after an agent was killed).
func TestMergeSumsOpsAfterClose(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var agents []*Results
	for i := range 2 {
		s := agentStepOf([]int64{500, 600}, []int64{300, 400, 700}, []int64{1, 2}, 2*time.Second, start)
		// The third find ended after the close: counted in the histogram
		// and in ops_after_close, not in ops.
		s.Ops, s.OpsAfterClose, s.LoadedKeyOps, s.OpsPerS = 2, 1, 3, 1
		s.OpsByType["find"] = OpTypeStats{Count: 2, PerS: 1, Latency: s.OpsByType["find"].Latency}
		agents = append(agents, agentResults(fmt.Sprintf("a%d", i), "run1", "h", i, 2, s))
	}
	m, err := MergeAgents(agents, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Steps[0]
	if s.Ops != 4 || s.OpsAfterClose != 2 || s.LoadedKeyOps != 6 {
		t.Errorf("merged ops %d, after the close %d, by a loaded key %d; want 4, 2 and 6", s.Ops, s.OpsAfterClose, s.LoadedKeyOps)
	}
	m.Header.Targets = []TargetHeader{{Name: "t"}}
	if err := ValidateStep(&s, &m.Header); err != nil {
		t.Errorf("merged step is not valid: %v", err)
	}
}
