package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/results"
)

// hostPoolTable is the steps' pools per server, when the clients kept
// pools to several (a replica set's members, mongos routers): maxPoolSize
// bounds each pool, so what each server took is what sizing needs. Empty
// when every step talked to one host.
func hostPoolTable(steps []*results.StepResult) stepTable {
	var t stepTable
	if !slices.ContainsFunc(steps, func(s *results.StepResult) bool { return len(s.Pool.Hosts) > 1 }) {
		return t
	}
	lead := leadColumns(steps)
	t.Head = append(lead.head(), "concurrency", "pool", "trial", "host", "role", "open", "most in use", "checkouts", "pool-wait p99 (ms)", "checkouts failed", "connections lost")
	for _, s := range steps {
		for _, h := range s.Pool.Hosts {
			row := append(lead.row(s), strconv.Itoa(s.Concurrency), strconv.Itoa(s.MaxPoolSize), strconv.Itoa(s.Trial), h.Host, cmp.Or(h.Role, "–"),
				strconv.Itoa(h.ConnectionsOpen), strconv.Itoa(h.InUseMax), strconv.FormatInt(h.Checkouts, 10),
				strconv.FormatFloat(h.CheckoutWait.P99, 'f', 2, 64), strconv.FormatInt(h.CheckoutFailed, 10), strconv.FormatInt(h.ConnectionsLost, 10))
			t.Rows = append(t.Rows, row)
		}
	}
	return t
}

// routerPoolTable is each step's routers' pools to the shard hosts
// (analysis.RouterPools): in use, per task-executor pool against
// ShardingTaskExecutorPoolMaxSize, idle, being opened against
// MaxConnecting, created; empty when no step sampled a router's pools.
func routerPoolTable(r *results.Results) stepTable {
	var t stepTable
	rows := analysis.RouterPools([]*results.Results{r})
	if len(rows) == 0 {
		return t
	}
	var steps []*results.StepResult
	for i := range r.Steps {
		steps = append(steps, &r.Steps[i])
	}
	lead := leadColumns(steps)
	t.Head = append(lead.head(), "concurrency", "pool", "trial", "connections per client", "router", "shard host", "pools", "in use", "in use per pool", "max size", "idle", "being opened", "max connecting", "created", "bound")
	num := func(v *float64, prec int) string {
		if v == nil {
			return "n/r"
		}
		return strconv.FormatFloat(*v, 'f', prec, 64)
	}
	for _, p := range rows {
		pools := "n/r"
		if p.Pools != nil {
			pools = strconv.Itoa(*p.Pools)
		}
		maxSize := p.MaxSizeNote
		if p.MaxSize != nil {
			maxSize = num(p.MaxSize, 0)
		}
		var leadRow []string
		if lead.target {
			leadRow = append(leadRow, p.Target)
		}
		if lead.workload {
			leadRow = append(leadRow, p.Workload)
		}
		t.Rows = append(t.Rows, append(leadRow, strconv.Itoa(p.Concurrency), strconv.Itoa(p.Pool), strconv.Itoa(p.Trial), strconv.Itoa(p.PerClient),
			p.Router, p.ShardHost, pools, num(p.InUse, 1), num(p.PerPoolInUse, 1), maxSize, num(p.Idle, 1), num(p.Opening, 1),
			num(p.MaxConnecting, 0), num(p.Created, 0), cmp.Or(p.Bound, "–")))
	}
	return t
}

// replicationTable is each secondary's replication lag in each step's
// window, as the primary saw it; empty when no step sampled a replica
// set's members.
func replicationTable(steps []*results.StepResult) stepTable {
	var t stepTable
	if !slices.ContainsFunc(steps, func(s *results.StepResult) bool { return s.Server != nil && len(s.Server.Replication) > 0 }) {
		return t
	}
	lead := leadColumns(steps)
	t.Head = append(lead.head(), "concurrency", "pool", "trial", "secondary", "lag at start (ms)", "at end (ms)", "most (ms)", "samples", "resolution (ms)", "fell behind")
	for _, s := range steps {
		if s.Server == nil {
			continue
		}
		for _, m := range s.Server.Replication {
			behind := "no"
			if m.FellBehind {
				behind = "yes"
			}
			t.Rows = append(t.Rows, append(lead.row(s), strconv.Itoa(s.Concurrency), strconv.Itoa(s.MaxPoolSize), strconv.Itoa(s.Trial), m.Host,
				fmt.Sprintf("%.0f", m.StartMS), fmt.Sprintf("%.0f", m.EndMS), fmt.Sprintf("%.0f", m.MaxMS), strconv.Itoa(m.Samples), fmt.Sprintf("%g", m.PrecisionMS), behind))
		}
	}
	return t
}

// leading says which of the target and workload columns a table needs:
// only those that tell its rows apart.
type leading struct{ target, workload bool }

func leadColumns(steps []*results.StepResult) leading {
	var l leading
	for _, s := range steps {
		l.target = l.target || s.Target != steps[0].Target
		l.workload = l.workload || s.Workload != steps[0].Workload
	}
	return l
}

func (l leading) head() []string {
	var h []string
	if l.target {
		h = append(h, "target")
	}
	if l.workload {
		h = append(h, "workload")
	}
	return h
}

func (l leading) row(s *results.StepResult) []string {
	var r []string
	if l.target {
		r = append(r, s.Target)
	}
	if l.workload {
		r = append(r, s.Workload)
	}
	return r
}

// stepNoteLines are the analysis's step notes as the report says them,
// naming the run when the report holds several.
func stepNoteLines(notes []analysis.StepNote, runName map[string]string) (warnings, notesOut []string) {
	for _, n := range notes {
		name := n.Step()
		if r := runName[n.File]; r != "" {
			name = r + ": " + name
		}
		line := fmt.Sprintf("%s, concurrency %d, trial %d: %s", name, n.Concurrency, n.Trial, n.Text)
		if n.Warning {
			warnings = append(warnings, line)
		} else {
			notesOut = append(notesOut, line)
		}
	}
	return warnings, notesOut
}
