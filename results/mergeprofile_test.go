package results

import (
	"strconv"
	"strings"
	"testing"
)

// The agents' timelines are summed interval by interval: counts add up,
// an agent's connections are carried past the end of its shorter
// timeline, a latency quantile is the highest agent's, and the hosts are
// summed by name.
func TestMergeIntervals(t *testing.T) {
	a := Timeline{IntervalS: 0.1, Intervals: []TimelineInterval{
		{Offered: 5, Calls: 5, Ops: 5, Open: 2, InUse: 1, Created: 2, P99MS: new(3.0), Hosts: []HostInterval{{Host: "h1", Open: 2, Created: 2}}},
		{Offered: 5, Calls: 4, Ops: 4, Open: 2, InUse: 2, Errors: &ErrorCounts{Network: 1}, RetriedOK: 1, P99MS: new(9.0), Hosts: []HostInterval{{Host: "h1", Open: 2}}},
	}}
	b := Timeline{IntervalS: 0.1, Intervals: []TimelineInterval{
		{Offered: 4, Calls: 4, Ops: 4, Open: 3, InUse: 1, Created: 3, P99MS: new(4.0), Hosts: []HostInterval{{Host: "h2", Open: 1, Created: 1}, {Host: "h1", Open: 2, Created: 2}}},
		{Offered: 4, Calls: 4, Ops: 4, Open: 3, InUse: 0, P99MS: new(2.0), Hosts: []HostInterval{{Host: "h1", Open: 2}, {Host: "h2", Open: 1}}},
		{Offered: 1, Calls: 1, Ops: 1, Open: 1, Closed: 2, Errors: &ErrorCounts{Server: 2, NotWritablePrimary: 2}, Hosts: []HostInterval{{Host: "h1", Open: 0, Closed: 2}, {Host: "h2", Open: 1}}},
	}}
	got := mergeIntervals([]Timeline{a, b})
	if len(got) != 3 {
		t.Fatalf("%d intervals, want the longer timeline's 3", len(got))
	}
	want := []struct {
		offered, calls int64
		open, inUse    int
		created        int64
		p99            float64
		errs           int64
		hosts          string
	}{
		{9, 9, 5, 2, 5, 4, 0, "h1 4+4 h2 1+1"},
		{9, 8, 5, 2, 0, 9, 1, "h1 4+0 h2 1+0"},
		// a's timeline has ended: its 2 open connections are carried.
		{1, 1, 3, 2, 0, 0, 2, "h1 2+0 h2 1+0"},
	}
	for i, w := range want {
		g := got[i]
		var hosts []string
		for _, h := range g.Hosts {
			hosts = append(hosts, h.Host+" "+itoa(h.Open)+"+"+itoa(int(h.Created)))
		}
		p99 := 0.0
		if g.P99MS != nil {
			p99 = *g.P99MS
		}
		var errs int64
		if g.Errors != nil {
			errs = g.Errors.Total()
		}
		if g.Offered != w.offered || g.Calls != w.calls || g.Open != w.open || g.InUse != w.inUse || g.Created != w.created || p99 != w.p99 || errs != w.errs || strings.Join(hosts, " ") != w.hosts {
			t.Errorf("interval %d: %+v hosts %q, want %+v", i, g, hosts, w)
		}
	}
	if got[1].RetriedOK != 1 || got[2].Errors.NotWritablePrimary != 2 {
		t.Errorf("retries %d, not-writable-primary %+v", got[1].RetriedOK, got[2].Errors)
	}
}

// The leader's events are kept and every agent's storm on a host joined:
// from the earliest first connection to the latest ready, connections and
// clients summed, the peak read again from the merged timeline. Without
// the leader's record the followers' stand, with a warning; a storm with
// a connection never ready leaves the fleet's refill unknown.
func TestMergeEventStorms(t *testing.T) {
	tl := Timeline{IntervalS: 0.1, Intervals: make([]TimelineInterval, 40)}
	tl.Intervals[29].Hosts = []HostInterval{{Host: "h2", Open: 6, Created: 6}}
	tl.Intervals[30].Hosts = []HostInterval{{Host: "h2", Open: 10, Created: 4}}
	ev := EventSpec{Spec: "2s=stepdown", AtS: 2, Action: EventStepDown}
	lead := []StepEvent{{EventSpec: ev, FiredS: 2.004, EndS: new(2.9), Via: EventViaStepDown, Host: "h1", Summary: &EventSummary{},
		Storms: []ReconnectStorm{{Host: "h2", StartS: 2.95, LastCreatedS: 3.2, Created: 5, RefillS: new(0.4), Clients: 2, PeakCreatedPerS: 40}}}}
	follow := []StepEvent{{EventSpec: ev, FiredS: 2, Via: EventViaLeader,
		Storms: []ReconnectStorm{{Host: "h2", StartS: 2.9, LastCreatedS: 3.3, Created: 5, RefillS: new(0.3), Clients: 2, PeakCreatedPerS: 40},
			{Host: "h1", StartS: 3, LastCreatedS: 3, Created: 1, RefillS: new(0.01), Clients: 1}}}}
	got, w := mergeEvents([][]StepEvent{follow, lead}, tl)
	if w != "" || len(got) != 1 || got[0].Via != EventViaStepDown || got[0].FiredS != 2.004 || got[0].Summary != nil {
		t.Fatalf("merged %+v (warning %q): want the leader's event, its summary left to be computed again", got, w)
	}
	s := got[0].Storms
	// h2: from 2.9 until 2.95 + 0.4 = 3.35, so 0.45 s; 10 connections.
	if len(s) != 2 || s[0].Host != "h2" || s[0].Created != 10 || s[0].Clients != 4 || s[0].StartS != 2.9 || s[0].LastCreatedS != 3.3 ||
		s[0].RefillS == nil || *s[0].RefillS != 0.45 || s[0].SetupPerS == nil || *s[0].SetupPerS != 22.2 || s[0].PeakCreatedPerS != 60 {
		t.Errorf("joined storms %+v", s)
	}
	lead[0].Storms[0].RefillS = nil
	lead[0].Storms[0].NotReady = 1
	got, _ = mergeEvents([][]StepEvent{lead, follow}, tl)
	if st := got[0].Storms[0]; st.RefillS != nil || st.SetupPerS != nil || st.NotReady != 1 {
		t.Errorf("a storm with a connection never ready joined into %+v: want no refill", st)
	}
	got, w = mergeEvents([][]StepEvent{follow}, tl)
	if len(got) != 1 || got[0].Via != EventViaLeader || !strings.Contains(w, "leader's record") {
		t.Errorf("without the leader: %+v, warning %q", got, w)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
