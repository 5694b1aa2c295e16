package plot

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// The test inputs are generated from known curves (a USL with chosen
// parameters plus seeded noise) and kept in testdata so the commands can
// be tried on them too; -update rewrites them.

type uslTruth struct{ lambda, sigma, kappa float64 }

func (u uslTruth) at(n float64) float64 { return u.lambda * n / (1 + u.sigma*(n-1) + u.kappa*n*(n-1)) }

var (
	truthStandalone = uslTruth{2400, 0.03, 0.00004} // peak ≈ 56k ops/s near C=156
	truthSharded    = uslTruth{1500, 0.01, 0.00012} // peak ≈ 47k ops/s near C=91
	pairLevels      = []int{8, 16, 32, 64, 128, 256, 512}
)

type stepSpec struct {
	target, workload, pool string
	conc, maxPool, clients int
	conns                  int
	trial                  int
	opsPerS                float64
	opsPerCall             float64
	readShare              float64 // share of ops that are finds
	poolWaitMs             float64
	serverFrac             float64 // server latency as a share of op latency; 0 = no telemetry
	errs                   results.ErrorCounts
	interrupted            bool
}

func makeStep(s stepSpec) results.StepResult {
	callsPerS := s.opsPerS / s.opsPerCall
	inFlight := float64(s.conc * max(s.clients, 1))
	callMean := inFlight / callsPerS * 1000 // Little's law, ms
	opMean := callMean / s.opsPerCall
	dur := 10.0
	calls := int64(callsPerS * dur)
	ops := int64(s.opsPerS * dur)
	reads := int64(float64(ops) * s.readShare)
	writes := ops - reads
	// Reads a little faster than writes, keeping the op mean.
	rLat := opMean * 0.8
	wLat := opMean
	if writes > 0 {
		wLat = (opMean*float64(ops) - rLat*float64(reads)) / float64(writes)
	}
	st := results.StepResult{
		Kind: results.KindStep, Target: s.target, Workload: s.workload, PoolSetting: s.pool,
		Concurrency: s.conc, MaxPoolSize: s.maxPool, Clients: s.clients, Connections: s.conns, Trial: s.trial,
		StartedAt: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), DurationS: dur,
		Calls: calls, Ops: ops, CallsPerS: callsPerS, OpsPerS: s.opsPerS, Errors: s.errs,
		Latency: results.LatencySummary{Mean: callMean, P50: callMean * 0.85, P90: callMean * 1.6,
			P99: callMean * (2 + float64(s.conc)/64), P999: callMean * (3 + float64(s.conc)/32), Max: callMean * (8 + float64(s.conc)/16)},
		OpsByType: map[string]results.OpTypeStats{},
		Pool: results.PoolStats{CheckoutWait: results.Quantiles{Mean: s.poolWaitMs, P50: s.poolWaitMs / 2, P99: s.poolWaitMs * 6, Max: s.poolWaitMs * 20},
			ConnectionsOpen: s.conns, ConnectionsMax: s.maxPool * max(s.clients, 1)},
		Interrupted: s.interrupted,
		ErrorSample: "auth failed for mongodb://admin:hunter2@10.0.0.1", // must never reach a report
	}
	if reads > 0 {
		st.OpsByType["find"] = results.OpTypeStats{Count: reads, PerS: float64(reads) / dur, Latency: results.LatencySummary{Mean: rLat, P50: rLat * 0.8, P90: rLat * 2, P99: rLat * 3, P999: rLat * 4, Max: rLat * 6}}
	}
	if writes > 0 {
		st.OpsByType["update"] = results.OpTypeStats{Count: writes, PerS: float64(writes) / dur, Latency: results.LatencySummary{Mean: wLat, P50: wLat * 0.8, P90: wLat * 2, P99: wLat * 3, P999: wLat * 4, Max: wLat * 6}}
	}
	if s.serverFrac > 0 {
		r, w := rLat*s.serverFrac*1000, wLat*s.serverFrac*1000
		st.Server = &results.ServerTelemetry{Total: &results.ServerSample{ReadLatencyUS: &r, WriteLatencyUS: &w, Samples: 10}}
	}
	return st
}

func header(runID, workload string, mix map[string]float64, opsPerCall float64, plan results.PlanInfo, targets ...results.TargetHeader) results.RunHeader {
	return results.RunHeader{
		Kind: results.KindRun, Schema: results.SchemaVersion, RunID: runID, ToolVersion: "poolsweep test",
		StartedAt: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC),
		Workload: results.WorkloadInfo{Name: workload, Mix: mix, OpsPerCall: opsPerCall, Distribution: "uniform",
			Records: 10000, FieldCount: 10, FieldLength: 100, Database: "poolsweep", Collection: "usertable"},
		Plan:    plan,
		Client:  results.ClientInfo{CPUs: 8, GoVersion: "go1.26", DriverVersion: "v2.10.0", OS: "linux", Arch: "amd64", Hostname: "loadgen-1"},
		Targets: targets,
	}
}

// pairResults: a simulated standalone and a simulated 3-mongos sharded
// cluster, the seeds' API call (2 finds + 1 update), C 8..512, pool match,
// 3 trials. The standalone carries server telemetry.
func pairResults() *results.Results {
	rng := rand.New(rand.NewPCG(1, 2))
	plan := results.PlanInfo{Concurrency: pairLevels, Pool: "match", Clients: 1, Trials: 3, WarmupS: 5, DurationS: 10, OpTimeoutS: 10, Steps: 42}
	r := &results.Results{Path: "testdata/pair.jsonl", Header: header("pair-sim", "api", map[string]float64{"find": 2, "update": 1}, 3, plan,
		results.TargetHeader{Name: "standalone", URI: "mongodb://127.0.0.1:27018", Topology: "standalone", ServerVersion: "7.0.0-sim",
			ServerKind: "simulator", Hosts: []string{"127.0.0.1:27018"}, SimSpec: "slots=16,service=250us"},
		results.TargetHeader{Name: "sharded", URI: "mongodb://user:xxxxx@127.0.0.1:27020,127.0.0.1:27021,127.0.0.1:27022", Topology: "sharded",
			ServerVersion: "7.0.0-sim", ServerKind: "simulator", Hosts: []string{"127.0.0.1:27020", "127.0.0.1:27021", "127.0.0.1:27022"},
			Shards: []string{"shard0", "shard1", "shard2"}, SimSpec: "shards=3,slots=8,service=300us"})}
	for _, tg := range []struct {
		name  string
		truth uslTruth
		hosts int
		tel   float64
	}{{"standalone", truthStandalone, 1, 0.55}, {"sharded", truthSharded, 3, 0}} {
		for _, c := range pairLevels {
			for trial := 1; trial <= 3; trial++ {
				ops := tg.truth.at(float64(c)) * (1 + 0.03*(rng.Float64()*2-1))
				var errs results.ErrorCounts
				if c == 512 && trial == 2 {
					errs = results.ErrorCounts{Timeout: 7, Network: 1}
				}
				r.Steps = append(r.Steps, makeStep(stepSpec{target: tg.name, workload: "api", pool: "match", conc: c, maxPool: c, clients: 1,
					conns: c * tg.hosts, trial: trial, opsPerS: ops, opsPerCall: 3, readShare: 2.0 / 3,
					poolWaitMs: 0.01 + 0.002*float64(c), serverFrac: tg.tel, errs: errs}))
			}
		}
	}
	r.End = &results.EndRecord{Kind: results.KindEnd, Status: results.StatusComplete, FinishedAt: time.Date(2025, 3, 1, 12, 30, 0, 0, time.UTC), Steps: len(r.Steps)}
	return r
}

// gridResults: the embedded FerretDB over a C × P grid (YCSB-A-like 50:50
// find:update), 2 trials, where the pool caps the connections. The last
// step was interrupted.
func gridResults() *results.Results {
	rng := rand.New(rand.NewPCG(3, 4))
	cs, ps := []int{8, 32, 128, 512}, []int{8, 32, 128}
	plan := results.PlanInfo{Concurrency: cs, Pool: "8,32,128", Pools: ps, Clients: 1, Trials: 2, WarmupS: 2, DurationS: 10, OpTimeoutS: 5, Steps: 24}
	r := &results.Results{Path: "testdata/grid.jsonl", Header: header("grid-ferret", "ycsb-a", map[string]float64{"read": 50, "update": 50}, 1, plan,
		results.TargetHeader{Name: "embedded", URI: "mongodb://127.0.0.1:40123", Topology: "standalone", ServerVersion: "7.0.77",
			ServerKind: "ferretdb", Hosts: []string{"127.0.0.1:40123"}, Note: "FerretDB v1.24.2 (SQLite)"})}
	truth := uslTruth{160, 0.08, 0.0006}
	for _, p := range ps {
		for _, c := range cs {
			for trial := 1; trial <= 2; trial++ {
				eff := float64(min(c, p))
				ops := truth.at(eff) * (1 + 0.04*(rng.Float64()*2-1))
				// Past the pool, workers queue for a connection.
				wait := 0.05
				if c > p {
					wait = float64(c-p) / ops * 1000
				}
				r.Steps = append(r.Steps, makeStep(stepSpec{target: "embedded", workload: "ycsb-a", pool: itoa(p), conc: c, maxPool: p, clients: 1,
					conns: min(c, p), trial: trial, opsPerS: ops, opsPerCall: 1, readShare: 0.5, poolWaitMs: wait,
					interrupted: p == 128 && c == 512 && trial == 2}))
			}
		}
	}
	return r // no end record: the run was cut short
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// writeResultsFile encodes r as results.jsonl.
func writeResultsFile(t *testing.T, path string, r *results.Results) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	must := func(v any) {
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	}
	must(r.Header)
	for _, s := range r.Steps {
		must(s)
	}
	if r.End != nil {
		must(r.End)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// loadInputs reads the testdata results files, regenerating them first
// with -update.
func loadInputs(t *testing.T) (pair, grid *results.Results) {
	t.Helper()
	if golden.Updating() {
		writeResultsFile(t, filepath.Join("testdata", "pair.jsonl"), pairResults())
		writeResultsFile(t, filepath.Join("testdata", "grid.jsonl"), gridResults())
	}
	return readTestdata(t, "pair.jsonl"), readTestdata(t, "grid.jsonl")
}

// pairReports are knee reports for the pair whose levels are the real
// analysis's (the points every figure draws) and whose USL is the
// generator's ground truth, so the dashed curve must run through the
// points; knees, peaks and retrograde stretches are set by hand where the
// curves put them, their throughput read from the analysed levels as the
// analysis does.
func pairReports(pair *results.Results) []knee.Report {
	ns := func(u uslTruth) *float64 { v := math.Sqrt((1 - u.sigma) / u.kappa); return &v }
	real := analyzed(pair).Series
	qps := func(i, c int) float64 {
		for _, l := range real[i].Levels {
			if l.Concurrency == c {
				return l.QPS
			}
		}
		panic("no level")
	}
	return []knee.Report{
		{
			Target: "standalone", Workload: "api", Pool: "match", Clients: 1, Levels: real[0].Levels,
			Peak:       knee.Peak{Concurrency: 128, QPS: qps(0, 128)},
			Knee:       knee.Knee{Found: true, Concurrency: 64, Low: 32, High: 128, QPS: qps(0, 64), Confidence: "medium", Statement: "knee at concurrency 64 (32–128)"},
			Methods:    knee.Methods{USL: knee.USL{Fitted: true, Lambda: truthStandalone.lambda, Sigma: truthStandalone.sigma, Kappa: truthStandalone.kappa, NStar: ns(truthStandalone), R2: 0.99, Bound: "coherency"}},
			Retrograde: &knee.Retrograde{From: 512, DropPct: 18, To: 512},
			Verdict:    "standalone · pool=match: throughput peaks at 55.9k ops/s at concurrency 128. Knee at concurrency 64.",
		},
		{
			Target: "sharded", Workload: "api", Pool: "match", Clients: 1, Levels: real[1].Levels,
			Peak:       knee.Peak{Concurrency: 64, QPS: qps(1, 64)},
			Knee:       knee.Knee{Found: true, Concurrency: 64, Low: 32, High: 64, QPS: qps(1, 64), Confidence: "high", Statement: "knee at concurrency 64"},
			Methods:    knee.Methods{USL: knee.USL{Fitted: true, Lambda: truthSharded.lambda, Sigma: truthSharded.sigma, Kappa: truthSharded.kappa, NStar: ns(truthSharded), R2: 0.98, Bound: "coherency"}},
			Retrograde: &knee.Retrograde{From: 256, DropPct: 55, To: 512},
			Verdict:    "sharded · pool=match: throughput peaks at 46.6k ops/s at concurrency 64 and falls 55% by 512.",
		},
	}
}

// analyzed is the analysis of rs together, with analyze's defaults.
func analyzed(rs ...*results.Results) *analysis.Analysis {
	return analysis.Of(rs, knee.DefaultOptions())
}

// withReports is the analysis of rs with hand-set reports (pairReports)
// in place of the series they name, and the others unmarked.
func withReports(reports []knee.Report, rs ...*results.Results) *analysis.Analysis {
	a := unmarked(rs...)
	for i, r := range a.Series {
		for _, h := range reports {
			if h.Target == r.Target && h.Workload == r.Workload && h.Pool == r.Pool && h.Clients == r.Clients {
				a.Series[i] = h
			}
		}
	}
	return a
}

// unmarked is the analysis of rs with every verdict taken out of its
// series (no knee, peak, USL fit or retrograde stretch), the levels kept:
// figures then draw the analysis's points with no marks of its own.
func unmarked(rs ...*results.Results) *analysis.Analysis {
	a := analyzed(rs...)
	for i, r := range a.Series {
		a.Series[i] = knee.Report{Target: r.Target, Workload: r.Workload, Pool: r.Pool, Clients: r.Clients, Levels: r.Levels}
	}
	return a
}
