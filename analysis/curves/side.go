package curves

import (
	"maps"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/steady"
	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/results"
)

// sideOf builds the side of the series r reports on from the steps of rs
// that make its curve (knee.OnCurve, r's target, workload, pool setting
// and clients), named name.
func sideOf(rs []*results.Results, r knee.Report, name string) Side {
	s := Side{Name: name, Report: r}
	by := map[int][]*results.StepResult{}
	var hdr *results.TargetHeader
	reached := 0
	for _, res := range rs {
		if res == nil {
			continue
		}
		for i := range res.Steps {
			st := &res.Steps[i]
			if !inSeries(st, r) {
				continue
			}
			if id := res.Header.RunID; id != "" && !slices.Contains(s.RunIDs, id) {
				s.RunIDs = append(s.RunIDs, id)
			}
			if hdr == nil {
				hdr = header(res, st.Target)
				s.readPref, s.writeConcern = st.ReadPreference, st.WriteConcern
			}
			reached = max(reached, knee.HostsReached(st))
			by[st.Concurrency] = append(by[st.Concurrency], st)
		}
	}
	s.Deployment = deployment(hdr, reached)
	if hdr != nil {
		s.ServerKind = hdr.ServerKind
	}
	s.label = results.LabelWithout(results.LabelWithout(r.Workload, results.AxisReadPreference, s.readPref), results.AxisWriteConcern, s.writeConcern)
	for _, c := range slices.Sorted(maps.Keys(by)) {
		s.Levels = append(s.Levels, levelOf(by[c], s.Deployment.Hosts))
	}
	return s
}

// inSeries says st is a point of r's curve.
func inSeries(st *results.StepResult, r knee.Report) bool {
	return knee.OnCurve(st) && st.Target == r.Target && st.Workload == r.Workload &&
		st.PoolSetting == r.Pool && max(st.Clients, 1) == r.Clients && st.OpsPerS > 0 &&
		!math.IsInf(st.OpsPerS, 0) && !math.IsNaN(st.OpsPerS)
}

func header(res *results.Results, target string) *results.TargetHeader {
	for i := range res.Header.Targets {
		if res.Header.Targets[i].Name == target {
			return &res.Header.Targets[i]
		}
	}
	return nil
}

// deployment reads the topology from the target's header: a cluster's
// shards and routers, a standalone's one node, a replica set's members
// that took the side's operations (reached, from the pools per host).
func deployment(h *results.TargetHeader, reached int) Deployment {
	if h == nil {
		return Deployment{Nodes: reached, Hosts: reached}
	}
	d := Deployment{Topology: h.Topology, Hosts: max(len(h.Hosts), 1)}
	switch h.Topology {
	case "sharded":
		d.Nodes, d.Routers = len(h.Shards), len(h.Hosts)
	case "standalone":
		d.Nodes = 1
	case "replset":
		d.Nodes = reached
		if reached == 0 {
			d.Nodes = len(h.Hosts)
		}
	default:
		d.Nodes = reached
	}
	return d
}

// levelOf summarises a level's trials.
func levelOf(steps []*results.StepResult, hosts int) Level {
	st0 := steps[0]
	lv := Level{Concurrency: st0.Concurrency, Clients: max(st0.Clients, 1), Trials: len(steps)}
	lv.PerClient = st0.Concurrency
	if st0.MaxPoolSize > 0 {
		lv.PerClient = min(st0.Concurrency, st0.MaxPoolSize)
	}
	var ops, calls, logs, p50, p99, p99lo, p99hi, perHost, cpu []float64
	for _, st := range steps {
		ops = append(ops, st.OpsPerS)
		logs = append(logs, math.Log(st.OpsPerS))
		if st.CallsPerS > 0 {
			calls = append(calls, st.CallsPerS)
		}
		if st.Calls > 0 {
			p50 = append(p50, st.Latency.P50)
			p99 = append(p99, st.Latency.P99)
			lo, hi := p99Band(st.Latency, st.Calls, 0.05)
			p99lo, p99hi = append(p99lo, lo), append(p99hi, hi)
		}
		if n := connsPerHost(st, hosts); n > 0 {
			perHost = append(perHost, float64(n))
		}
		if v, ok := cpuPerOp(st); ok {
			cpu = append(cpu, v)
		}
		lv.bounds = append(lv.bounds, stepBound{st.Bound, st.BoundReason})
	}
	lv.OpsPerS = stats.Median(ops)
	if len(calls) > 0 {
		lv.CallsPerS = stats.Median(calls)
	}
	if len(p99) > 0 {
		lv.HasLatency = true
		lv.P50Ms, lv.P50Lo, lv.P50Hi = stats.Median(p50), slices.Min(p50), slices.Max(p50)
		lv.P99Ms, lv.P99Lo, lv.P99Hi = stats.Median(p99), slices.Min(p99lo), slices.Max(p99hi)
	}
	if len(perHost) > 0 {
		lv.PerHost = int(math.Round(stats.Median(perHost)))
	}
	if len(cpu) == len(steps) {
		v := stats.Median(cpu)
		lv.CPUPerOpUS = &v
	}
	for _, st := range steps {
		// A step whose load host was starved measured this machine, not
		// the server: its window's batch means cannot see the host's own
		// drift, and its level is biased low by an unknown amount, so it
		// gets no interval (the ratio would be a narrow interval around
		// a biased value) and says why.
		if limited, why := bound.ClientLimited(st); limited {
			lv.NoSE = "its load host was starved (" + why + ")"
			return lv
		}
	}
	switch {
	case len(steps) >= 2:
		// The trials' spread: the standard error of the mean of their
		// logs, n − 1 degrees of freedom.
		if v := stats.Variance(logs); !math.IsNaN(v) {
			lv.LogSE, lv.DF, lv.HasSE = math.Sqrt(v/float64(len(logs))), float64(len(logs)-1), true
		}
	default:
		lv.LogSE, lv.DF, lv.HasSE = batchSE(st0)
		if !lv.HasSE {
			lv.NoSE = "measured once without enough independent batch means (a window of 10 or more batches of several call times, or 2 or more trials, gives one)"
			if sd := st0.Steady; sd != nil && sd.NoInterval != "" {
				lv.NoSE = "measured once: " + sd.NoInterval
			}
		}
	}
	return lv
}

// batchSE is the standard error of ln(ops/s) of a step measured once,
// from its window's batch means (results.StepSteady.ThroughputInterval:
// the ops' own series, or an older file's calls').
func batchSE(st *results.StepResult) (float64, float64, bool) {
	mean, hw, batches, ok := st.Steady.ThroughputInterval()
	if !ok {
		return 0, 0, false
	}
	se, df, ok := steady.StdErr(hw, batches, st.Steady.Confidence)
	if !ok {
		return 0, 0, false
	}
	return se / mean, df, true
}

// connsPerHost is the most connections open to one host at the window's
// start: from the pools per host, or the step's connections when the
// target has one host; 0 (unknown) for several hosts without pools per
// host (files from before them).
func connsPerHost(st *results.StepResult, hosts int) int {
	if len(st.Pool.Hosts) == 0 {
		if hosts > 1 {
			return 0
		}
		return st.Connections
	}
	n := 0
	for _, h := range st.Pool.Hosts {
		n = max(n, h.ConnectionsOpen)
	}
	return n
}

// cpuPerOp is the server CPU per operation in µs: the CPU of the hosts
// of the URI and, in a cluster, of its shards' primaries, over the
// step's ops/s; false when a server did not report its CPU.
func cpuPerOp(st *results.StepResult) (float64, bool) {
	sv := st.Server
	if sv == nil || sv.Total == nil || sv.Total.CPUPct == nil || st.OpsPerS <= 0 {
		return 0, false
	}
	pct := *sv.Total.CPUPct
	if sv.ShardTotal != nil {
		if sv.ShardTotal.CPUPct == nil {
			return 0, false
		}
		pct += *sv.ShardTotal.CPUPct
	}
	return pct / 100 * 1e6 / st.OpsPerS, true
}

// p99Band is the confidence interval of a p99 measured over n calls: the
// quantiles whose ranks are n·0.99 ± z·√(n·0.99·0.01) (the order
// statistics' interval), read off the step's p90, p99 and p99.9 by
// interpolating latency linearly in −log10(1 − q) (1 at p90, 2 at p99, 3
// at p99.9), the tail's natural scale.
func p99Band(l results.LatencySummary, n int64, alpha float64) (float64, float64) {
	if n <= 0 {
		return l.P99, l.P99
	}
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	d := z * math.Sqrt(0.99*0.01/float64(n))
	tail := func(q float64) float64 {
		q = min(max(q, 0.9), 0.999)
		t := -math.Log10(1 - q)
		if t <= 2 {
			return l.P90 + (t-1)*(l.P99-l.P90)
		}
		return l.P99 + (t-2)*(l.P999-l.P99)
	}
	return min(tail(0.99-d), l.P99), max(tail(0.99+d), l.P99)
}
