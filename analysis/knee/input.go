package knee

import (
	"fmt"
	"math"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// maxStepWarnings bounds the per-step warnings of one series; the rest are
// counted in one line.
const maxStepWarnings = 5

// FromResults turns decoded results files into series, one per target ×
// workload × pool setting × clients, in the order they first appear.
// Open-loop steps (mode "open") are not on a concurrency curve and are
// left to OpenFromResults.
//
// Steps that cannot be read as a measurement are left out with a warning
// naming them, never read as zeros: interrupted steps (their window was cut
// short), steps during which the target failed (target_failed), and steps with a concurrency below 1 or above what a plan allows,
// a negative or non-finite ops/s, or an ops/s of 0 (or missing) although
// operations were counted. The results reader validates records too; this
// keeps the analysis honest whatever hands it a Results.
func FromResults(rs []*results.Results) []Series {
	type key struct {
		target, workload, pool string
		clients                int
	}
	var order []key
	by := map[key]*Series{}
	files := map[key]map[string]bool{}
	skipped := map[key]int{}
	bad := map[key][]string{}
	for _, res := range rs {
		if res == nil {
			continue
		}
		targets := map[string]results.TargetHeader{}
		for _, t := range res.Header.Targets {
			targets[t.Name] = t
		}
		for i, st := range res.Steps {
			if st.Mode == results.ModeOpen {
				continue // no concurrency curve: OpenFromResults
			}
			k := key{st.Target, st.Workload, st.PoolSetting, max(st.Clients, 1)}
			s, ok := by[k]
			if !ok {
				s = &Series{Target: st.Target, Workload: st.Workload, Pool: st.PoolSetting, Clients: k.clients, Hosts: 1}
				if t, ok := targets[st.Target]; ok {
					s.Topology = t.Topology
					s.Hosts = max(len(t.Hosts), 1)
				}
				by[k] = s
				files[k] = map[string]bool{}
				order = append(order, k)
			}
			files[k][res.Path] = true
			if st.Interrupted {
				skipped[k]++
				continue
			}
			if f := st.TargetFailed; f != nil {
				bad[k] = append(bad[k], targetFailedNote(&st))
				continue
			}
			if why := unusable(&st); why != "" {
				bad[k] = append(bad[k], fmt.Sprintf("%s: step record %d (%s): %s; left out",
					textfmt.Escape(res.Path), i+1, stepName(&st), why))
				continue
			}
			sif, hasSIF := serverInFlight(&st)
			s.Points = append(s.Points, Point{
				ServerInFlight:    sif,
				HasServerInFlight: hasSIF,
				Concurrency:       st.Concurrency,
				Connections:       max(st.Connections, 0),
				QPS:               st.OpsPerS,
				CallsPerS:         st.CallsPerS,
				P99Ms:             st.Latency.P99,
				HasP99:            st.Calls > 0,
				PoolWaitP99Ms:     st.Pool.CheckoutWait.P99,
				MeanLatencyMs:     st.Latency.Mean,
				MaxPoolSize:       st.MaxPoolSize,
				Trial:             st.Trial,
				Bound:             st.Bound,
				BoundReason:       st.BoundReason,
			})
		}
	}
	out := make([]Series, 0, len(order))
	for _, k := range order {
		s := by[k]
		if n := skipped[k]; n > 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%d interrupted step(s) left out", n))
		}
		if b := bad[k]; len(b) > 0 {
			if len(b) > maxStepWarnings {
				b = append(b[:maxStepWarnings:maxStepWarnings], fmt.Sprintf("%d more unusable step(s) left out", len(b)-maxStepWarnings))
			}
			s.Warnings = append(s.Warnings, b...)
		}
		if n := len(files[k]); n > 1 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("steps from %d files were combined as trials of one series", n))
		}
		out = append(out, *s)
	}
	return out
}

// unusable says why a step cannot be read as a measurement, "" when it can.
func unusable(st *results.StepResult) string {
	switch q := st.OpsPerS; {
	case st.Concurrency < 1:
		return fmt.Sprintf("concurrency %d is not a positive number", st.Concurrency)
	case st.Concurrency > results.MaxConcurrency:
		return fmt.Sprintf("concurrency %d is above the largest a plan allows (%d)", st.Concurrency, results.MaxConcurrency)
	case math.IsNaN(q) || math.IsInf(q, 0):
		return "ops_per_s is not a finite number"
	case q < 0:
		return fmt.Sprintf("ops_per_s %g is negative", q)
	case q == 0 && (st.Ops > 0 || st.Calls > 0):
		return fmt.Sprintf("ops_per_s is missing or 0 although %d operations were counted", max(st.Ops, st.Calls))
	}
	return ""
}

// targetFailedNote names a step during which the target failed, which
// is not a measurement of the deployment.
func targetFailedNote(st *results.StepResult) string {
	level := fmt.Sprintf("C=%d", st.Concurrency)
	if st.Rate > 0 {
		level = fmt.Sprintf("rate=%d pool=%s", st.Rate, textfmt.Escape(st.PoolSetting))
	}
	return fmt.Sprintf("step %s trial %d: the target failed during the window (%s); left out", level, st.Trial, textfmt.Escape(st.TargetFailed.Reason))
}

// stepName names a step for a warning: "target=sim C=0 pool=match trial 1".
func stepName(st *results.StepResult) string {
	s := fmt.Sprintf("target=%s C=%d pool=%s", textfmt.Escape(st.Target), st.Concurrency, textfmt.Escape(st.PoolSetting))
	if st.Workload != "" {
		s += " workload=" + textfmt.Escape(st.Workload)
	}
	if st.Clients > 1 {
		s += fmt.Sprintf(" clients=%d", st.Clients)
	}
	return s + fmt.Sprintf(" trial %d", st.Trial)
}
