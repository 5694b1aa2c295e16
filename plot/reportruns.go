package plot

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/sweep"
)

// serverKindLabel names a target's server so that nobody reads FerretDB's
// or the simulator's numbers as MongoDB's.
func serverKindLabel(h sweep.TargetHeader) string {
	switch h.ServerKind {
	case "ferretdb":
		return "embedded FerretDB (numbers are FerretDB's, not MongoDB's)"
	case "simulator":
		s := "simulator (calibrated instrument, not a database)"
		if h.SimSpec != "" {
			s += ": " + h.SimSpec
		}
		return s
	case "":
		return "unknown"
	}
	return h.ServerKind
}

func runViewOf(r *sweep.Results, multi bool) runView {
	h := r.Header
	rv := runView{Title: "Run " + h.RunID}
	if h.RunID == "" {
		rv.Title = "Run " + runName(r)
	}
	add := func(k, v string) {
		if v != "" {
			rv.Facts = append(rv.Facts, [2]string{k, v})
		}
	}
	if multi {
		add("file", r.Path)
	}
	if !h.StartedAt.IsZero() {
		add("started", h.StartedAt.UTC().Format(time.RFC3339))
	}
	status := "no end record (the run was cut short)"
	if r.End != nil {
		status = r.End.Status
		if r.End.Reason != "" {
			status += " (" + r.End.Reason + ")"
		}
	}
	add("status", status)
	add("tool", h.ToolVersion)
	add("workload", workloadText(h.Workload))
	add("plan", planText(h.Plan))
	add("client machine", clientText(h.Client))
	for _, t := range h.Targets {
		tv := targetView{Name: t.Name, Topology: t.Topology, Version: t.ServerVersion, Kind: serverKindLabel(t),
			Hosts: strconv.Itoa(len(t.Hosts)), URI: t.URI, Note: t.Note}
		if len(t.Shards) > 0 {
			tv.Hosts += fmt.Sprintf(" (%d shards)", len(t.Shards))
		}
		if t.SetName != "" {
			tv.Topology += " " + t.SetName
		}
		rv.Targets = append(rv.Targets, tv)
	}
	rv.Table = stepTableOf(r)
	return rv
}

func workloadText(w sweep.WorkloadInfo) string {
	parts := []string{w.Name}
	if len(w.Mix) > 0 {
		keys := make([]string, 0, len(w.Mix))
		for k := range w.Mix {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var mix []string
		for _, k := range keys {
			mix = append(mix, fmt.Sprintf("%s %g", k, w.Mix[k]))
		}
		parts = append(parts, "mix "+strings.Join(mix, " : "))
	}
	if len(w.Mixes) > 0 {
		parts = append(parts, "mixes "+strings.Join(w.Mixes, ", "))
	}
	if w.OpsPerCall > 0 {
		parts = append(parts, fmt.Sprintf("%g ops per call", w.OpsPerCall))
	}
	if w.Distribution != "" {
		parts = append(parts, w.Distribution)
	}
	if w.Records > 0 {
		parts = append(parts, fmt.Sprintf("%d records × %d fields × %d B", w.Records, w.FieldCount, w.FieldLength))
	}
	return strings.Join(parts, ", ")
}

func planText(p sweep.PlanInfo) string {
	cs := make([]string, len(p.Concurrency))
	for i, c := range p.Concurrency {
		cs[i] = strconv.Itoa(c)
	}
	s := fmt.Sprintf("concurrency %s; pool %s; %d client(s); %d trial(s); warm-up %gs, window %gs, op timeout %gs; %d steps",
		strings.Join(cs, ","), p.Pool, max(p.Clients, 1), p.Trials, p.WarmupS, p.DurationS, p.OpTimeoutS, p.Steps)
	if p.Order != "" {
		s += "; order " + p.Order
	}
	return s
}

func clientText(c sweep.ClientInfo) string {
	var parts []string
	if c.Hostname != "" {
		parts = append(parts, c.Hostname)
	}
	if c.OS != "" || c.Arch != "" {
		parts = append(parts, c.OS+"/"+c.Arch)
	}
	if c.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", c.CPUs))
	}
	if c.GoVersion != "" {
		parts = append(parts, c.GoVersion)
	}
	if c.DriverVersion != "" {
		parts = append(parts, "driver "+c.DriverVersion)
	}
	return strings.Join(parts, ", ")
}

// stepTableOf is the seeds' table: one row per step, sorted by target, pool,
// concurrency and trial; RAL/WAL are the mean latencies of reads (find,
// scan) and writes (update, insert) in µs.
func stepTableOf(r *sweep.Results) stepTable {
	steps := make([]*sweep.StepResult, 0, len(r.Steps))
	targets, workloads, clients, calls := map[string]bool{}, map[string]bool{}, false, false
	for i := range r.Steps {
		s := &r.Steps[i]
		steps = append(steps, s)
		targets[s.Target] = true
		workloads[s.Workload] = true
		clients = clients || s.Clients > 1
		calls = calls || callsDiffer(s)
	}
	rank := map[string]int{}
	for i, t := range r.Header.Targets {
		rank[t.Name] = i
	}
	sort.SliceStable(steps, func(i, j int) bool {
		a, b := steps[i], steps[j]
		if a.Target != b.Target {
			return rankOf(rank, a.Target) < rankOf(rank, b.Target) || (rankOf(rank, a.Target) == rankOf(rank, b.Target) && a.Target < b.Target)
		}
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		if pa, pb := poolRank(a.PoolSetting), poolRank(b.PoolSetting); pa != pb {
			return pa < pb
		}
		if a.Concurrency != b.Concurrency {
			return a.Concurrency < b.Concurrency
		}
		return a.Trial < b.Trial
	})
	var t stepTable
	if len(targets) > 1 {
		t.Head = append(t.Head, "target")
	}
	if len(workloads) > 1 {
		t.Head = append(t.Head, "workload")
	}
	t.Head = append(t.Head, "concurrency", "pool")
	if clients {
		t.Head = append(t.Head, "clients")
	}
	t.Head = append(t.Head, "connections", "trial", "throughput (ops/s)")
	if calls {
		t.Head = append(t.Head, "calls/s")
	}
	t.Head = append(t.Head, "RAL (µs)", "WAL (µs)", "p99 (ms)", "errors")
	for _, s := range steps {
		var row []string
		if len(targets) > 1 {
			row = append(row, s.Target)
		}
		if len(workloads) > 1 {
			row = append(row, s.Workload)
		}
		pool := s.PoolSetting
		if pool == "match" && s.MaxPoolSize > 0 {
			pool = "match (" + strconv.Itoa(s.MaxPoolSize) + ")"
		}
		row = append(row, strconv.Itoa(s.Concurrency), pool)
		if clients {
			row = append(row, strconv.Itoa(max(s.Clients, 1)))
		}
		conns := strconv.Itoa(s.Connections)
		if s.Connections == 0 {
			conns = fmt.Sprintf("%.0f (planned)", stepConnections(s))
		}
		trial := strconv.Itoa(s.Trial)
		if s.Interrupted {
			trial += " (interrupted)"
		}
		row = append(row, conns, trial, fmt.Sprintf("%.0f", s.OpsPerS))
		if calls {
			row = append(row, fmt.Sprintf("%.0f", s.CallsPerS))
		}
		row = append(row, usCell(avgLatencyUS(s, readOps)), usCell(avgLatencyUS(s, writeOps)),
			strconv.FormatFloat(s.Latency.P99, 'f', 2, 64), errorsCell(s.Errors))
		t.Rows = append(t.Rows, row)
	}
	return t
}

func usCell(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

func errorsCell(e sweep.ErrorCounts) string {
	if e.Total() == 0 {
		return "0"
	}
	var parts []string
	for _, p := range []struct {
		n    int64
		kind string
	}{{e.Timeout, "timeout"}, {e.Network, "network"}, {e.Server, "server"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.kind))
		}
	}
	return fmt.Sprintf("%d (%s)", e.Total(), strings.Join(parts, ", "))
}
