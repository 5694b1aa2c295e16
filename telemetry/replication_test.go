package telemetry

import (
	"testing"
	"time"
)

func TestReplicationLag(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	member := func(name, state string, self bool, behind time.Duration, ms bool) memberOptime {
		return memberOptime{name: name, state: state, self: self, applied: t0.Add(-behind), ms: ms}
	}
	// A secondary's reply is a heartbeat old: only the primary's counts.
	if _, _, ok := lags([]memberOptime{member("a", "PRIMARY", false, 0, true), member("b", "SECONDARY", true, 0, true)}); ok {
		t.Error("a secondary's reply was read as the primary's")
	}
	// Arbiters and members without an optime have no lag.
	l, precise, ok := lags([]memberOptime{member("a", "PRIMARY", true, 0, true), member("b", "SECONDARY", false, 80*time.Millisecond, true),
		{name: "c", state: "ARBITER"}, member("d", "SECONDARY", false, 0, false)})
	if !ok || len(l) != 2 || l["b"] != 80*time.Millisecond || l["d"] != 0 || precise {
		t.Errorf("lags = %v, precise %v, ok %v; want b 80ms, d 0, whole seconds (d has optimeDate only)", l, precise, ok)
	}

	// Over a window: b keeps up at a steady 80 ms, c falls 2 s behind.
	h := &hostSampler{}
	for i, cBehind := range []time.Duration{100 * time.Millisecond, time.Second, 2100 * time.Millisecond} {
		h.snaps = append(h.snaps, snapshot{at: t0.Add(time.Duration(i) * time.Second), repl: []memberOptime{
			member("a", "PRIMARY", true, 0, true), member("b", "SECONDARY", false, 80*time.Millisecond, true), member("c", "SECONDARY", false, cBehind, true)}})
	}
	ms := replicationOf([]*hostSampler{h, {}})
	if len(ms) != 2 || ms[0].Host != "b" || ms[0].FellBehind || ms[0].MaxMS != 80 || ms[0].Samples != 3 || ms[0].PrecisionMS != 1 {
		t.Errorf("b: %+v; want a steady 80 ms, not behind", ms)
	}
	if len(ms) == 2 && (!ms[1].FellBehind || ms[1].StartMS != 100 || ms[1].EndMS != 2100) {
		t.Errorf("c: %+v; want 100 → 2100 ms, fell behind", ms[1])
	}
	if w := replicationWarnings(ms); len(w) != 1 {
		t.Errorf("warnings %q; want one, for c", w)
	}
	if replicationOf([]*hostSampler{{}}) != nil {
		t.Error("no primary reply, yet replication lags")
	}
}
