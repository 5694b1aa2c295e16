package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/internal/runinfo"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// serverKindLabel names a target's server so that nobody reads FerretDB's
// or the simulator's numbers as MongoDB's.
func serverKindLabel(h results.TargetHeader) string {
	switch h.ServerKind {
	case "ferretdb":
		return "embedded FerretDB (numbers are FerretDB's, not MongoDB's)"
	case "simulator":
		s := "simulator (calibrated instrument, not a database)"
		if h.SimSpec != "" {
			// Spaced so that a long spec wraps in a table cell.
			s += ": " + strings.ReplaceAll(h.SimSpec, ",", ", ")
		}
		return s
	case "":
		return "unknown"
	}
	return h.ServerKind
}

func runViewOf(r *results.Results, multi bool) runView {
	h := r.Header
	rv := runView{Title: "Run " + h.RunID}
	if h.RunID == "" {
		rv.Title = "Run " + runinfo.RunName(r)
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
	add("plan", planText(h.Plan, r.Steps))
	add("client machine", clientText(h.Client))
	for _, t := range h.Targets {
		server := serverKindLabel(t)
		if t.ServerVersion != "" {
			server = t.ServerVersion + ", " + server
		}
		// A URI of fifty hosts is cut (its hosts are counted beside it),
		// so that its table row stays one line; the results file keeps it.
		tv := targetView{Name: t.Name, Topology: t.Topology, Server: server,
			Hosts: strconv.Itoa(len(t.Hosts)), URI: textfmt.CapLineAt(t.URI, maxURIShown)}
		if len(t.Shards) > 0 {
			tv.Hosts += fmt.Sprintf(" (%d shards)", len(t.Shards))
		}
		if t.SetName != "" {
			tv.Topology += " " + t.SetName
		}
		rv.Targets = append(rv.Targets, tv)
	}
	rv.Notes = targetNotes(h.Targets)
	steps := closedSteps(r)
	rv.Table = stepTableOf(steps)
	rv.HostTable = hostPoolTable(steps)
	rv.LagTable = replicationTable(steps)
	rv.RouterTable = routerPoolTable(r)
	rv.OpenTable = openStepTable(r)
	rv.ProfileTable = profileStepTable(r)
	rv.EventTable = eventTable(r)
	return rv
}

// maxURIShown is the longest URI a report's targets table shows whole.
const maxURIShown = 256

// targetNotes are the targets' notes, each said once: "a, b: note" when
// several targets share it (every simulated target has the same one).
func targetNotes(ts []results.TargetHeader) []string {
	var order []string
	names := map[string][]string{}
	for _, t := range ts {
		if t.Note == "" {
			continue
		}
		if _, ok := names[t.Note]; !ok {
			order = append(order, t.Note)
		}
		names[t.Note] = append(names[t.Note], t.Name)
	}
	out := make([]string, len(order))
	for i, n := range order {
		out[i] = textfmt.List(names[n], ", ") + ": " + n
	}
	return out
}

func workloadText(w results.WorkloadInfo) string {
	var parts []string
	if w.Name != "mixes" || len(w.Mixes) == 0 { // "mixes, mixes …" says it twice
		parts = append(parts, w.Name)
	}
	if m := mixText(w.Mix); m != "" {
		parts = append(parts, "mix "+m)
	}
	if len(w.Mixes) > 0 {
		ms := make([]string, len(w.Mixes))
		for i, m := range w.Mixes {
			ms[i] = strings.TrimPrefix(m, "mix ")
		}
		parts = append(parts, "mixes (insert:read:update) "+strings.Join(ms, ", "))
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

// mixText writes an op mix as shares in percent, largest first: "find 67%
// : update 33%". The header holds weights or fractions (2/3 prints as
// 0.6666666666666666 otherwise).
func mixText(mix map[string]float64) string {
	var total float64
	keys := make([]string, 0, len(mix))
	for k, v := range mix {
		if v > 0 {
			keys = append(keys, k)
			total += v
		}
	}
	if total <= 0 {
		return ""
	}
	sort.Slice(keys, func(i, j int) bool {
		if mix[keys[i]] != mix[keys[j]] {
			return mix[keys[i]] > mix[keys[j]]
		}
		return keys[i] < keys[j]
	})
	out := make([]string, len(keys))
	for i, k := range keys {
		pct := 100 * mix[k] / total
		num := strconv.FormatFloat(pct, 'f', 0, 64)
		if math.Abs(pct-math.Round(pct)) >= 0.05 && pct < 10 {
			num = strconv.FormatFloat(pct, 'f', 1, 64)
		}
		out[i] = k + " " + num + "%"
	}
	return strings.Join(out, " : ")
}

func planText(p results.PlanInfo, steps []results.StepResult) string {
	if len(p.Rate) > 0 {
		return openPlanText(p, steps)
	}
	levels := func(l []int) string {
		cs := make([]string, len(l))
		for i, c := range l {
			cs[i] = strconv.Itoa(c)
		}
		return strings.Join(cs, ",")
	}
	conc := levels(p.Concurrency)
	if len(p.TargetConcurrency) > 0 {
		var own []string
		for _, tl := range p.TargetConcurrency {
			own = append(own, tl.Target+" "+levels(tl.Concurrency))
		}
		conc = strings.Join(own, ", ")
	}
	trials := fmt.Sprintf("%d trial(s)", p.Trials)
	if p.TrialsAtMost {
		trials = fmt.Sprintf("at most %d trial(s), more than one only where neighbouring levels overlapped", p.Trials)
	}
	s := fmt.Sprintf("concurrency %s; pool %s; %d client(s); %s; %s, op timeout %gs; %d steps",
		conc, p.Pool, max(p.Clients, 1), trials, lengthsText(p, steps), p.OpTimeoutS, p.Steps)
	if p.Order != "" {
		s += "; order " + p.Order
	}
	return s
}

func clientText(c results.ClientInfo) string {
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

// closedSteps are r's closed-loop steps in the tables' order: targets in
// the header's order, then workloads, pools, levels, trials.
func closedSteps(r *results.Results) []*results.StepResult {
	steps := make([]*results.StepResult, 0, len(r.Steps))
	for i := range r.Steps {
		// Open-loop and profile steps have tables of their own
		// (openStepTable, profileStepTable).
		if s := &r.Steps[i]; s.Mode != results.ModeOpen && s.Mode != results.ModeProfile {
			steps = append(steps, s)
		}
	}
	rank := map[string]int{}
	for i, t := range r.Header.Targets {
		rank[t.Name] = i
	}
	slices.SortStableFunc(steps, func(a, b *results.StepResult) int {
		return cmp.Or(cmp.Compare(runinfo.Rank(rank, a.Target), runinfo.Rank(rank, b.Target)), cmp.Compare(a.Target, b.Target), cmp.Compare(a.Workload, b.Workload),
			cmp.Compare(runinfo.PoolRank(a.PoolSetting), runinfo.PoolRank(b.PoolSetting)), cmp.Compare(a.Concurrency, b.Concurrency), cmp.Compare(a.Trial, b.Trial))
	})
	return steps
}

// stepTableOf is the seeds' table: one row per step, sorted by target, pool,
// concurrency and trial; RAL/WAL are the mean latencies of reads (find,
// scan) and writes (update, insert) in µs.
func stepTableOf(steps []*results.StepResult) stepTable {
	lead, clients, calls, bounds := leadColumns(steps), false, false, false
	for _, s := range steps {
		clients = clients || s.Clients > 1
		calls = calls || runinfo.CallsDiffer(s)
		bounds = bounds || s.Bound != ""
	}
	t := stepTable{Head: append(lead.head(), "concurrency", "pool")}
	if clients {
		t.Head = append(t.Head, "clients")
	}
	t.Head = append(t.Head, "connections", "trial", "throughput (ops/s)")
	if calls {
		t.Head = append(t.Head, "calls/s")
	}
	t.Head = append(t.Head, "RAL (µs)", "WAL (µs)", "p99 (ms)", "errors")
	if bounds {
		t.Head = append(t.Head, "bound")
	}
	for _, s := range steps {
		row := lead.row(s)
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
			conns = fmt.Sprintf("%.0f (planned)", runinfo.Connections(s))
		}
		trial := strconv.Itoa(s.Trial)
		if s.Interrupted {
			trial += " (interrupted)"
		}
		if s.TargetFailed != nil {
			trial += " (target failed)"
		}
		if s.PrimaryChange != nil {
			trial += " (" + s.PrimaryChange.Text() + ")"
		}
		row = append(row, conns, trial, fmt.Sprintf("%.0f", s.OpsPerS))
		if calls {
			row = append(row, fmt.Sprintf("%.0f", s.CallsPerS))
		}
		row = append(row, usCell(avgLatencyUS(s, results.OpClassRead)), usCell(avgLatencyUS(s, results.OpClassWrite)),
			strconv.FormatFloat(s.Latency.P99, 'f', 2, 64), errorsCell(s.Errors))
		if bounds {
			row = append(row, s.Bound)
		}
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

func errorsCell(e results.ErrorCounts) string {
	if e.Total() == 0 {
		return "0"
	}
	var parts []string
	for _, p := range []struct {
		n    int64
		kind string
		of   int64 // the part of n a sub-kind names
		sub  string
	}{{e.Timeout, "timeout", 0, ""}, {e.Network, "network", e.PoolCleared, "pool cleared"},
		{e.Server, "server", e.NotWritablePrimary, "not writable primary"}} {
		if p.n > 0 {
			c := fmt.Sprintf("%d %s", p.n, p.kind)
			if p.of > 0 {
				c += fmt.Sprintf(" of which %d %s", p.of, p.sub)
			}
			parts = append(parts, c)
		}
	}
	return fmt.Sprintf("%d (%s)", e.Total(), strings.Join(parts, ", "))
}

// avgLatencyUS is the count-weighted mean latency of the step's ops of one
// class (results.OpClassOf: reads or writes) in µs; ok is false when the
// step did none of them.
func avgLatencyUS(s *results.StepResult, class string) (float64, bool) {
	var n, sum float64
	for typ, t := range s.OpsByType {
		if results.OpClassOf(typ) != class || t.Count == 0 {
			continue
		}
		n += float64(t.Count)
		sum += float64(t.Count) * t.Latency.Mean
	}
	if n == 0 {
		return 0, false
	}
	return sum / n * 1000, true
}
