package knee

import (
	"cmp"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/results"
)

// maxStepWarnings bounds the per-step warnings of one series; the rest are
// counted in one line.
const maxStepWarnings = 5

// FromResults turns decoded results files into series, one per target ×
// workload × pool setting × clients, in the order they first appear.
// Open-loop steps (mode "open") are not on a concurrency curve and are
// left to OpenFromResults; neither are the probes of a pool search (a
// numbered pool at the knee's concurrency, search mode "pool"), whose
// answer is the search's own (the end record's reason).
//
// Steps that cannot be read as a measurement are left out with a warning
// naming them, never read as zeros: interrupted steps (their window was cut
// short), steps during which the target failed (target_failed), and steps with a concurrency below 1 or above what a plan allows,
// a negative or non-finite ops/s, or an ops/s of 0 (or missing) although
// operations were counted. The results reader validates records too; this
// keeps the analysis honest whatever hands it a Results.
//
// Partial steps (an agent run's steps that ran without some agents) are
// left out too, and named with the agents they ran without: their load is
// not their level's (fewer clients than planned, or an agent that died in
// the window and whose operations are missing from the sums), so a point
// among full steps would bend the curve, and a curve of them would mix
// loads. They are counted in the series they were planned in (the run's
// plan.clients), so the knee, peak and recommendation come from full steps
// only, and analysis.MissingSteps lists them as not measured.
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
	partial := map[key][]string{}
	for _, res := range rs {
		if res == nil {
			continue
		}
		targets := map[string]results.TargetHeader{}
		for _, t := range res.Header.Targets {
			targets[t.Name] = t
		}
		for i, st := range res.Steps {
			if st.Mode == results.ModeOpen || st.Mode == results.ModeProfile {
				continue // no concurrency curve: OpenFromResults, or a profile's timeline (analysis.Scenarios)
			}
			if poolProbe(&st) {
				continue // the pool search's, not a curve
			}
			k := key{st.Target, st.Workload, st.PoolSetting, max(st.Clients, 1)}
			if st.Partial && res.Header.Plan.Clients > 0 {
				k.clients = res.Header.Plan.Clients // the series it was planned in
			}
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
				bad[k] = append(bad[k], TargetFailedNote(&st))
				continue
			}
			if pc := st.PrimaryChange; pc != nil {
				bad[k] = append(bad[k], fmt.Sprintf("step C=%d trial %d: the primary changed during the window (%s → %s): it measured an election; left out",
					st.Concurrency, st.Trial, textfmt.Escape(cmp.Or(pc.Before, "none")), textfmt.Escape(cmp.Or(pc.After, "none"))))
				continue
			}
			s.ReadPreference = st.ReadPreference
			s.HostsReached = max(s.HostsReached, HostsReached(&st))
			s.HostPools = max(s.HostPools, len(st.Pool.Hosts))
			if st.Partial {
				partial[k] = append(partial[k], partialName(&st))
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
				HalfWidthPct:      halfWidthPct(&st),
				HasInterval:       hasThroughputInterval(&st),
				Unsettled:         st.Steady.Unsettled(),
			})
		}
	}
	out := make([]Series, 0, len(order))
	for _, k := range order {
		s := by[k]
		if n := skipped[k]; n > 0 {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%d interrupted step(s) left out", n))
		}
		if p := partial[k]; len(p) > 0 {
			s.Warnings = append(s.Warnings, partialWarning(p, k.clients))
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

// OnCurve says st is a point of a concurrency curve as FromResults reads
// it: a closed-loop step (not open-loop, not a profile's) measured over its whole window (results'
// Measured: not interrupted, the target did not fail) with every agent,
// not a pool search's probe. (FromResults also leaves out a step whose
// numbers are unusable, with a warning.) Figures draw exactly these steps.
func OnCurve(st *results.StepResult) bool {
	return (st.Kind == "" || st.Kind == results.KindStep) && st.Mode != results.ModeOpen && st.Mode != results.ModeProfile && !poolProbe(st) && st.Measured() && !st.Partial
}

// poolProbe says st is a pool search's probe: a numbered maxPoolSize tried
// at the knee's concurrency, one point per size, not a concurrency curve.
func poolProbe(st *results.StepResult) bool {
	return st.Search != nil && st.Search.Mode == results.SearchPool && st.PoolSetting != "match"
}

// SearchOptions are the options a search analyses with: o, with the pool
// search's p99 SLO (--slo-p99 of sweep --search pool) when o has none.
// The search and every reader of a searched run use them, so that the
// knee the search located is the knee they report.
func SearchOptions(o Options, sp *results.SearchPlan) Options {
	if sp != nil && o.SLOP99 == 0 && sp.SLOP99Ms > 0 {
		o.SLOP99 = time.Duration(sp.SLOP99Ms * float64(time.Millisecond))
	}
	return o
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

// reachedShare is the share of a step's checkouts a server must take to
// count as one its ops reached (not a stray ping or a retry).
const reachedShare = 0.05

// HostsReached is how many servers a step's ops went to: those that took
// at least reachedShare of its checkouts (pool.hosts); 0 when the step has
// no numbers per server.
func HostsReached(st *results.StepResult) int {
	var total int64
	for _, h := range st.Pool.Hosts {
		total += h.Checkouts
	}
	n := 0
	for _, h := range st.Pool.Hosts {
		if total > 0 && float64(h.Checkouts) >= reachedShare*float64(total) {
			n++
		}
	}
	return n
}

// TargetFailedNote is the warning that leaves out a step during which the
// target failed, which is not a measurement of the deployment; the closed
// and the open loop's series both say it so.
func TargetFailedNote(st *results.StepResult) string {
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

// partialName names a partial step and the agents it ran without:
// "C=64 trial 1 (without agent 2 on load3: stopped answering during the step)".
func partialName(st *results.StepResult) string {
	var without []string
	for _, m := range st.MissingAgents {
		who := fmt.Sprintf("agent %d", m.Index)
		if m.Host != "" {
			who += " on " + textfmt.Escape(m.Host)
		}
		without = append(without, who+": "+textfmt.Escape(m.Reason))
	}
	name := fmt.Sprintf("C=%d trial %d", st.Concurrency, st.Trial)
	if len(without) == 0 {
		return name + " (without some agents)"
	}
	return name + " (without " + strings.Join(without, "; ") + ")"
}

// partialWarning is a series' line on its partial steps.
func partialWarning(names []string, planned int) string {
	shown := names
	if len(shown) > maxStepWarnings {
		shown = shown[:maxStepWarnings]
	}
	s := fmt.Sprintf("%d partial step(s) left out of the knee, peak and recommendation: they ran without some agents, so they carried less than the planned %d clients' load: %s",
		len(names), planned, strings.Join(shown, ", "))
	if len(names) > len(shown) {
		s += fmt.Sprintf(", and %d more", len(names)-len(shown))
	}
	return s
}

// hasThroughputInterval says the step's window gives its ops/s an
// interval (results.StepSteady.ThroughputInterval).
func hasThroughputInterval(st *results.StepResult) bool {
	_, ok := st.Steady.ThroughputHalfWidthPct()
	return ok
}
