package timeline

import (
	"math"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// evSeg is a span of a synthetic event timeline: calls and p99 per
// 0.1-s interval, and what each interval's errors, retries, churn and
// hosts were.
type evSeg struct {
	s       float64
	calls   int64
	p99     float64 // 0: no call completed
	errs    *results.ErrorCounts
	retried int64
	created int64
	closed  int64
	clears  int64 // in the segment's first interval
	hosts   []results.HostInterval
	open    func(i int) int // nil: 10
	inUse   int
}

func evTimeline(segs ...evSeg) results.Timeline {
	tl := results.Timeline{IntervalS: 0.1}
	for _, sg := range segs {
		for i := range int(math.Round(sg.s / 0.1)) {
			iv := results.TimelineInterval{Offered: 10, Calls: sg.calls, Ops: sg.calls, Created: sg.created, Closed: sg.closed,
				RetriedOK: sg.retried, Hosts: sg.hosts, Open: 10, InUse: sg.inUse}
			if sg.open != nil {
				iv.Open = sg.open(i)
			}
			if i == 0 {
				iv.Clears = sg.clears
			}
			if sg.p99 > 0 {
				v := sg.p99 * (1 + 0.01*float64(i%3-1))
				iv.P99MS = &v
			}
			if sg.errs != nil {
				e := *sg.errs
				iv.Errors = &e
			}
			tl.Intervals = append(tl.Intervals, iv)
		}
	}
	return tl
}

func host(name string, open int) results.HostInterval {
	return results.HostInterval{Host: name, Open: open}
}

func fired(at float64, end *float64) results.StepEvent {
	return results.StepEvent{EventSpec: results.EventSpec{AtS: at, Action: results.EventStepDown}, FiredS: at, EndS: end, Via: results.EventViaSimulator}
}

// stepDown is 100 calls/s for 30 s at 5 ms on h1; a step-down at 10 s: 3 s
// without a primary (every call fails, not-writable-primary), then a
// second of refilling the pools on h2 at 50 ms (one connection more each
// interval), then 5 ms again on h2. The steady state holds 8 in use.
func stepDown() results.ProfileStats {
	nwp := &results.ErrorCounts{Server: 5, NotWritablePrimary: 5}
	h1 := []results.HostInterval{host("h1", 10), host("h2", 0)}
	down := []results.HostInterval{host("h1", 0), host("h2", 0)}
	refill := []results.HostInterval{host("h1", 0), host("h2", 10)}
	return results.ProfileStats{
		Phases: []results.ProfilePhase{phase("rate", 0, 30, 100, 100)},
		Timeline: evTimeline(
			evSeg{s: 10, calls: 10, p99: 5, hosts: h1, inUse: 8},
			evSeg{s: 3, errs: nwp, closed: 1, clears: 2, hosts: down, open: fixed(0)},
			evSeg{s: 1, calls: 10, p99: 50, retried: 2, created: 1, hosts: refill, open: func(i int) int { return i + 1 }, inUse: 8},
			evSeg{s: 16, calls: 10, p99: 5, hosts: refill, inUse: 8},
		),
	}
}

func TestSummarizeEvents(t *testing.T) {
	ps := stepDown()
	ps.Events = []results.StepEvent{fired(10, new(13.5))}
	evs := SummarizeEvents(&ps, Need{MaxPoolSize: 100, Clients: 1, Hosts: 2})
	if ps.Events[0].Summary != nil {
		t.Fatal("SummarizeEvents changed ps's events")
	}
	s := evs[0].Summary
	if s == nil {
		t.Fatal("no summary")
	}
	// The last 1-s window holding a 50-ms interval ends at 14.9 s: the
	// windows from 14.0 s on are all within the steady state.
	checkF(t, "time_to_recover_s", s.TimeToRecoverS, 4.0)
	// The worst p99 until the trigger's end at 13.5 s is the refill's.
	checkF(t, "p99_during_ms", s.P99DuringMS, 50.5)
	// The pools still held 10 as it fired, none from 10.0 s, and 8 again
	// at the end of the refill's eighth interval, 13.8 s.
	checkF(t, "time_to_refill_s", s.TimeToRefillS, 3.8)
	// Capped by the pool: one connection per client and host at most.
	capped := SummarizeEvents(&ps, Need{MaxPoolSize: 1, Clients: 1, Hosts: 2})[0].Summary
	checkF(t, "time_to_refill_s capped at 2", capped.TimeToRefillS, 3.2)
	want := results.ErrorCounts{Server: 150, NotWritablePrimary: 150}
	if s.Errors != want {
		t.Errorf("errors = %+v, want %+v", s.Errors, want)
	}
	if s.RetriedOK != 20 || s.ConnectionsCreated != 10 || s.ConnectionsClosed != 30 || s.PoolClears != 2 {
		t.Errorf("retried %d created %d closed %d clears %d, want 20 10 30 2", s.RetriedOK, s.ConnectionsCreated, s.ConnectionsClosed, s.PoolClears)
	}
	if len(s.PeakConnections) != 2 {
		t.Fatalf("peak connections = %+v, want h1 and h2", s.PeakConnections)
	}
	h1, h2 := s.PeakConnections[0], s.PeakConnections[1]
	// The span starts at the firing: h1 had already lost its pool there.
	if h1.Host != "h1" || h1.Peak != 0 || h1.ServerPeak != nil || h2.Host != "h2" || h2.Peak != 10 || h2.Limit != nil {
		t.Errorf("peak connections = h1 %+v h2 %+v", h1, h2)
	}
	// The servers' own counts come from the step's telemetry; a host the
	// span had no pool to is added.
	SetServerConns(evs, map[string]ServerConns{"h2": {Peak: new(480), Limit: new(800)}, "h3": {Limit: new(800)}, "h4": {}})
	pc := evs[0].Summary.PeakConnections
	if len(pc) != 3 || pc[1].Host != "h2" || *pc[1].ServerPeak != 480 || *pc[1].Limit != 800 || pc[2].Host != "h3" || pc[2].Peak != 0 || pc[2].ServerPeak != nil || *pc[2].Limit != 800 {
		t.Errorf("peak connections with the servers' = %+v", pc)
	}
	if s.DegradedAfter == nil || *s.DegradedAfter {
		t.Errorf("degraded_after = %v, want false", s.DegradedAfter)
	}
}

func TestSummarizeEventCases(t *testing.T) {
	five := evSeg{calls: 10, p99: 5}
	cases := []struct {
		name     string
		phases   []results.ProfilePhase
		segs     []evSeg
		events   []results.StepEvent
		recover  []*float64 // per event; nil: none
		degraded []*bool
		note     string // in the last event's notes
	}{
		{
			// slow=4:3s, p99 20 ms for 3 s, then back at once.
			name:   "slowdown recovers",
			phases: []results.ProfilePhase{phase("rate", 0, 20, 100, 100)},
			segs:   []evSeg{with(five, 8), {s: 3, calls: 10, p99: 20}, with(five, 9)},
			events: []results.StepEvent{fired(8, new(11.0))}, recover: []*float64{new(3.0)}, degraded: []*bool{new(false)},
		},
		{
			// The p99 stays at 20 ms after the trigger is gone: metastable.
			name:   "stays degraded",
			phases: []results.ProfilePhase{phase("rate", 0, 20, 100, 100)},
			segs:   []evSeg{with(five, 8), {s: 12, calls: 10, p99: 20}},
			events: []results.StepEvent{fired(8, new(11.0))}, recover: []*float64{nil}, degraded: []*bool{new(true)},
			note: "still outside the steady interval",
		},
		{
			// A change the load did not notice recovers at once.
			name:   "unnoticed",
			phases: []results.ProfilePhase{phase("rate", 0, 20, 100, 100)},
			segs:   []evSeg{with(five, 20)},
			events: []results.StepEvent{fired(8, new(11.0))}, recover: []*float64{new(0.0)}, degraded: []*bool{new(false)},
		},
		{
			name:   "step ended first",
			phases: []results.ProfilePhase{phase("rate", 0, 20, 100, 100)},
			segs:   []evSeg{with(five, 8), {s: 12, calls: 10, p99: 20}},
			events: []results.StepEvent{fired(8, nil)}, recover: []*float64{nil}, degraded: []*bool{nil},
			note: "the step ended before the trigger was gone",
		},
		{
			name:   "trigger gone just before the phase's end",
			phases: []results.ProfilePhase{phase("rate", 0, 20, 100, 100)},
			segs:   []evSeg{with(five, 8), {s: 12, calls: 10, p99: 20}},
			events: []results.StepEvent{fired(8, new(19.5))}, recover: []*float64{nil}, degraded: []*bool{nil},
			note: "too soon to say",
		},
		{
			name:   "in a ramp",
			phases: []results.ProfilePhase{phase("ramp", 0, 20, 10, 100)},
			segs:   []evSeg{with(five, 20)},
			events: []results.StepEvent{fired(8, new(11.0))}, recover: []*float64{nil}, degraded: []*bool{nil},
			note: "not one of constant rate",
		},
		{
			name:   "in an idle spell",
			phases: []results.ProfilePhase{phase("rate", 0, 10, 100, 100), phase("idle", 10, 20, 0, 0)},
			segs:   []evSeg{with(five, 10), {s: 10}},
			events: []results.StepEvent{fired(12, new(13.0))}, recover: []*float64{nil}, degraded: []*bool{nil},
			note: "idle spell",
		},
		{
			name:   "after the timeline",
			phases: []results.ProfilePhase{phase("rate", 0, 20, 100, 100)},
			segs:   []evSeg{with(five, 20)},
			events: []results.StepEvent{fired(25, nil)}, recover: []*float64{nil}, degraded: []*bool{nil},
			note: "after the timeline's end",
		},
		{
			name:   "too little before it",
			phases: []results.ProfilePhase{phase("rate", 0, 20, 100, 100)},
			segs:   []evSeg{with(five, 20)},
			events: []results.StepEvent{fired(1, new(2.0))}, recover: []*float64{nil}, degraded: []*bool{nil},
			note: "needed for a steady state",
		},
		{
			// The second event's steady state starts after the first's
			// end, not in its outage: it recovers as the first did.
			name:    "two events",
			phases:  []results.ProfilePhase{phase("rate", 0, 30, 100, 100)},
			segs:    []evSeg{with(five, 8), {s: 3, calls: 2, p99: 40}, with(five, 5), {s: 3, calls: 2, p99: 40}, with(five, 11)},
			events:  []results.StepEvent{fired(8, new(11.0)), fired(16, new(19.0))},
			recover: []*float64{new(3.0), new(3.0)}, degraded: []*bool{new(false), new(false)},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := results.ProfileStats{Phases: c.phases, Timeline: evTimeline(c.segs...), Events: c.events}
			evs := SummarizeEvents(&ps, Need{})
			for i, ev := range evs {
				s := ev.Summary
				if s == nil {
					t.Fatalf("event %d: no summary", i)
				}
				if w := c.recover[i]; (w == nil) != (s.TimeToRecoverS == nil) || w != nil && math.Abs(*w-*s.TimeToRecoverS) > 1e-9 {
					t.Errorf("event %d: time_to_recover_s = %v, want %v (notes %q)", i, fmtF(s.TimeToRecoverS), fmtF(c.recover[i]), s.Notes)
				}
				if w := c.degraded[i]; (w == nil) != (s.DegradedAfter == nil) || w != nil && *w != *s.DegradedAfter {
					t.Errorf("event %d: degraded_after = %v, want %v (notes %q)", i, fmtB(s.DegradedAfter), fmtB(c.degraded[i]), s.Notes)
				}
			}
			if c.note != "" && !strings.Contains(strings.Join(evs[len(evs)-1].Summary.Notes, "; "), c.note) {
				t.Errorf("notes %q lack %q", evs[len(evs)-1].Summary.Notes, c.note)
			}
		})
	}
}

func TestSummarizeEventsFailedAction(t *testing.T) {
	ps := stepDown()
	ev := fired(10, nil)
	ev.Error = "replSetStepDown: not authorized"
	ps.Events = []results.StepEvent{ev}
	if s := SummarizeEvents(&ps, Need{})[0].Summary; s != nil {
		t.Errorf("an event not performed got a summary: %+v", s)
	}
}

func with(sg evSeg, s float64) evSeg { sg.s = s; return sg }

func fmtF(v *float64) string {
	if v == nil {
		return "nil"
	}
	return num(*v)
}

func fmtB(v *bool) string {
	if v == nil {
		return "nil"
	}
	if *v {
		return "true"
	}
	return "false"
}

// hostsTimeline is 100 calls/s for 30 s at 5 ms, 8 in use, 0.1-s
// intervals, with each interval's hosts given by at (its index): the
// interval's open connections are their sum.
func hostsTimeline(at func(i int) []results.HostInterval) results.ProfileStats {
	tl := evTimeline(evSeg{s: 30, calls: 10, p99: 5, inUse: 8})
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		iv.Hosts = at(i)
		iv.Open = 0
		for _, h := range iv.Hosts {
			iv.Open += h.Open
		}
	}
	return results.ProfileStats{Phases: []results.ProfilePhase{phase("rate", 0, 30, 100, 100)}, Timeline: tl}
}

// TestSummarizeEventRefillPerHost: the refill is each host's own, and
// the step's leaves out a stepped-down primary, which keeps its
// connections idle while the load moves: counted over every host, the
// pools never fell below what the load held in use, and the refill was
// 0 however long the new primary took.
func TestSummarizeEventRefillPerHost(t *testing.T) {
	// Fired at 10 s (interval 100); the new primary h2 gets its first
	// connection at 13.0 s and one more each interval: 8 open at the end
	// of interval 137 (13.8 s).
	fill := func(i int) int { return min(max(i-129, 0), 10) }
	tests := []struct {
		name   string
		action string
		host   string // the event's host
		hosts  func(i int) []results.HostInterval
		want   *float64
		per    map[string]*float64
	}{
		// h1 keeps its 10 connections after the step-down; h2 fills.
		{"step-down, old primary keeps its connections", results.EventStepDown, "h1", func(i int) []results.HostInterval {
			if i < 130 {
				return []results.HostInterval{host("h1", 10)}
			}
			return []results.HostInterval{host("h1", 10), host("h2", fill(i))}
		}, new(3.8), map[string]*float64{"h1": new(0.0), "h2": new(3.8)}},
		// The same counts under a reset on h1 leave nothing out: h1 held
		// the target throughout.
		{"reset, the same counts", results.EventReset, "h1", func(i int) []results.HostInterval {
			if i < 130 {
				return []results.HostInterval{host("h1", 10)}
			}
			return []results.HostInterval{host("h1", 10), host("h2", fill(i))}
		}, new(0.0), map[string]*float64{"h1": new(0.0), "h2": new(3.8)}},
		// A router restart: r1 loses its 5 at 10 s and gets 2 back at 12 s
		// (the load now shared); r2, with 5 before, holds 8 from 10.5 s.
		{"router restart", results.EventRouterRestart, "r1", func(i int) []results.HostInterval {
			r1 := 5
			switch {
			case i >= 120:
				r1 = 2
			case i >= 100:
				r1 = 0
			}
			r2 := 5
			if i >= 104 {
				r2 = 8
			}
			return []results.HostInterval{host("r1", r1), host("r2", r2)}
		}, new(0.5), map[string]*float64{"r1": nil, "r2": new(0.5)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps := hostsTimeline(tt.hosts)
			ev := fired(10, new(13.0))
			ev.Action, ev.Host = tt.action, tt.host
			ps.Events = []results.StepEvent{ev}
			s := SummarizeEvents(&ps, Need{MaxPoolSize: 100, Clients: 1, Hosts: 2})[0].Summary
			if s.RefillTarget != 8 {
				t.Errorf("refill_target = %d, want 8", s.RefillTarget)
			}
			checkOpt(t, "time_to_refill_s", s.TimeToRefillS, tt.want)
			if len(s.RefillHosts) != len(tt.per) {
				t.Fatalf("refill_hosts = %+v, want %d hosts", s.RefillHosts, len(tt.per))
			}
			for _, h := range s.RefillHosts {
				want, ok := tt.per[h.Host]
				if !ok {
					t.Errorf("refill_hosts holds %s", h.Host)
				}
				checkOpt(t, h.Host+" time_to_refill_s", h.TimeToRefillS, want)
			}
		})
	}
}

func checkOpt(t *testing.T, name string, got, want *float64) {
	t.Helper()
	switch {
	case want == nil && got != nil:
		t.Errorf("%s = %v, want null", name, *got)
	case want == nil:
	default:
		checkF(t, name, got, *want)
	}
}

// TestSummarizeEventRecoversWithinNoise: a load whose interval p99 varies
// from 3 to 9 ms throughout (a busy host) recovers when the event's own
// latency is gone, 3 s after it fired here, although single 1-s windows
// of its steady state fall outside the interval of that state's mean: a
// window is judged against where the steady state's windows fall. Judged
// against the mean's interval, windows of the same noise long after the
// event kept it from recovering.
func TestSummarizeEventRecoversWithinNoise(t *testing.T) {
	ps := results.ProfileStats{
		Phases:   []results.ProfilePhase{phase("rate", 0, 30, 100, 100)},
		Timeline: evTimeline(evSeg{s: 30, calls: 10, p99: 5, inUse: 2}),
	}
	x := uint32(12345)
	for i := range ps.Timeline.Intervals {
		x = x*1664525 + 1013904223 // a fixed pseudo-random sequence
		v := 3 + 6*float64(x>>8)/float64(1<<24)
		if i >= 100 && i < 130 {
			v = 200 // the event's 3 s
		}
		ps.Timeline.Intervals[i].P99MS = &v
	}
	ps.Events = []results.StepEvent{fired(10, new(12.0))}
	s := SummarizeEvents(&ps, Need{MaxPoolSize: 10, Clients: 1, Hosts: 1})[0].Summary
	checkF(t, "time_to_recover_s", s.TimeToRecoverS, 3.0)
	if s.DegradedAfter == nil || *s.DegradedAfter {
		t.Errorf("degraded_after = %v, want false", s.DegradedAfter)
	}
}
