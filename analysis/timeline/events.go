package timeline

import (
	"fmt"
	"math"
	"slices"

	"github.com/poolsweep/poolsweep/results"
)

// SummarizeEvents returns ps's events, in order, each with its Summary
// computed from ps's timeline and phases (ps itself is not changed). An
// event that could not be performed (its Error set) gets no summary. The
// engine calls it once as the step is recorded, stores the result in
// ps.Events, and adds what the servers said with SetServerConns. need caps the refill target as it caps a burst's fill
// target.
func SummarizeEvents(ps *results.ProfileStats, need Need) []results.StepEvent {
	out := slices.Clone(ps.Events)
	for i := range out {
		out[i].Summary = nil
		if out[i].Error != "" {
			continue
		}
		prevEnd, nextFired := math.Inf(-1), math.Inf(1)
		if i > 0 {
			prevEnd = eventEnd(out[i-1])
		}
		if i+1 < len(out) {
			nextFired = out[i+1].FiredS
		}
		s := summarizeEvent(ps, out[i], prevEnd, nextFired, need)
		out[i].Summary = &s
	}
	return out
}

// eventEnd is when an event's trigger was gone, its firing time when the
// step ended first.
func eventEnd(ev results.StepEvent) float64 {
	if ev.EndS != nil {
		return *ev.EndS
	}
	return ev.FiredS
}

// summarizeEvent is one event's summary. prevEnd is when the step's
// previous event ended (−Inf without one): the steady state the event is
// measured against starts no earlier; nextFired when the next one fired
// (+Inf without one): the event's recovery is judged no later.
//
// The figures, each absent (nil) with a note where the step gives no
// evidence for it:
//   - The steady state before the event is that of the phase the event
//     fires in, taken as a burst's is (the second half, batch means with
//     their 95 % interval), over the part of the phase before the event and
//     after the previous event's end. It needs a loaded phase of constant
//     rate.
//   - TimeToRecoverS is time to steady from the firing: from FiredS until
//     the start of the first trailing 1-s window after which every window
//     up to the phase's end (or the next event) holds a mean of calls/s
//     no lower, and of p99 no higher, than the steady band (where one
//     window of the steady state falls) widened by steadyTolerance (the
//     rule and the code of the burst's time to steady). nil when the last window is still
//     outside: the load never recovered within the phase.
//   - The span of the event is from its firing until the later of its
//     recovery and its trigger's end (until the step's end when it did not
//     recover): Errors, RetriedOK, the churn and PeakConnections sum or
//     take the peak over its intervals.
//   - TimeToRefillS is from the firing until the end of the first
//     interval whose open connections (every host but a stepped-down
//     primary, which keeps its connections idle while the load moves)
//     reach again the steady part's mean in use (rounded up, capped by
//     need: a burst's fill target), after the first interval from the
//     firing that held fewer; 0 when none did. RefillHosts is the same
//     for each host on its own, against the same target capped by one
//     host's pools: the time until the new primary, or the router the
//     load moved to, held what the load had held in use.
//   - P99DuringMS is the worst interval p99 from the firing until the
//     trigger's end (the step's end without one).
//   - DegradedAfter is whether the load was still outside the steady
//     interval as the phase ended (or the next event fired), the trigger
//     gone: nil when the trigger's
//     end is unknown, or the phase ends less than rollingS after it.
func summarizeEvent(ps *results.ProfileStats, ev results.StepEvent, prevEnd, nextFired float64, need Need) results.EventSummary {
	var s results.EventSummary
	t := view{ivs: ps.Timeline.Intervals, dt: ps.Timeline.IntervalS}
	if len(t.ivs) == 0 || !(t.dt > 0) {
		s.Notes = append(s.Notes, "the timeline holds no intervals: nothing to summarize")
		return s
	}
	i0 := max(t.index(ev.FiredS), 0)
	if i0 >= len(t.ivs) {
		s.Notes = append(s.Notes, fmt.Sprintf("fired at %s s, after the timeline's end", num(ev.FiredS)))
		return s
	}
	// The trigger's end as an interval bound (exclusive): the first
	// interval that starts at or after it.
	trigEnd := len(t.ivs)
	if ev.EndS != nil {
		trigEnd = min(max(int(math.Ceil(*ev.EndS/t.dt-1e-9)), i0+1), len(t.ivs))
	} else {
		s.Notes = append(s.Notes, "the step ended before the trigger was gone")
	}
	s.P99DuringMS = t.worstP99(i0, trigEnd)
	if s.P99DuringMS == nil {
		s.Notes = append(s.Notes, "no call that started while the trigger lasted completed: no p99 during it")
	}

	spanEnd := len(t.ivs)
	ph, ok := phaseAt(ps.Phases, ev.FiredS)
	switch {
	case !ok:
		s.Notes = append(s.Notes, "no phase of the profile holds the event: no steady state to recover to")
	case !loaded(ph):
		s.Notes = append(s.Notes, "it fired in an idle spell: no steady state to recover to")
	case !constant(ph):
		s.Notes = append(s.Notes, fmt.Sprintf("it fired in a %s phase, not one of constant rate: no steady state to recover to", ph.Kind))
	default:
		// The second half of the phase before the event (after the
		// previous event's end).
		start := max(ph.StartS, prevEnd)
		from := int(math.Ceil((start+ev.FiredS)/2/t.dt - 1e-9))
		st := t.steady(from, i0)
		if st.perS == nil || st.p99 == nil {
			s.Notes = append(s.Notes, "the steady part before it "+st.short())
			break
		}
		s.RefillTarget = fillTarget(st.inUse, need)
		left := ""
		if ev.Action == results.EventStepDown {
			left = ev.Host
		}
		s.TimeToRefillS = t.refill(i0, ev.FiredS, s.RefillTarget, func(iv results.TimelineInterval) int { return iv.Open - hostOpen(iv, left) })
		if s.TimeToRefillS == nil {
			s.Notes = append(s.Notes, "open connections had not reached again what the steady state before it held in use by the step's end")
		}
		one := need
		one.Hosts = 1
		hostTarget := fillTarget(st.inUse, one)
		for _, h := range t.hosts(i0) {
			s.RefillHosts = append(s.RefillHosts, results.HostRefill{Host: h,
				TimeToRefillS: t.refill(i0, ev.FiredS, hostTarget, func(iv results.TimelineInterval) int { return hostOpen(iv, h) })})
		}
		phEnd := min(t.index(min(ph.EndS, nextFired)), len(t.ivs))
		if k := int(math.Round(rollingS / t.dt)); phEnd-i0 < k {
			s.Notes = append(s.Notes, fmt.Sprintf("its phase ends (or the next event fires) less than %s s after it: no time to recover", num(rollingS)))
			break
		}
		s.TimeToRecoverS = t.toSteady(ev.FiredS, phEnd, st.perSBand, st.p99Band)
		if s.TimeToRecoverS != nil {
			spanEnd = max(min(int(math.Ceil((ev.FiredS+*s.TimeToRecoverS)/t.dt-1e-9)), len(t.ivs)), trigEnd)
			if ev.EndS != nil {
				s.DegradedAfter = new(false)
			}
			break
		}
		s.Notes = append(s.Notes, "throughput or p99 was still outside the steady interval as its phase ended (or the next event fired)")
		switch {
		case ev.EndS == nil:
		case float64(phEnd)*t.dt-*ev.EndS < rollingS:
			s.Notes = append(s.Notes, fmt.Sprintf("its phase ends (or the next event fires) less than %s s after the trigger was gone: too soon to say whether the load stayed degraded", num(rollingS)))
		default:
			s.DegradedAfter = new(true)
		}
	}

	hosts := map[string]*results.HostPeak{}
	var order []string
	perHost := false
	for i := i0; i < spanEnd; i++ {
		iv := t.ivs[i]
		if iv.Errors != nil {
			addErrors(&s.Errors, *iv.Errors)
		}
		s.RetriedOK += iv.RetriedOK
		s.ConnectionsCreated += iv.Created
		s.ConnectionsClosed += iv.Closed
		s.PoolClears += iv.Clears
		for _, h := range iv.Hosts {
			perHost = true
			p, ok := hosts[h.Host]
			if !ok {
				p = &results.HostPeak{Host: h.Host}
				hosts[h.Host] = p
				order = append(order, h.Host)
			}
			p.Peak = max(p.Peak, h.Open)
		}
	}
	for _, h := range order {
		s.PeakConnections = append(s.PeakConnections, *hosts[h])
	}
	if !perHost {
		s.Notes = append(s.Notes, "the timeline holds no per-host connections: no peak per host")
	}
	return s
}

// refill is the time from at (in interval i0) until the end of the
// first interval whose open connections (as open counts them) reach
// target after the first interval from i0 that held fewer; 0 when none
// did; nil when they never reached it again.
func (t view) refill(i0 int, at float64, target int, open func(results.TimelineInterval) int) *float64 {
	dip := slices.IndexFunc(t.ivs[i0:], func(iv results.TimelineInterval) bool { return open(iv) < target })
	if dip < 0 {
		return ptr(0)
	}
	for i := i0 + dip + 1; i < len(t.ivs); i++ {
		if open(t.ivs[i]) >= target {
			return ptr(round(float64(i+1)*t.dt - at))
		}
	}
	return nil
}

// hosts are the hosts the timeline counts connections for from interval
// i0 on, in the order they first appear.
func (t view) hosts(i0 int) []string {
	var out []string
	for _, iv := range t.ivs[i0:] {
		for _, h := range iv.Hosts {
			if !slices.Contains(out, h.Host) {
				out = append(out, h.Host)
			}
		}
	}
	return out
}

// hostOpen is the connections open to host at iv's end: 0 for a host
// the interval does not list (none opened yet), or for no host ("").
func hostOpen(iv results.TimelineInterval, host string) int {
	if host == "" {
		return 0
	}
	for _, h := range iv.Hosts {
		if h.Host == host {
			return h.Open
		}
	}
	return 0
}

// phaseAt is the phase that holds time at: the last one starting at or
// before it.
func phaseAt(phases []results.ProfilePhase, at float64) (results.ProfilePhase, bool) {
	var out results.ProfilePhase
	ok := false
	for _, ph := range phases {
		if ph.StartS <= at+1e-9 && at < ph.EndS {
			out, ok = ph, true
		}
	}
	return out, ok
}

func addErrors(to *results.ErrorCounts, e results.ErrorCounts) {
	to.Timeout += e.Timeout
	to.Network += e.Network
	to.Server += e.Server
	to.NotWritablePrimary += e.NotWritablePrimary
	to.PoolCleared += e.PoolCleared
}

// ServerConns is what one host's server said of its connections over a
// step (its telemetry): the most it reported open (connections.current)
// and its limit (connections.current + available); nil where no sample
// said.
type ServerConns struct {
	Peak, Limit *int
}

// SetServerConns sets each summarized event's per-host ServerPeak and
// Limit from the step's telemetry, keyed by host as the timeline names
// them. A host the telemetry covers but the event's span had no pool to
// is added with a Peak of 0: the server's own count still tells how
// near its limit it came. The telemetry summarizes the step's window, so
// ServerPeak is the server's most over the step, which holds the event.
func SetServerConns(evs []results.StepEvent, by map[string]ServerConns) {
	hosts := make([]string, 0, len(by))
	for h := range by {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	for i := range evs {
		s := evs[i].Summary
		if s == nil {
			continue
		}
		for _, h := range hosts {
			c := by[h]
			if c.Peak == nil && c.Limit == nil {
				continue
			}
			k := slices.IndexFunc(s.PeakConnections, func(p results.HostPeak) bool { return p.Host == h })
			if k < 0 {
				s.PeakConnections = append(s.PeakConnections, results.HostPeak{Host: h})
				k = len(s.PeakConnections) - 1
			}
			s.PeakConnections[k].ServerPeak, s.PeakConnections[k].Limit = c.Peak, c.Limit
		}
	}
}
