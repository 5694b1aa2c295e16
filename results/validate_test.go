package results

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// testHeader is a run header of one target, "a".
func testHeader() RunHeader {
	return RunHeader{Kind: KindRun, Schema: SchemaVersion, RunID: "x", StartedAt: time.Unix(0, 0).UTC(),
		Targets: []TargetHeader{{Name: "a", URI: "mongodb://h/"}}}
}

// testStep is a valid step of target "a": 100 finds in 2 s at concurrency
// c, with their histograms.
func testStep(c int) StepResult {
	h := hdr.New(1, 60_000_000, 3)
	for i := range 100 {
		h.RecordValue(int64(1000 + 10*i))
	}
	lat := NewLatencySummary(h)
	return StepResult{Kind: KindStep, Target: "a", Workload: "read", PoolSetting: "match", Concurrency: c, MaxPoolSize: c,
		Clients: 1, Trial: 1, StartedAt: time.Unix(10, 0).UTC(), DurationS: 2, Calls: 100, Ops: 100, CallsPerS: 50, OpsPerS: 50,
		Latency: lat, OpsByType: map[string]OpTypeStats{TypeFind: {Count: 100, PerS: 50, Latency: lat}},
		Histograms: &StepHistograms{Call: EncodeHistogram(h), Ops: map[string]string{TypeFind: EncodeHistogram(h)}}}
}

// line is rec as one line of results.jsonl.
func line(t testing.TB, rec any) string {
	t.Helper()
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + "\n"
}

// stepWith is the line of testStep(1) with key k set to v (or removed
// when v is nil).
func stepWith(t testing.TB, k string, v any) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(line(t, testStep(1))), &m); err != nil {
		t.Fatal(err)
	}
	if v == nil {
		delete(m, k)
	} else {
		m[k] = v
	}
	return line(t, m)
}

// TestValidateStep: each row breaks one rule of the schema and must be
// refused naming that field; the valid step passes.
func TestValidateStep(t *testing.T) {
	h := testHeader()
	if err := ValidateStep(new(testStep(8)), &h); err != nil {
		t.Fatalf("a valid step is refused: %v", err)
	}
	tests := []struct {
		name  string
		edit  func(s *StepResult)
		field string
		msg   string
	}{
		{"window of 0 s", func(s *StepResult) { s.DurationS = 0 }, "step.duration_s", "0 is not a window length"},
		{"window of 3 days", func(s *StepResult) { s.DurationS = 3 * 86400 }, "step.duration_s", "is not a window length"},
		{"concurrency 2^62", func(s *StepResult) { s.Concurrency = 1 << 62 }, "step.concurrency", "4611686018427387904 is not between 1 and 100000"},
		{"concurrency 0", func(s *StepResult) { s.Concurrency = 0 }, "step.concurrency", "0 is not between"},
		{"max_pool_size 0", func(s *StepResult) { s.MaxPoolSize = 0 }, "step.max_pool_size", "not between"},
		{"unknown read preference", func(s *StepResult) { s.ReadPreference = "secondaries" }, "step.read_preference", `not one of`},
		{"write concern w:0", func(s *StepResult) { s.WriteConcern = "0" }, "step.write_concern", `not one of`},
		{"host pool without a host", func(s *StepResult) { s.Pool.Hosts = []HostPool{{Role: "primary"}} }, "step.pool.hosts[0].host", "empty"},
		{"host pool of an unknown role", func(s *StepResult) { s.Pool.Hosts = []HostPool{{Host: "h:1", Role: "arbiter"}} }, "step.pool.hosts[0].role", "not one of"},
		{"negative checkouts on a host", func(s *StepResult) { s.Pool.Hosts = []HostPool{{Host: "h:1", Checkouts: -1}} }, "step.pool.hosts[0].checkouts", ""},
		{"more in use than open on a host", func(s *StepResult) { s.Pool.Hosts = []HostPool{{Host: "h:1", ConnectionsMax: 2, InUseMax: 3}} }, "step.pool.hosts[0].in_use_max", "3 in use, but at most 2 open"},
		{"negative time without a primary", func(s *StepResult) {
			s.PrimaryChange = &PrimaryChange{Before: "a", After: "b", Changes: 1, NoPrimaryMS: -1}
		}, "step.primary_change.no_primary_ms", ""},
		{"clients -2", func(s *StepResult) { s.Clients = -2 }, "step.clients", "-2 is not between"},
		{"trial 2^40", func(s *StepResult) { s.Trial = 1 << 40 }, "step.trial", "not between"},
		{"pool setting text", func(s *StepResult) { s.PoolSetting = "many" }, "step.pool_setting", `not "match"`},
		{"no start time", func(s *StepResult) { s.StartedAt = time.Time{} }, "step.started_at", "missing"},
		{"target not in the header", func(s *StepResult) { s.Target = "b" }, "step.target", `not one of the run header's 1 target(s)`},
		{"negative calls", func(s *StepResult) { s.Calls = -1 }, "step.calls", "negative"},
		{"rate that is not count over window", func(s *StepResult) { s.OpsPerS = 5000 }, "step.ops_per_s", "is not its count over the window"},
		{"negative timeouts", func(s *StepResult) { s.Errors.Timeout = -3 }, "step.errors.timeout", "negative"},
		{"more errors than ops", func(s *StepResult) { s.Errors.Server = 101 }, "step.errors", "101 failed operations"},
		{"p50 above p99", func(s *StepResult) { s.Latency.P50 = s.Latency.P99 + 1 }, "step.latency_ms", "percentiles never decrease"},
		{"mean above max", func(s *StepResult) { s.Latency.Mean = s.Latency.Max * 2 }, "step.latency_ms", "mean"},
		{"no latency recorded (all 0) but p50", func(s *StepResult) { s.Latency = LatencySummary{P50: 1} }, "step.latency_ms", "percentiles never decrease"},
		{"ops_by_type short of ops", func(s *StepResult) { s.OpsByType[TypeFind] = OpTypeStats{Count: 90, PerS: 45} }, "step.ops_by_type", "add up to 90, but ops is 100"},
		{"ops_by_type negative", func(s *StepResult) { s.OpsByType[TypeFind] = OpTypeStats{Count: -1} }, "step.ops_by_type.find.count", "negative"},
		{"ops_by_type errors not in errors", func(s *StepResult) {
			st := s.OpsByType[TypeFind]
			st.Errors = 4
			s.OpsByType[TypeFind] = st
		}, "step.ops_by_type", "errors add up to 4"},
		{"bad base64 call histogram", func(s *StepResult) { s.Histograms.Call = "!!not base64!!" }, "step.histograms.call", "not an HdrHistogram"},
		{"garbage op histogram", func(s *StepResult) { s.Histograms.Ops[TypeFind] = "HISTFAAAAB54nJNpmSzMwMDAxQABzFCaEUzO" }, "step.histograms.ops.find", "not an HdrHistogram"},
		{"in flight above the workers", func(s *StepResult) { s.InFlightAtClose = 9 }, "step.in_flight_at_close", "9 is not between 0 and 8"},
		{"negative checkout wait", func(s *StepResult) { s.Pool.CheckoutWait.Mean = -1 }, "step.pool.checkout_wait_ms.mean", "not a number ≥ 0"},
		{"negative connections lost", func(s *StepResult) { s.Pool.ConnectionsLost = -1 }, "step.pool.connections_lost", "negative"},
		{"unknown bound", func(s *StepResult) { s.Bound = "cosmic" }, "step.bound", `not one of`},
		{"bound failed without the mark", func(s *StepResult) { s.Bound = BoundFailed }, "step.bound", "without a target_failed mark"},
		{"mark that says not failed", func(s *StepResult) { s.TargetFailed = &TargetFailed{} }, "step.target_failed.failed", "false"},
		{"open mode without its numbers", func(s *StepResult) { s.Mode, s.Rate = ModeOpen, 100 }, "step.open_loop", "missing"},
		{"closed loop with a rate", func(s *StepResult) { s.Rate = 100 }, "step.mode", "closed-loop step"},
		{"unknown mode", func(s *StepResult) { s.Mode = "burst" }, "step.mode", `not one of "open"`},
		{"search reason unknown", func(s *StepResult) { s.Search = &SearchInfo{Mode: SearchKnee, Reason: "hunch", Probe: 1} }, "step.search.reason", `not one of "coarse"`},
		{"extra trial on trial 1", func(s *StepResult) { s.ExtraTrial = testExtraTrial(func(*ExtraTrial) {}) }, "step.extra_trial", "on trial 1"},
		{"extra trial apart", func(s *StepResult) {
			s.Trial, s.ExtraTrial = 2, testExtraTrial(func(e *ExtraTrial) { e.NeighbourInterval = []float64{200, 220} })
		}, "step.extra_trial", "do not overlap"},
		{"extra trial interval backwards", func(s *StepResult) {
			s.Trial, s.ExtraTrial = 2, testExtraTrial(func(e *ExtraTrial) { e.Interval = []float64{110, 90} })
		}, "step.extra_trial.interval", "above high"},
		{"extra trial its own neighbour", func(s *StepResult) {
			s.Trial, s.ExtraTrial = 2, testExtraTrial(func(e *ExtraTrial) { e.Neighbour = s.Concurrency })
		}, "step.extra_trial.neighbour", "own level"},
		{"negative phase", func(s *StepResult) { s.Phases = &StepPhases{Window: -2} }, "step.phases_s.window", "not a number ≥ 0"},
		{"agent index past its count", func(s *StepResult) { s.Agent = &AgentStep{Index: 3, Of: 2} }, "step.agent.index", "3 is not between 0 and 1"},
		{"window overlap 2", func(s *StepResult) { s.WindowSkew = &WindowSkew{Overlap: 2} }, "step.window_skew.overlap", "not a share"},
		{"negative sampler errors", func(s *StepResult) { s.Server = &ServerTelemetry{SamplerErrors: -1} }, "step.server.sampler_errors", "negative"},
		{"negative router pool in use", func(s *StepResult) {
			s.Server = &ServerTelemetry{Hosts: map[string]*ServerSample{"m1:27017": {ConnPool: &ConnPoolCounts{
				ShardHosts: map[string]*RouterPoolHost{"db1:27018": {InUse: new(-3.0)}}}}}}
		}, "step.server.hosts.m1:27017.conn_pool.shard_hosts.db1:27018.in_use", "not a number ≥ 0"},
		{"negative router pools", func(s *StepResult) {
			n := -1
			s.Server = &ServerTelemetry{Hosts: map[string]*ServerSample{"m1:27017": {ConnPool: &ConnPoolCounts{
				ShardHosts: map[string]*RouterPoolHost{"db1:27018": {Pools: &n}}}}}}
		}, "step.server.hosts.m1:27017.conn_pool.shard_hosts.db1:27018.pools", "negative"},
		{"negative router max connecting", func(s *StepResult) {
			s.Server = &ServerTelemetry{Hosts: map[string]*ServerSample{"m1:27017": {ConnPool: &ConnPoolCounts{
				Settings: &RouterPoolSettings{MaxSize: new(-1.0), MaxConnecting: new(-2.0)}}}}}
		}, "step.server.hosts.m1:27017.conn_pool.settings.max_connecting", "not a number ≥ 0"},
		{"steady window end unknown", func(s *StepResult) { s.Steady = testSteady(func(st *StepSteady) { st.WindowEnd = "bored" }) }, "step.steady.window_end", `not one of "precision"`},
		{"steady fixed window ended by precision", func(s *StepResult) { s.Steady = testSteady(func(st *StepSteady) { st.WindowMode = WindowFixed }) }, "step.steady.window_end", "does not go with a fixed window"},
		{"steady lag1 above 1", func(s *StepResult) { s.Steady = testSteady(func(st *StepSteady) { st.Lag1 = new(1.5) }) }, "step.steady.lag1", "not an autocorrelation"},
		{"steady interval from 3 batches", func(s *StepResult) { s.Steady = testSteady(func(st *StepSteady) { st.Batches = 3 }) }, "step.steady.batches", "needs 10 or more"},
		{"steady half-width without its mean", func(s *StepResult) { s.Steady = testSteady(func(st *StepSteady) { st.MeanPerS = nil }) }, "step.steady", "come together"},
		{"steady negative half-width", func(s *StepResult) { s.Steady = testSteady(func(st *StepSteady) { st.HalfWidthPct = new(-1.0) }) }, "step.steady.half_width_pct", "not a number"},
		{"steady ops interval from 4 batches", func(s *StepResult) {
			s.Steady = testSteady(func(st *StepSteady) {
				st.Ops = &OpsInterval{BatchSize: 3, Batches: 4, MeanPerS: new(900.0), HalfWidthPerS: new(9.0), HalfWidthPct: new(1.0)}
			})
		}, "step.steady.ops.batches", "needs 10 or more"},
		{"steady ops half-width without its mean", func(s *StepResult) {
			s.Steady = testSteady(func(st *StepSteady) { st.Ops = &OpsInterval{BatchSize: 3, Batches: 12, HalfWidthPerS: new(9.0)} })
		}, "step.steady.ops", "come together"},
		{"steady negative call time", func(s *StepResult) { s.Steady = testSteady(func(st *StepSteady) { st.CallTimeS = new(-0.1) }) }, "step.steady.call_time_s", "not a number"},
		{"steady fleet of negative agents", func(s *StepResult) { s.Steady = testSteady(func(st *StepSteady) { st.FleetAgents = -1 }) }, "step.steady.fleet_agents", "not a number of agents"},
		{"steady fleet with fixed lengths", func(s *StepResult) {
			s.Steady = testSteady(func(st *StepSteady) {
				st.WarmupMode, st.WarmupEnd, st.Settled, st.TruncationS = WindowFixed, "fixed-warmup", nil, nil
				st.WindowMode, st.WindowEnd, st.FleetAgents = WindowFixed, "fixed", 2
			})
		}, "step.steady.fleet_agents", "fixed lengths are no fleet's"},
		{"steady out of reach without its projection", func(s *StepResult) {
			s.Steady = testSteady(func(st *StepSteady) { st.WindowEnd = WindowEndOutOfReach })
		}, "step.steady.projected_half_width_pct", "comes with"},
		{"steady projection of a precise window", func(s *StepResult) {
			s.Steady = testSteady(func(st *StepSteady) { st.ProjectedHalfWidthPct = new(5.0) })
		}, "step.steady.projected_half_width_pct", "comes with"},
		{"steady overloaded closed-loop step", func(s *StepResult) {
			s.Steady = testSteady(func(st *StepSteady) { st.WindowEnd = WindowEndOverloaded })
		}, "step.steady", "closed-loop"},
		{"steady latency interval in a closed-loop step", func(s *StepResult) {
			s.Steady = testSteady(func(st *StepSteady) {
				st.LatencyMeanMs, st.LatencyHalfWidthMs, st.LatencyHalfWidthPct = new(5.0), new(0.1), new(2.0)
			})
		}, "step.steady", "closed-loop"},
		{"steady latency half-width without its mean", func(s *StepResult) { s.Steady = testSteady(func(st *StepSteady) { st.LatencyHalfWidthMs = new(0.1) }) }, "step.steady", "come together"},
		{"steady overloaded warm-up settled", func(s *StepResult) {
			s.Steady = testSteady(func(st *StepSteady) { st.WarmupEnd = WindowEndOverloaded })
		}, "step.steady.settled", "never settled"},
	}
	for _, tt := range tests {
		s := testStep(8)
		tt.edit(&s)
		err := ValidateStep(&s, &h)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msg) {
			t.Errorf("%s: %v, want %s: …%s…", tt.name, err, tt.field, tt.msg)
		}
	}
}

// TestValidateHeader: a header whose lists could not come from a sweep,
// or which names no target, is refused naming the field.
func TestValidateHeader(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(h *RunHeader)
		field string
	}{
		{"no targets", func(h *RunHeader) { h.Targets = nil }, "run.targets"},
		{"a target twice", func(h *RunHeader) { h.Targets = append(h.Targets, h.Targets[0]) }, "run.targets[1].name"},
		{"trials 2^62", func(h *RunHeader) { h.Plan.Trials = 1 << 62 }, "run.plan.trials"},
		{"concurrency level 0", func(h *RunHeader) { h.Plan.Concurrency = []int{0, 8} }, "run.plan.concurrency"},
		{"a grid no sweep plans", func(h *RunHeader) {
			h.Plan.Concurrency = make([]int, 1000)
			h.Plan.Pools = make([]int, 1000)
			for i := range 1000 {
				h.Plan.Concurrency[i], h.Plan.Pools[i] = i+1, i+1
			}
			h.Plan.Trials = 1000
		}, "run.plan"},
		{"search factor 1", func(h *RunHeader) { h.Plan.Search = &SearchPlan{Mode: SearchKnee, Resolution: 1} }, "run.plan.search.resolution"},
		{"auto max below min", func(h *RunHeader) {
			h.Plan.Auto = &AutoPlan{Window: true, MinDurationS: 5, MaxDurationS: 2, BatchS: 0.1, Confidence: 0.95}
		}, "run.plan.auto.max_duration_s"},
		{"trials at most without auto windows", func(h *RunHeader) { h.Plan.TrialsAtMost = true }, "run.plan.trials_at_most"},
		{"auto batches of 0 s", func(h *RunHeader) { h.Plan.Auto = &AutoPlan{Confidence: 0.95} }, "run.plan.auto.batch_s"},
		{"agent index past its count", func(h *RunHeader) { h.Agents = &AgentsHeader{Count: 2, Index: new(5)} }, "run.agents.index"},
		// A target's own levels: of a target of the run, once, in range,
		// in a closed-loop grid, and counted in the grid's size.
		{"own levels of no target", func(h *RunHeader) {
			h.Plan.TargetConcurrency = []TargetLevels{{Target: "zz", Concurrency: []int{1}}}
		}, "run.plan.target_concurrency[0].target"},
		{"own levels twice", func(h *RunHeader) {
			h.Plan.TargetConcurrency = []TargetLevels{{Target: "a", Concurrency: []int{1}}, {Target: "a", Concurrency: []int{2}}}
		}, "run.plan.target_concurrency[1].target"},
		{"own level 0", func(h *RunHeader) {
			h.Plan.TargetConcurrency = []TargetLevels{{Target: "a", Concurrency: []int{0}}}
		}, "run.plan.target_concurrency[0].concurrency"},
		{"own levels empty", func(h *RunHeader) { h.Plan.TargetConcurrency = []TargetLevels{{Target: "a"}} }, "run.plan.target_concurrency[0].concurrency"},
		{"own levels of a search", func(h *RunHeader) {
			h.Plan.TargetConcurrency = []TargetLevels{{Target: "a", Concurrency: []int{1}}}
			h.Plan.Search = &SearchPlan{Mode: SearchKnee, Resolution: 2}
		}, "run.plan.target_concurrency"},
		{"own levels past a plan's size", func(h *RunHeader) {
			long := make([]int, 1000)
			for i := range long {
				long[i] = i + 1
			}
			h.Plan.Concurrency, h.Plan.Pools, h.Plan.Trials = []int{1}, long, 1000
			h.Plan.TargetConcurrency = []TargetLevels{{Target: "a", Concurrency: long}}
		}, "run.plan"},
	}
	for _, tt := range tests {
		h := testHeader()
		tt.edit(&h)
		var fe *FieldError
		if err := ValidateHeader(&h); !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("%s: %v, want a problem with %s", tt.name, err, tt.field)
		}
	}
}

// TestReadValidates: the reader refuses a bad step with its file, line and
// field in one line; Lenient skips it with that line as a warning and
// keeps the rest.
func TestReadValidates(t *testing.T) {
	bad := testStep(16)
	bad.DurationS = 0
	body := line(t, testHeader()) + line(t, testStep(8)) + line(t, bad) + line(t, testStep(32)) + line(t, EndRecord{Kind: KindEnd, Status: StatusComplete, Steps: 3})
	_, err := ReadResults(strings.NewReader(body), "results.jsonl")
	if err == nil || err.Error() != "results.jsonl:3: step.duration_s: 0 is not a window length" {
		t.Errorf("strict: %v", err)
	}
	r, err := ReadResultsWith(strings.NewReader(body), "results.jsonl", ReadOptions{Lenient: true})
	if err != nil || len(r.Steps) != 2 || r.Skipped != 1 || len(r.Warnings) != 1 ||
		r.Warnings[0] != "results.jsonl:3: step.duration_s: 0 is not a window length; skipped (--lenient)" {
		t.Fatalf("lenient: %v %+v", err, r)
	}
	// A header that cannot be read is never skipped.
	h := testHeader()
	h.Targets = nil
	if _, err := ReadResultsWith(strings.NewReader(line(t, h)+line(t, testStep(8))), "r", ReadOptions{Lenient: true}); err == nil {
		t.Error("lenient read a file whose header names no target")
	}
}

// TestReadKeepsLatestRecord: a step measured again on --resume (it was
// interrupted, or the target failed) replaces its earlier record.
func TestReadKeepsLatestRecord(t *testing.T) {
	first := testStep(8)
	first.Interrupted = true
	again := testStep(8)
	again.Calls, again.Ops, again.CallsPerS, again.OpsPerS = 100, 100, 50, 50
	again.Bound = "none"
	body := line(t, testHeader()) + line(t, first) + line(t, testStep(16)) + line(t, again)
	r, err := ReadResults(strings.NewReader(body), "r")
	if err != nil || len(r.Steps) != 2 || r.Steps[0].Concurrency != 16 || r.Steps[1].Interrupted || r.Steps[1].Bound != "none" {
		t.Fatalf("%v %+v", err, r)
	}
}

// testSteady is a valid auto step's steady record, edited by edit.
func testSteady(edit func(*StepSteady)) *StepSteady {
	settled := true
	st := &StepSteady{WarmupMode: WindowAuto, WarmupEnd: "settled", Settled: &settled, TruncationS: new(0.5),
		WindowMode: WindowAuto, WindowEnd: "precision", BatchS: 0.1, BatchSize: 1, Batches: 20, Lag1: new(0.05), Independent: true,
		MeanPerS: new(100.0), HalfWidthPerS: new(1.5), HalfWidthPct: new(1.5), Confidence: 0.95}
	edit(st)
	return st
}

// TestValidSteady: a steady record as an auto step writes it, and a fixed
// step's, pass.
func TestValidSteady(t *testing.T) {
	h := testHeader()
	h.Plan.Auto = &AutoPlan{Warmup: true, MinWarmupS: 1, MaxWarmupS: 60, Window: true, MinDurationS: 2, MaxDurationS: 60, PrecisionPct: 2, MinCalls: 1000, BatchS: 0.1, Confidence: 0.95}
	if err := ValidateHeader(&h); err != nil {
		t.Fatal(err)
	}
	for _, edit := range []func(*StepSteady){
		func(*StepSteady) {},
		func(st *StepSteady) { st.FleetAgents = 3 }, // the leader's record in agent mode
		func(st *StepSteady) {
			st.WarmupMode, st.WarmupEnd, st.Settled, st.TruncationS = WindowFixed, "fixed-warmup", nil, nil
			st.WindowMode, st.WindowEnd = WindowFixed, "fixed"
		},
	} {
		s := testStep(8)
		s.Steady = testSteady(edit)
		if err := ValidateStep(&s, &h); err != nil {
			t.Errorf("%+v: %v", s.Steady, err)
		}
	}
}

// testExtraTrial is a valid extra trial's reason, edited.
func testExtraTrial(edit func(*ExtraTrial)) *ExtraTrial {
	e := &ExtraTrial{Neighbour: 4, Interval: []float64{90, 110}, NeighbourInterval: []float64{105, 120}, Why: "overlap"}
	edit(e)
	return e
}

// TestLongTargetNameRefused: a results file whose target is named with
// more than MaxTargetName bytes (no sweep names one so) is refused at its
// header, naming the field and the length, never the name: every table,
// heading and verdict that names a target stays one short line.
func TestLongTargetNameRefused(t *testing.T) {
	h := testHeader()
	long := strings.Repeat("T", 5000)
	h.Targets[0].Name = long
	s := testStep(1)
	s.Target = long
	_, err := ReadResults(strings.NewReader(line(t, h)+line(t, s)), "f.jsonl")
	if err == nil || !strings.Contains(err.Error(), "f.jsonl:1: run.targets[0].name: 5000 bytes, more than the 64") || strings.Contains(err.Error(), "TTTT") {
		t.Errorf("err %v", err)
	}
	h.Targets[0].Name = strings.Repeat("T", MaxTargetName)
	s.Target = h.Targets[0].Name
	if _, err := ReadResults(strings.NewReader(line(t, h)+line(t, s)), "f.jsonl"); err != nil {
		t.Errorf("a name of %d bytes: %v", MaxTargetName, err)
	}
}
