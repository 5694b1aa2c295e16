package compare

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// profile is what a fixture step measures before noise.
type profile struct {
	ops                float64 // ops/s
	readMS, writeMS    float64 // mean latencies; p99 is 3× the mean
	insert, read, upd  int     // mix in %, insert:read:update
	serverCPU          float64 // %; < 0 leaves server telemetry out
	clientCPU          float64 // %; < 0 leaves client telemetry out
	srvReadUS, srvWrUS float64 // server-side latencies; 0 leaves them out
	errors             int64
	noise              []float64 // per-trial multipliers on ops and latency
}

// fixtureStep builds one StepResult from a profile: op counts follow the
// mix, latencies and throughput are scaled by the trial's noise.
func fixtureStep(target, workload string, c, trial int, p profile) results.StepResult {
	f := p.noise[(trial-1)%len(p.noise)]
	const dur = 10.0
	ops := p.ops * f
	s := results.StepResult{
		Kind: results.KindStep, Target: target, Workload: workload, PoolSetting: "match",
		Concurrency: c, MaxPoolSize: c, Clients: 1, Connections: c, Trial: trial,
		StartedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC).Add(time.Duration(trial) * time.Minute),
		DurationS: dur, Ops: int64(ops * dur), Calls: int64(ops * dur), OpsPerS: ops, CallsPerS: ops,
		Errors:    results.ErrorCounts{Timeout: p.errors},
		OpsByType: map[string]results.OpTypeStats{},
	}
	left := s.Ops // the last type takes what rounding left, so the types add up to ops
	add := func(op string, share int, meanMS float64) {
		if share == 0 {
			return
		}
		n := min(int64(ops*dur*float64(share)/100), left)
		if op == lastOp(p) {
			n = left
		}
		left -= n
		m := meanMS / f // slower when throughput is lower, as in a closed loop
		s.OpsByType[op] = results.OpTypeStats{Count: n, PerS: float64(n) / dur,
			Latency: results.LatencySummary{Mean: m, P50: m * 0.9, P90: m * 2, P99: m * 3, P999: m * 5, Max: m * 8}}
	}
	add("insert", p.insert, p.writeMS)
	add("find", p.read, p.readMS)
	add("update", p.upd, p.writeMS)
	m := (p.readMS*float64(p.read) + p.writeMS*float64(p.insert+p.upd)) / 100 / f
	s.Latency = results.LatencySummary{Mean: m, P50: m * 0.9, P90: m * 2, P99: m * 3, P999: m * 5, Max: m * 8}
	if p.serverCPU >= 0 {
		cpu := p.serverCPU * (1 + (f-1)/4)
		total := &results.ServerSample{CPUPct: &cpu, Samples: 10}
		if p.srvReadUS > 0 {
			r, w := p.srvReadUS/f, p.srvWrUS/f
			total.ReadLatencyUS, total.WriteLatencyUS = &r, &w
		}
		s.Server = &results.ServerTelemetry{Hosts: map[string]*results.ServerSample{"127.0.0.1:27017": total}, Total: total}
	}
	if p.clientCPU >= 0 {
		s.Client = &results.ClientTelemetry{CPUPct: p.clientCPU * (1 + (f-1)/2), CPUs: 2}
	}
	return s
}

// lastOp is the last op type of p's mix that has a share.
func lastOp(p profile) string {
	switch {
	case p.upd > 0:
		return "update"
	case p.read > 0:
		return "find"
	}
	return "insert"
}

// fixture is a results set with header; steps are appended by add.
func fixture(path, runID string, targets ...string) *results.Results {
	r := &results.Results{Path: path, Header: results.RunHeader{Kind: results.KindRun, Schema: results.SchemaVersion, RunID: runID,
		ToolVersion: "test", StartedAt: time.Date(2025, 1, 2, 3, 0, 0, 0, time.UTC),
		Workload: results.WorkloadInfo{Name: "mixes"}}}
	for _, t := range targets {
		r.Header.Targets = append(r.Header.Targets, results.TargetHeader{Name: t, URI: "mongodb://127.0.0.1:27017", Topology: "standalone", ServerKind: "simulator"})
	}
	r.End = &results.EndRecord{Kind: results.KindEnd, Status: results.StatusComplete}
	return r
}

func (p profile) add(r *results.Results, target, workload string, cs []int, trials int) {
	for _, c := range cs {
		for tr := 1; tr <= trials; tr++ {
			r.Steps = append(r.Steps, fixtureStep(target, workload, c, tr, p))
		}
	}
}

// Deterministic per-trial noise of about ±2%, different on each side so
// the samples interleave when nothing changed.
var (
	noiseA = []float64{1.00, 0.98, 1.02, 0.99, 1.01}
	noiseB = []float64{1.01, 0.99, 1.00, 1.02, 0.985}
)

// studyPair is the audit-log study in miniature: write-only and mixed
// mixes at two concurrencies. The candidate costs server CPU +3 points on
// writes only, and on the mixed mix 17% of throughput, +610 µs write and
// +220 µs read latency. The baseline also ran C=512 for the mixed mix,
// which the candidate lacks.
func studyPair(trials int) (base, cand *results.Results) {
	base = fixture("base.jsonl", "audit-off", "rs")
	cand = fixture("cand.jsonl", "audit-on", "rs")
	wo := profile{ops: 40000, writeMS: 2.0, insert: 100, serverCPU: 20, clientCPU: 35, srvReadUS: 0, noise: noiseA}
	profile{ops: 40000, writeMS: 2.0, insert: 100, serverCPU: 23.1, clientCPU: 35, noise: noiseB}.add(cand, "rs", "mix 100:0:0", []int{64, 256}, trials)
	wo.add(base, "rs", "mix 100:0:0", []int{64, 256}, trials)

	mixed := profile{ops: 50000, readMS: 1.0, writeMS: 3.0, read: 50, upd: 50, serverCPU: 60, clientCPU: 40, srvReadUS: 300, srvWrUS: 900, noise: noiseA}
	mixed.add(base, "rs", "mix 0:50:50", []int{64, 256, 512}, trials)
	mixedC := mixed
	mixedC.ops, mixedC.noise = 50000*0.83, noiseB
	// The study's shift: +220 µs read, +610 µs write.
	mixedC.readMS, mixedC.writeMS = 1.22, 3.61
	mixedC.srvReadUS, mixedC.srvWrUS = 420, 1400
	mixedC.add(cand, "rs", "mix 0:50:50", []int{64, 256}, trials)
	return base, cand
}

// writeFixture writes r as a results.jsonl with the sweep package's writer.
func writeFixture(t *testing.T, path string, r *results.Results) {
	t.Helper()
	w, err := results.CreateResults(path)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Write(r.Header); err != nil {
		t.Fatal(err)
	}
	for _, s := range r.Steps {
		if err := w.Write(s); err != nil {
			t.Fatal(err)
		}
	}
	if r.End != nil {
		if err := w.Write(r.End); err != nil {
			t.Fatal(err)
		}
	}
}

// testdataFixtures returns the study pair read back from testdata, writing
// the files first under -update.
func testdataFixtures(t *testing.T) (base, cand *results.Results) {
	t.Helper()
	bp, cp := filepath.Join("testdata", "base.jsonl"), filepath.Join("testdata", "cand.jsonl")
	if golden.Updating() {
		b, c := studyPair(5)
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		writeFixture(t, bp, b)
		writeFixture(t, cp, c)
	}
	base, err := results.ReadResultsFile(bp)
	if err != nil {
		t.Fatal(err)
	}
	if cand, err = results.ReadResultsFile(cp); err != nil {
		t.Fatal(err)
	}
	return base, cand
}
