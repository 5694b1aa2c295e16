package search

import (
	"cmp"
	"strconv"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// series is one curve the search explores: a target × workload, at the
// plan's clients. The knee is searched with pool match (P = C); the pool
// search adds numbered pool settings at the knee's concurrency.
type series struct {
	target   results.TargetHeader
	workload string
	clients  int
	// pool is the pool setting of the curve analyze reads: "" or "match"
	// for the knee search's; a size in a grid of concurrency × pool
	// (Trials).
	pool string
}

// history is one series' share of the run so far.
type history struct {
	match   []results.StepResult         // pool match, the knee curve
	pools   map[int][]results.StepResult // by concurrency, then filtered by pool below
	all     int                          // steps measured or failed in this series, every pool
	spent   float64                      // wall seconds of the series' steps
	tried   map[int]bool                 // concurrency levels with a failed match step
	triedAt map[[2]int]bool              // (concurrency, pool) with a failed pool step
}

// of gathers what done and failed hold for s.
func (s series) of(done []results.StepResult, failed []plan.StepSpec) history {
	h := history{pools: map[int][]results.StepResult{}, tried: map[int]bool{}, triedAt: map[[2]int]bool{}}
	for _, st := range done {
		if st.Target != s.target.Name || st.Workload != s.workload || st.Clients != s.clients {
			continue
		}
		h.all++
		if st.Phases != nil {
			h.spent += st.Phases.Total()
		}
		if st.PoolSetting == "match" {
			h.match = append(h.match, st)
		} else {
			h.pools[st.Concurrency] = append(h.pools[st.Concurrency], st)
		}
	}
	for _, sp := range failed {
		if sp.Target != s.target.Name || sp.Workload != s.workload || sp.Clients != s.clients {
			continue
		}
		h.all++
		if sp.PoolSetting == "match" {
			h.tried[sp.Concurrency] = true
		} else {
			h.triedAt[[2]int{sp.Concurrency, sp.MaxPoolSize}] = true
		}
	}
	return h
}

// trials counts the measured trials of each concurrency level.
func trials(steps []results.StepResult) map[int]int {
	n := map[int]int{}
	for _, st := range steps {
		n[st.Concurrency]++
	}
	return n
}

// analyze is the knee analysis `poolsweep analyze` gives on these steps:
// the same reading of step records (knee.FromResults) and the same
// analysis (knee.Analyze), so the search stops on the answer a user will
// read.
func (s series) analyze(steps []results.StepResult, o knee.Options) (knee.Report, bool) {
	res := &results.Results{Header: results.RunHeader{Targets: []results.TargetHeader{s.target}}, Steps: steps}
	pool := cmp.Or(s.pool, "match")
	for _, se := range knee.FromResults([]*results.Results{res}) {
		if se.Pool == pool && len(se.Points) > 0 {
			return knee.Analyze(se, o), true
		}
	}
	return knee.Report{}, false
}

// poolAt is the measured steps at concurrency c with maxPoolSize p.
func (h history) poolAt(c, p int) []results.StepResult {
	var out []results.StepResult
	ps := strconv.Itoa(p)
	for _, st := range h.pools[c] {
		if st.PoolSetting == ps && st.MaxPoolSize == p {
			out = append(out, st)
		}
	}
	return out
}

// matchAt is the measured pool-match steps at concurrency c.
func (h history) matchAt(c int) []results.StepResult {
	var out []results.StepResult
	for _, st := range h.match {
		if st.Concurrency == c {
			out = append(out, st)
		}
	}
	return out
}

// summary is the median ops/s and p99 of some trials, the way the
// analysis summarises a level.
type summary struct {
	n        int
	qps      float64
	p99      float64
	p99Known bool
}

func summarise(steps []results.StepResult) summary {
	var qs, p99s []float64
	for _, st := range steps {
		qs = append(qs, st.OpsPerS)
		if st.Calls > 0 {
			p99s = append(p99s, st.Latency.P99)
		}
	}
	if len(qs) == 0 {
		return summary{}
	}
	out := summary{n: len(qs), qps: stats.Median(qs)}
	if len(p99s) > 0 {
		out.p99, out.p99Known = stats.Median(p99s), true
	}
	return out
}
