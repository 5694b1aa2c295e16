package results

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// A profile step of an agent run (sweep --profile with agents): every
// agent offers its clients' share of the one profile from the moment
// they agreed on, so their timelines share one clock, and the leader
// alone fires the events. The merged step sums the timelines interval by
// interval, keeps the leader's events with every agent's reconnect
// storms joined host by host, and sums the open loop's counts. Its
// summaries are computed again from the merged timeline by the caller
// (MergeAgents' label: analysis/timeline.Resummarize), since results does
// not judge.

// mergeProfileStep fills m's profile-step fields from the agents' parts.
func mergeProfileStep(m *StepResult, parts []agentPart, warnings []string) ([]string, error) {
	var ref *StepResult
	for i := range parts {
		if s := &parts[i].step; s.Mode == ModeProfile && s.Profile != nil {
			ref = s
			break
		}
	}
	if ref == nil {
		return warnings, nil
	}
	m.Mode, m.Rate = ref.Mode, ref.Rate
	if ref.PoolOptions != nil {
		o := *ref.PoolOptions
		m.PoolOptions = &o
	}
	ps := &ProfileStats{Spec: ref.Profile.Spec, PeakRate: ref.Profile.PeakRate, Phases: slices.Clone(ref.Profile.Phases),
		Timeline: Timeline{IntervalS: ref.Profile.Timeline.IntervalS}, Summary: ref.Profile.Summary}
	var tls []Timeline
	for _, p := range parts {
		s := p.step
		if s.Profile == nil {
			return warnings, fmt.Errorf("%s: step %s trial %d is a profile step in another agent's file but not in this one", p.file, s.Target, s.Trial)
		}
		if s.Profile.Spec != ps.Spec || s.Profile.Timeline.IntervalS != ps.Timeline.IntervalS {
			return warnings, fmt.Errorf("%s: step %s trial %d ran profile %q in intervals of %v s, another agent %q in %v s: merge the files of one run",
				p.file, s.Target, s.Trial, s.Profile.Spec, s.Profile.Timeline.IntervalS, ps.Spec, ps.Timeline.IntervalS)
		}
		tls = append(tls, s.Profile.Timeline)
	}
	ps.Timeline.Intervals = mergeIntervals(tls)
	var evs [][]StepEvent
	for _, p := range parts {
		evs = append(evs, p.step.Profile.Events)
	}
	var w string
	ps.Events, w = mergeEvents(evs, ps.Timeline)
	if w != "" {
		warnings = append(warnings, w)
	}
	m.Profile = ps
	m.Open = mergeOpen(parts)
	return warnings, nil
}

// mergeIntervals sums timelines of one clock interval by interval. The
// counts add up; each connection count (open, in use, per host) is the
// sum of what each agent held at the interval's end, an agent's last
// carried past the end of its shorter timeline. A latency quantile of
// the fleet lies between the agents' (the mixture of their
// distributions), so each interval's p50, p99 and checkout waits are the
// highest agent's: an upper bound, exact when one agent carries the
// interval.
func mergeIntervals(tls []Timeline) []TimelineInterval {
	n := 0
	for _, tl := range tls {
		n = max(n, len(tl.Intervals))
	}
	out := make([]TimelineInterval, n)
	for i := range out {
		o := &out[i]
		hosts := map[string]*HostInterval{}
		for _, tl := range tls {
			if len(tl.Intervals) == 0 {
				continue
			}
			if i >= len(tl.Intervals) {
				last := tl.Intervals[len(tl.Intervals)-1]
				o.Open += last.Open
				o.InUse += last.InUse
				for _, h := range last.Hosts {
					addHostOpen(hosts, HostInterval{Host: h.Host, Open: h.Open})
				}
				continue
			}
			iv := tl.Intervals[i]
			o.Offered += iv.Offered
			o.Calls += iv.Calls
			o.Ops += iv.Ops
			o.Dropped += iv.Dropped
			o.Open += iv.Open
			o.InUse += iv.InUse
			o.Created += iv.Created
			o.Closed += iv.Closed
			o.Clears += iv.Clears
			o.RetriedOK += iv.RetriedOK
			o.P50MS, o.P99MS = higherMS(o.P50MS, iv.P50MS), higherMS(o.P99MS, iv.P99MS)
			o.CheckoutWaitP99MS, o.CheckoutWaitMaxMS = higherMS(o.CheckoutWaitP99MS, iv.CheckoutWaitP99MS), higherMS(o.CheckoutWaitMaxMS, iv.CheckoutWaitMaxMS)
			if e := iv.Errors; e != nil {
				if o.Errors == nil {
					o.Errors = &ErrorCounts{}
				}
				o.Errors.Timeout += e.Timeout
				o.Errors.Network += e.Network
				o.Errors.Server += e.Server
				o.Errors.NotWritablePrimary += e.NotWritablePrimary
				o.Errors.PoolCleared += e.PoolCleared
			}
			for _, h := range iv.Hosts {
				addHostOpen(hosts, h)
			}
		}
		for _, h := range hosts {
			o.Hosts = append(o.Hosts, *h)
		}
		slices.SortFunc(o.Hosts, func(a, b HostInterval) int { return cmp.Compare(a.Host, b.Host) })
		if len(o.Hosts) > MaxHostIntervals {
			o.Hosts = o.Hosts[:MaxHostIntervals]
		}
	}
	return out
}

func addHostOpen(hosts map[string]*HostInterval, h HostInterval) {
	m, ok := hosts[h.Host]
	if !ok {
		m = &HostInterval{Host: h.Host}
		hosts[h.Host] = m
	}
	m.Open += h.Open
	m.Created += h.Created
	m.Closed += h.Closed
}

func higherMS(a, b *float64) *float64 {
	if b == nil || a != nil && *a >= *b {
		return a
	}
	v := *b
	return &v
}

// mergeEvents are the fleet's events: the leader's record of each (when
// and how it was fired; the followers hold it at its planned time, by
// the leader), with the reconnect storms of every agent's clients joined
// host by host. Without the leader's record the followers' stand, with a
// warning.
func mergeEvents(byAgent [][]StepEvent, tl Timeline) ([]StepEvent, string) {
	var out []StepEvent
	for _, evs := range byAgent {
		if len(evs) > 0 && !slices.ContainsFunc(evs, func(e StepEvent) bool { return e.Via == EventViaLeader }) {
			out = slices.Clone(evs)
			break
		}
	}
	warning := ""
	if out == nil {
		for _, evs := range byAgent {
			if len(evs) > 0 {
				out = slices.Clone(evs)
				warning = "no merged file holds the leader's record of the events: they are shown at their planned times, not when they were fired"
				break
			}
		}
	}
	for i := range out {
		var storms []ReconnectStorm
		for _, evs := range byAgent {
			k := slices.IndexFunc(evs, func(e StepEvent) bool { return e.Spec == out[i].Spec })
			if k >= 0 {
				storms = append(storms, evs[k].Storms...)
			}
		}
		out[i].Storms = joinStorms(storms, tl)
		out[i].Summary = nil
	}
	return out, warning
}

// joinStorms joins the agents' storms on each host into the fleet's: from
// the earliest start to the latest connection ready, the connections and
// clients summed; the peak rate read again from the merged timeline.
func joinStorms(ss []ReconnectStorm, tl Timeline) []ReconnectStorm {
	var out []ReconnectStorm
	readyAt := map[string]*float64{}
	for _, s := range ss {
		var end *float64
		if s.RefillS != nil {
			end = new(s.StartS + *s.RefillS)
		}
		k := slices.IndexFunc(out, func(o ReconnectStorm) bool { return o.Host == s.Host })
		if k < 0 {
			s.Establishment = nil
			out = append(out, s)
			readyAt[s.Host] = end
			continue
		}
		o := &out[k]
		o.StartS, o.LastCreatedS = min(o.StartS, s.StartS), max(o.LastCreatedS, s.LastCreatedS)
		o.Created += s.Created
		o.NotReady += s.NotReady
		o.Clients += s.Clients
		if r := readyAt[s.Host]; r == nil || end == nil {
			readyAt[s.Host] = nil
		} else {
			*r = max(*r, *end)
		}
	}
	for i := range out {
		o := &out[i]
		o.RefillS, o.SetupPerS = nil, nil
		if r := readyAt[o.Host]; r != nil {
			refill := math.Round((*r-o.StartS)*1000) / 1000
			o.RefillS = &refill
			if refill > 0 {
				o.SetupPerS = new(math.Round(float64(o.Created)/refill*10) / 10)
			}
		}
		o.PeakCreatedPerS = StormPeakCreatedPerS(tl, o.Host, o.StartS, o.LastCreatedS)
	}
	slices.SortStableFunc(out, func(a, b ReconnectStorm) int { return cmp.Compare(b.Created, a.Created) })
	return out
}

// StormPeakCreatedPerS is the most connections created to host in one
// interval of tl, from the one holding from to the one holding to, per
// second.
func StormPeakCreatedPerS(tl Timeline, host string, from, to float64) float64 {
	if !(tl.IntervalS > 0) {
		return 0
	}
	var peak int64
	for i := max(int(from/tl.IntervalS), 0); i < len(tl.Intervals) && float64(i)*tl.IntervalS <= to; i++ {
		for _, h := range tl.Intervals[i].Hosts {
			if h.Host == host {
				peak = max(peak, h.Created)
			}
		}
	}
	return math.Round(float64(peak)/tl.IntervalS*10) / 10
}

// mergeOpen is the agents' open-loop counts summed: arrivals, rates, the
// calls in flight (the most at once is the sum of each agent's most, an
// upper bound); the corrected latency is the merged step's (the calls'
// histograms merged). The uncorrected latency and the latency's split
// are each agent's own and are left out (the leader's split is kept, as
// the server telemetry is, with the others' in each agent's share).
func mergeOpen(parts []agentPart) *OpenLoopStats {
	var out *OpenLoopStats
	for _, p := range parts {
		o := p.step.Open
		if o == nil {
			continue
		}
		if out == nil {
			c := *o
			c.Uncorrected, c.LatencyTrend = nil, nil
			c.Offered, c.OfferedPerS, c.AchievedPerS, c.Dropped, c.NotIssued, c.InFlightMean, c.InFlightMax, c.MaxInFlight = 0, 0, 0, 0, 0, 0, 0, 0
			out = &c
		}
		out.MaxInFlight += o.MaxInFlight
		out.Offered += o.Offered
		out.OfferedPerS += o.OfferedPerS
		out.AchievedPerS += o.AchievedPerS
		out.Dropped += o.Dropped
		out.NotIssued += o.NotIssued
		out.InFlightMean += o.InFlightMean
		out.InFlightMax += o.InFlightMax
	}
	return out
}
