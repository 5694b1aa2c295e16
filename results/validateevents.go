package results

import (
	"fmt"
	"strings"
)

// Bounds of events on read.
const (
	// MaxEvents bounds the events of a plan and of a step (sweep
	// --event).
	MaxEvents = 16
	// MaxHostIntervals bounds the hosts a timeline interval lists.
	MaxHostIntervals = 16
)

var eventActions = []string{EventStepDown, EventSlow, EventFreeze, EventReset, EventRouterRestart}

var eventVias = []string{"", EventViaSimulator, EventViaStepDown, EventViaFailPoint, EventViaLeader}

// checkEventSpecs: at most MaxEvents, each a known action at a time ≥ 0,
// slow with a factor above 1, slow and freeze with a length, and in time
// order.
func checkEventSpecs(c *check, field string, evs []EventSpec) {
	if len(evs) > MaxEvents {
		c.fail(field, "%d events, more than %d", len(evs), MaxEvents)
		return
	}
	for i, ev := range evs {
		checkEventSpec(c, fmt.Sprintf("%s[%d]", field, i), ev)
		if c.err == nil && i > 0 && ev.AtS < evs[i-1].AtS {
			c.fail(fmt.Sprintf("%s[%d].at_s", field, i), "%v is before the event before it (%v): events are in time order", ev.AtS, evs[i-1].AtS)
		}
	}
}

func checkEventSpec(c *check, f string, ev EventSpec) {
	if strings.TrimSpace(ev.Spec) == "" {
		c.fail(f+".spec", "empty")
	}
	c.oneOf(f+".action", ev.Action, eventActions)
	c.nonNeg(f+".at_s", ev.AtS)
	c.nonNeg(f+".factor", ev.Factor)
	c.nonNeg(f+".duration_s", ev.DurationS)
	if c.err != nil {
		return
	}
	switch {
	case ev.Action == EventSlow && ev.Factor <= 1:
		c.fail(f+".factor", "%v: a slowdown's factor is above 1", ev.Factor)
	case ev.Action != EventSlow && ev.Factor != 0:
		c.fail(f+".factor", "present for %s, which has none", ev.Action)
	case (ev.Action == EventSlow || ev.Action == EventFreeze) && ev.DurationS <= 0:
		c.fail(f+".duration_s", "missing: %s lasts a set time", ev.Action)
	case ev.Action != EventSlow && ev.Action != EventFreeze && ev.DurationS != 0:
		c.fail(f+".duration_s", "present for %s, which has none", ev.Action)
	}
}

// checkStepEvents: a profile step's events as planned, each fired at a
// time ≥ 0 and ended no earlier, with a known way and counts ≥ 0.
func checkStepEvents(c *check, evs []StepEvent) {
	if len(evs) > MaxEvents {
		c.fail("step.profile.events", "%d events, more than %d", len(evs), MaxEvents)
		return
	}
	for i := range evs {
		ev := &evs[i]
		f := fmt.Sprintf("step.profile.events[%d]", i)
		checkEventSpec(c, f, ev.EventSpec)
		c.finite(f+".fired_s", ev.FiredS)
		c.optNonNeg(f+".end_s", ev.EndS)
		c.oneOf(f+".via", ev.Via, eventVias)
		if c.err == nil && ev.EndS != nil && *ev.EndS < ev.FiredS {
			c.fail(f+".end_s", "%v is before fired_s %v", *ev.EndS, ev.FiredS)
		}
		checkStorms(c, f, ev.Storms)
		if s := ev.Summary; s != nil && c.err == nil {
			c.optNonNeg(f+".summary.time_to_recover_s", s.TimeToRecoverS)
			c.errorCounts(f+".summary.errors", s.Errors)
			c.count(f+".summary.retried_ok", s.RetriedOK)
			c.count(f+".summary.connections_created", s.ConnectionsCreated)
			c.count(f+".summary.connections_closed", s.ConnectionsClosed)
			c.count(f+".summary.pool_clears", s.PoolClears)
			c.optNonNeg(f+".summary.p99_during_ms", s.P99DuringMS)
			c.optNonNeg(f+".summary.time_to_refill_s", s.TimeToRefillS)
			c.count(f+".summary.refill_target", int64(s.RefillTarget))
			if len(s.RefillHosts) > MaxHostIntervals {
				c.fail(f+".summary.refill_hosts", "%d hosts, more than %d", len(s.RefillHosts), MaxHostIntervals)
			}
			for j, h := range s.RefillHosts {
				hf := fmt.Sprintf("%s.summary.refill_hosts[%d]", f, j)
				if h.Host == "" {
					c.fail(hf+".host", "empty")
				}
				c.optNonNeg(hf+".time_to_refill_s", h.TimeToRefillS)
			}
			for j, p := range s.PeakConnections {
				pf := fmt.Sprintf("%s.summary.peak_connections[%d]", f, j)
				c.count(pf+".peak", int64(p.Peak))
				if p.ServerPeak != nil {
					c.count(pf+".server_peak", int64(*p.ServerPeak))
				}
				if p.Limit != nil {
					c.count(pf+".limit", int64(*p.Limit))
				}
			}
		}
	}
}

// timelineHostsBad says what is wrong with an interval's hosts ("" when
// nothing).
func timelineHostsBad(iv *TimelineInterval) string {
	if len(iv.Hosts) > MaxHostIntervals {
		return fmt.Sprintf("%d hosts, more than %d", len(iv.Hosts), MaxHostIntervals)
	}
	for _, h := range iv.Hosts {
		if h.Open < 0 || h.Created < 0 || h.Closed < 0 {
			return fmt.Sprintf("host %s: open %d, created %d, closed %d: counts are never negative", h.Host, h.Open, h.Created, h.Closed)
		}
	}
	return ""
}

// checkStorms: an event's reconnect storms, each on a named host, its
// times finite and in order, its counts ≥ 0 and its rates ≥ 0.
func checkStorms(c *check, f string, ss []ReconnectStorm) {
	for j, s := range ss {
		sf := fmt.Sprintf("%s.reconnect_storms[%d]", f, j)
		if strings.TrimSpace(s.Host) == "" {
			c.fail(sf+".host", "empty")
		}
		c.finite(sf+".start_s", s.StartS)
		c.finite(sf+".last_created_s", s.LastCreatedS)
		c.count(sf+".created", s.Created)
		c.count(sf+".not_ready", s.NotReady)
		c.count(sf+".clients", int64(s.Clients))
		c.optNonNeg(sf+".refill_s", s.RefillS)
		c.optNonNeg(sf+".setup_per_s", s.SetupPerS)
		c.nonNeg(sf+".peak_created_per_s", s.PeakCreatedPerS)
		if c.err == nil && s.LastCreatedS < s.StartS {
			c.fail(sf+".last_created_s", "%v is before start_s %v", s.LastCreatedS, s.StartS)
		}
		if c.err == nil && s.NotReady > s.Created {
			c.fail(sf+".not_ready", "%d is more than the %d created", s.NotReady, s.Created)
		}
	}
}
