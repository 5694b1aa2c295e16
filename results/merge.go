package results

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"reflect"
	"slices"
	"strings"
	"time"
)

// MergeAgents merges the results of one agent-mode run, one file per
// agent, into the results of the whole run: each step's ops, calls,
// errors and connections summed, its histograms merged (so percentiles
// are exact, not averaged), each agent's share kept under agents and the
// skew of their windows shown. A step some agent has no record of is
// partial and names it. Files of different runs or plans are refused,
// naming the file. A merged step counts the clients of the agents whose
// records it holds (agents × --clients when every agent measured it;
// fewer in a partial step), so it reads like a --clients run of one
// process, and its per-client numbers are those of the clients that ran.
//
// label, when not nil, is handed every merged step in order, so that each
// is labelled as a sweep labels its own steps: what bound it and Little's
// law over all the agents' clients (a starved agent shows as client-bound:
// the merged step carries the busiest agent's client CPU). The rules are
// not this package's: the caller passes them (bound.Judge's Judge).
func MergeAgents(files []*Results, label func(*StepResult)) (*Results, error) {
	if len(files) == 0 {
		return nil, fmt.Errorf("no results to merge")
	}
	byIndex := map[int]*Results{}
	var first *Results
	for _, f := range files {
		a := f.Header.Agents
		if a == nil || a.Index == nil {
			return nil, fmt.Errorf("%s: not one agent's results (its header has no agents.index); merge combines the files of one --agents run", f.Path)
		}
		if first == nil {
			first = f
		}
		fa := first.Header.Agents
		switch {
		case f.Header.RunID != first.Header.RunID:
			return nil, fmt.Errorf("%s is from run %s, %s from run %s: merge the files of one run", f.Path, f.Header.RunID, first.Path, first.Header.RunID)
		case a.PlanHash != fa.PlanHash || a.Count != fa.Count || a.ClientsPerAgent != fa.ClientsPerAgent:
			return nil, fmt.Errorf("%s was measured with another plan (hash %s, %d agents) than %s (hash %s, %d agents): merge the files of one run",
				f.Path, a.PlanHash, a.Count, first.Path, fa.PlanHash, fa.Count)
		case *a.Index < 0 || *a.Index >= a.Count:
			return nil, fmt.Errorf("%s: agent index %d is not in 0..%d", f.Path, *a.Index, a.Count-1)
		case byIndex[*a.Index] != nil:
			return nil, fmt.Errorf("%s and %s are both agent %d of run %s: give each agent's file once", byIndex[*a.Index].Path, f.Path, *a.Index, f.Header.RunID)
		}
		byIndex[*a.Index] = f
	}
	indexes := make([]int, 0, len(byIndex))
	for i := range byIndex {
		indexes = append(indexes, i)
	}
	slices.Sort(indexes)
	ref := byIndex[indexes[0]] // the leader's file when given
	count := ref.Header.Agents.Count

	out := &Results{Header: mergedHeader(ref, byIndex, indexes)}
	// Steps in the leader's order, then any only others measured.
	var keys []string
	seen := map[string]bool{}
	for _, i := range indexes {
		for _, s := range byIndex[i].Steps {
			if k := s.Key(); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	for _, k := range keys {
		var parts []agentPart
		for _, i := range indexes {
			f := byIndex[i]
			// The last record of the key counts, as for a resumed run.
			for j := len(f.Steps) - 1; j >= 0; j-- {
				if f.Steps[j].Key() == k {
					parts = append(parts, agentPart{index: i, host: f.Header.Agents.Host, file: f.Path, step: f.Steps[j]})
					break
				}
			}
		}
		m, err := mergeStep(parts, count, byIndex)
		if err != nil {
			return nil, err
		}
		out.Steps = append(out.Steps, m)
	}
	out.End = mergedEnd(ref, byIndex, indexes, out.Steps)
	for _, i := range indexes {
		for _, w := range byIndex[i].Warnings {
			out.Warnings = append(out.Warnings, fmt.Sprintf("agent %d: %s", i, w))
		}
	}
	if label != nil {
		for i := range out.Steps {
			label(&out.Steps[i])
		}
	}
	return out, nil
}

type agentPart struct {
	index int
	host  string
	file  string
	step  StepResult
}

func mergedHeader(ref *Results, byIndex map[int]*Results, indexes []int) RunHeader {
	h := ref.Header
	ra := ref.Header.Agents
	agents := &AgentsHeader{Count: ra.Count, PlanHash: ra.PlanHash, ClientsPerAgent: ra.ClientsPerAgent, TimeoutS: ra.TimeoutS}
	var hosts []string
	cpus := 0
	for _, i := range indexes {
		f := byIndex[i]
		ma := MergedAgent{Index: i, Host: f.Header.Agents.Host, File: f.Path, Steps: len(f.Steps)}
		if f.End != nil {
			ma.Status, ma.Reason = f.End.Status, f.End.Reason
		}
		agents.Merged = append(agents.Merged, ma)
		if !slices.Contains(hosts, ma.Host) {
			hosts = append(hosts, ma.Host)
			cpus += f.Header.Client.CPUs
		}
	}
	h.Agents = agents
	h.Plan.Clients = max(ra.ClientsPerAgent, 1) * ra.Count
	h.Client.Hostname = strings.Join(hosts, ",")
	h.Client.CPUs = cpus
	return h
}

// mergeStep merges one step's records, one per agent that has it. The
// merged step's clients are those of the agents whose records it holds:
// a step some agent missed carries fewer clients, not the plan's.
func mergeStep(parts []agentPart, count int, byIndex map[int]*Results) (StepResult, error) {
	f := parts[0].step
	m := StepResult{Kind: KindStep, Target: f.Target, Workload: f.Workload, PoolSetting: f.PoolSetting, Concurrency: f.Concurrency,
		MaxPoolSize: f.MaxPoolSize, Trial: f.Trial, OpsByType: map[string]OpTypeStats{}, Phases: &StepPhases{},
		ReadPreference: f.ReadPreference, WriteConcern: f.WriteConcern}
	var (
		calls, checkouts []sourced
		ops              = map[string][]sourced{}
		durations        float64
		cpuFrac          = -1.0
	)
	missing := map[int]MissingAgent{}
	for _, p := range parts {
		s := p.step
		where := fmt.Sprintf("%s: step %s C=%d P=%s trial %d", p.file, s.Target, s.Concurrency, s.PoolSetting, s.Trial)
		if s.Histograms == nil || s.Histograms.Call == "" || s.Histograms.CheckoutWait == "" {
			return m, fmt.Errorf("%s has no histograms; merging needs the histograms every step of an agent run records", where)
		}
		calls = append(calls, sourced{where, s.Histograms.Call})
		checkouts = append(checkouts, sourced{where + " checkout wait", s.Histograms.CheckoutWait})
		for typ, st := range s.OpsByType {
			enc, ok := s.Histograms.Ops[typ]
			if !ok {
				return m, fmt.Errorf("%s has no %s histogram", where, typ)
			}
			ops[typ] = append(ops[typ], sourced{where + " " + typ, enc})
			agg := m.OpsByType[typ]
			agg.Count += st.Count
			agg.PerS += st.PerS
			agg.Errors += st.Errors
			m.OpsByType[typ] = agg
		}
		m.Clients += max(s.Clients, 1)
		m.Calls += s.Calls
		m.Ops += s.Ops
		m.OpsAfterClose += s.OpsAfterClose
		m.CallsPerS += s.CallsPerS
		m.OpsPerS += s.OpsPerS
		m.Errors.Timeout += s.Errors.Timeout
		m.Errors.Network += s.Errors.Network
		m.Errors.Server += s.Errors.Server
		m.ErrorSample = cmp.Or(m.ErrorSample, s.ErrorSample)
		m.Connections += s.Connections
		m.Interrupted = m.Interrupted || s.Interrupted
		if m.TargetFailed == nil && s.TargetFailed != nil {
			// The target failed during an agent's window: the merged step
			// is no measurement either (the lowest index's evidence).
			f := *s.TargetFailed
			m.TargetFailed = &f
		}
		if m.PrimaryChange == nil && s.PrimaryChange != nil {
			pc := *s.PrimaryChange
			m.PrimaryChange = &pc
		}
		m.Pool.Hosts = addHostPools(m.Pool.Hosts, s.Pool.Hosts)
		m.InFlightAtClose += s.InFlightAtClose
		m.LoadedKeyOps += s.LoadedKeyOps
		m.NotFound += s.NotFound
		m.OldestInFlightMS = max(m.OldestInFlightMS, s.OldestInFlightMS)
		durations += s.DurationS
		m.Pool.CheckoutFailed += s.Pool.CheckoutFailed
		m.Pool.ConnectionsOpen += s.Pool.ConnectionsOpen
		m.Pool.ConnectionsMax += s.Pool.ConnectionsMax
		m.Pool.ConnectionsCreated += s.Pool.ConnectionsCreated
		m.Pool.ConnectionsLost += s.Pool.ConnectionsLost
		m.Pool.PrewarmS = max(m.Pool.PrewarmS, s.Pool.PrewarmS)
		if s.Phases != nil {
			maxPhases(m.Phases, s.Phases)
		}
		if m.Server == nil {
			m.Server = s.Server // every agent sampled the same servers; the lowest index's
		}
		if c := s.Client; c != nil && c.CPUs > 0 && c.CPUPct/float64(c.CPUs) > cpuFrac {
			// The busiest agent: a starved client anywhere shows.
			cp := *c
			m.Client, cpuFrac = &cp, c.CPUPct/float64(c.CPUs)
		}
		for _, w := range s.Warnings {
			m.Warnings = append(m.Warnings, fmt.Sprintf("agent %d: %s", p.index, w))
		}
		for _, ma := range s.MissingAgents {
			if _, ok := missing[ma.Index]; !ok {
				missing[ma.Index] = ma
			}
		}
		m.Agents = append(m.Agents, share(p))
	}
	m.DurationS = durations / float64(len(parts))
	callH, err := mergeEncoded(calls)
	if err != nil {
		return m, err
	}
	m.Latency = NewLatencySummary(callH)
	m.Histograms = &StepHistograms{Call: EncodeHistogram(callH), Ops: map[string]string{}}
	for typ, encs := range ops {
		h, err := mergeEncoded(encs)
		if err != nil {
			return m, err
		}
		st := m.OpsByType[typ]
		st.Latency = NewLatencySummary(h)
		m.OpsByType[typ] = st
		m.Histograms.Ops[typ] = EncodeHistogram(h)
	}
	checkH, err := mergeEncoded(checkouts)
	if err != nil {
		return m, err
	}
	m.Pool.CheckoutWait = NewQuantiles(checkH)
	m.Histograms.CheckoutWait = EncodeHistogram(checkH)

	// Agents with no record of the step: named by the leader, or found
	// missing here.
	have := map[int]bool{}
	for _, p := range parts {
		have[p.index] = true
		if ma, ok := missing[p.index]; ok {
			m.Warnings = append(m.Warnings, fmt.Sprintf("agent %d was reported missing (%s) but recorded the step; its record is included", p.index, ma.Reason))
			delete(missing, p.index)
		}
	}
	for i := range count {
		if have[i] {
			continue
		}
		if _, ok := missing[i]; ok {
			continue
		}
		ma := MissingAgent{Index: i, Reason: "no results file of this agent was merged"}
		if f := byIndex[i]; f != nil {
			ma.Host = f.Header.Agents.Host
			ma.Reason = fmt.Sprintf("%s has no record of this step (the agent skipped it or did not finish it)", f.Path)
		}
		missing[i] = ma
	}
	for _, i := range slices.Sorted(maps.Keys(missing)) {
		m.MissingAgents = append(m.MissingAgents, missing[i])
	}
	m.Partial = len(m.MissingAgents) > 0
	m.StartedAt, m.WindowSkew = skew(m.Agents)
	m.Steady, m.Warnings = fleetSteady(parts, m.Warnings)
	if m.Warnings, err = mergeProfileStep(&m, parts, m.Warnings); err != nil {
		return m, err
	}
	if m.Open != nil {
		m.Open.Corrected = m.Latency
	}
	return m, nil
}

// fleetSteady is a merged step's steady record: the fleet's, which the
// leader decided and handed to every agent (the lowest index's, as the
// agents' files should all hold the same); nil when the agents' records
// are each their own (fixed lengths: one agent's interval is not the
// merged step's). An agent whose record differs is warned about.
func fleetSteady(parts []agentPart, warnings []string) (*StepSteady, []string) {
	var s *StepSteady
	for _, p := range parts {
		ps := p.step.Steady
		switch {
		case ps == nil || ps.FleetAgents == 0:
		case s == nil:
			c := *ps
			s = &c
		case !reflect.DeepEqual(*s, *ps):
			warnings = append(warnings, fmt.Sprintf("agent %d's steady record is not the leader's (window end %s, half-width %s); the merged step keeps the first", p.index, ps.WindowEnd, fmtPct(ps.HalfWidthPct)))
		}
	}
	return s, warnings
}

func fmtPct(p *float64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprintf("%.2f%%", *p)
}

func maxPhases(m, p *StepPhases) {
	m.Check = max(m.Check, p.Check)
	m.Prewarm = max(m.Prewarm, p.Prewarm)
	m.Warmup = max(m.Warmup, p.Warmup)
	m.Window = max(m.Window, p.Window)
	m.Teardown = max(m.Teardown, p.Teardown)
	m.Barrier = max(m.Barrier, p.Barrier)
}

// share is one agent's line in a merged step; its window is on the
// reference clock when the agent recorded one.
func share(p agentPart) AgentShare {
	s := p.step
	a := AgentShare{Index: p.index, Host: p.host, Ops: s.Ops, Calls: s.Calls, OpsPerS: s.OpsPerS, CallsPerS: s.CallsPerS,
		Errors: s.Errors, Connections: s.Connections, Latency: s.Latency, Bound: s.Bound,
		WindowStart: s.StartedAt, WindowEnd: s.StartedAt.Add(time.Duration(s.DurationS * float64(time.Second)))}
	if s.Agent != nil {
		a.WindowStart, a.WindowEnd = s.Agent.WindowStart, s.Agent.WindowEnd
	}
	if s.Client != nil {
		v := s.Client.CPUPct
		a.ClientCPUPct = &v
	}
	return a
}

// skew measures how the agents' windows lined up, and returns the
// earliest start as the merged step's start.
func skew(shares []AgentShare) (time.Time, *WindowSkew) {
	minS, maxS := shares[0].WindowStart, shares[0].WindowStart
	minE, maxE := shares[0].WindowEnd, shares[0].WindowEnd
	for _, a := range shares[1:] {
		minS, maxS = earliest(minS, a.WindowStart), latest(maxS, a.WindowStart)
		minE, maxE = earliest(minE, a.WindowEnd), latest(maxE, a.WindowEnd)
	}
	ws := &WindowSkew{StartMS: ms(maxS.Sub(minS)), EndMS: ms(maxE.Sub(minE)), Overlap: 1}
	if union := maxE.Sub(minS); union > 0 {
		ws.Overlap = max(0, min(1, float64(minE.Sub(maxS))/float64(union)))
	}
	return minS, ws
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func latest(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// mergedEnd is the run's end: the leader's status (failed when its file
// has no end record), partial when it was complete but a step ran
// without some agents.
func mergedEnd(ref *Results, byIndex map[int]*Results, indexes []int, steps []StepResult) *EndRecord {
	end := &EndRecord{Kind: KindEnd, Status: StatusFailed, Steps: len(steps)}
	if ref.End != nil {
		end.Status, end.Reason, end.Planned, end.Signal = ref.End.Status, ref.End.Reason, ref.End.Planned, ref.End.Signal
		end.FailedSteps = ref.End.FailedSteps
	} else {
		end.Reason = fmt.Sprintf("%s has no end record (the agent was killed?)", ref.Path)
	}
	if indexes[0] != 0 {
		end.Reason = joinReasons(end.Reason, "the leader's (agent 0's) results were not merged")
	}
	for _, i := range indexes {
		f := byIndex[i]
		if f.End != nil {
			end.FinishedAt = latest(end.FinishedAt, f.End.FinishedAt)
		}
	}
	partial := 0
	for _, s := range steps {
		if s.Partial {
			partial++
		}
	}
	if partial > 0 {
		if end.Status == StatusComplete {
			end.Status = StatusPartial
		}
		end.Reason = joinReasons(end.Reason, fmt.Sprintf("%d of %d merged step(s) are partial: some agents have no record of them (see missing_agents)", partial, len(steps)))
	}
	return end
}

// WriteResults encodes res as results.jsonl: the header, the steps and
// the end record, one line each.
func WriteResults(w io.Writer, res *Results) error {
	enc := json.NewEncoder(w)
	if err := enc.Encode(res.Header); err != nil {
		return err
	}
	for _, s := range res.Steps {
		if err := enc.Encode(s); err != nil {
			return err
		}
	}
	if res.End != nil {
		return enc.Encode(res.End)
	}
	return nil
}

// joinReasons joins two reasons of an end record with "; ", leaving out
// an empty one.
func joinReasons(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// addHostPools adds one agent's pools per server to the merged step's:
// counts add up, as the step's own do. Their checkout waits have no
// histograms per server, so the merged quantiles are the largest of the
// agents' (an upper bound) and the mean is weighted by checkouts.
func addHostPools(into, add []HostPool) []HostPool {
	for _, h := range add {
		i := slices.IndexFunc(into, func(x HostPool) bool { return x.Host == h.Host })
		if i < 0 {
			into = append(into, h)
			continue
		}
		m := &into[i]
		if n := m.Checkouts + h.Checkouts; n > 0 {
			m.CheckoutWait.Mean = (m.CheckoutWait.Mean*float64(m.Checkouts) + h.CheckoutWait.Mean*float64(h.Checkouts)) / float64(n)
		}
		m.CheckoutWait.P50 = max(m.CheckoutWait.P50, h.CheckoutWait.P50)
		m.CheckoutWait.P99 = max(m.CheckoutWait.P99, h.CheckoutWait.P99)
		m.CheckoutWait.Max = max(m.CheckoutWait.Max, h.CheckoutWait.Max)
		m.Role = cmp.Or(m.Role, h.Role)
		m.ConnectionsOpen += h.ConnectionsOpen
		m.ConnectionsMax += h.ConnectionsMax
		m.InUseMax += h.InUseMax
		m.ConnectionsCreated += h.ConnectionsCreated
		m.ConnectionsLost += h.ConnectionsLost
		m.Checkouts += h.Checkouts
		m.CheckoutFailed += h.CheckoutFailed
	}
	slices.SortFunc(into, func(a, b HostPool) int { return strings.Compare(a.Host, b.Host) })
	return into
}
