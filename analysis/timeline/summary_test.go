package timeline

import (
	"math"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// synth builds a timeline of 0.1-s intervals from per-second segments: in
// each, calls per interval, p99, connections open and in use. A burst
// from a cold pool is a segment whose open connections grow.
type seg struct {
	s      float64 // seconds
	calls  int64
	p99    float64 // 0: no p99 (no calls)
	open   func(i int) int
	inUse  int
	create int64 // created per interval
	closed int64
}

func fixed(n int) func(int) int { return func(int) int { return n } }

func synth(segs ...seg) results.Timeline {
	tl := results.Timeline{IntervalS: 0.1}
	for _, sg := range segs {
		n := int(math.Round(sg.s / 0.1))
		for i := range n {
			iv := results.TimelineInterval{Offered: sg.calls, Calls: sg.calls, Ops: sg.calls, Open: sg.open(i), InUse: sg.inUse,
				Created: sg.create, Closed: sg.closed}
			if sg.p99 > 0 {
				// A small wobble so that batch means have a spread.
				v := sg.p99 * (1 + 0.01*float64(i%3-1))
				iv.P99MS = &v
			}
			tl.Intervals = append(tl.Intervals, iv)
		}
	}
	return tl
}

func phase(kind string, start, end, from, to float64) results.ProfilePhase {
	return results.ProfilePhase{Kind: kind, StartS: start, EndS: end, From: from, To: to}
}

func TestSummarize(t *testing.T) {
	// A cold burst: idle 2 s, then 200 calls/s for 10 s. The pool grows by
	// one connection per 0.1 s from 0 to 10; the p99 is 50 ms in the
	// first second, 20 ms in the second, then 5 ms. Then 12 s idle in
	// which the pool shrinks.
	cold := results.ProfileStats{
		Phases: []results.ProfilePhase{phase("idle", 0, 2, 0, 0), phase("rate", 2, 12, 200, 200), phase("idle", 12, 24, 0, 0)},
		Timeline: synth(
			seg{s: 2, open: fixed(0)},
			seg{s: 1, calls: 20, p99: 50, open: func(i int) int { return i + 1 }, inUse: 6, create: 1},
			seg{s: 1, calls: 20, p99: 20, open: fixed(10), inUse: 6},
			seg{s: 8, calls: 20, p99: 5, open: fixed(10), inUse: 6},
			seg{s: 6, open: fixed(10)},
			seg{s: 6, open: fixed(2), closed: 0},
		),
	}
	s := Summarize(&cold, Need{MaxPoolSize: 100, Clients: 1, Hosts: 1})
	// The steady part held 6 in use; open reached 6 at the end of the
	// sixth interval after the rise.
	checkF(t, "time_to_fill_s", s.TimeToFillS, 0.6)
	checkF(t, "worst_p99_ms", s.WorstP99MS, 50.5)
	checkF(t, "first_second_p99_ms", s.FirstSecondP99MS, 50.5)
	// The 1-s rolling p99 holds part of the 20-ms second until 2 s after
	// the rise, then stays within 5 ms ± the band.
	checkF(t, "time_to_steady_s", s.TimeToSteadyS, 2.0)
	if s.SteadyPerS == nil || math.Abs(s.SteadyPerS.Value-200) > 1e-9 {
		t.Errorf("steady_per_s = %+v, want 200", s.SteadyPerS)
	}
	if s.SteadyP99MS == nil || math.Abs(s.SteadyP99MS.Value-5) > 0.1 || !(s.SteadyP99MS.Low < 5 && s.SteadyP99MS.High > 5) {
		t.Errorf("steady_p99_ms = %+v, want about 5 with an interval around it", s.SteadyP99MS)
	}
	if s.ConnectionsCreated != 10 {
		t.Errorf("connections_created = %d, want 10", s.ConnectionsCreated)
	}
	want := []results.HeldAfter{{AfterS: 1, Connections: 10}, {AfterS: 5, Connections: 10}, {AfterS: 10, Connections: 2}}
	if len(s.Held) != len(want) {
		t.Fatalf("held = %+v, want %+v (30 s is past the timeline)", s.Held, want)
	}
	for i := range want {
		if s.Held[i] != want[i] {
			t.Errorf("held[%d] = %+v, want %+v", i, s.Held[i], want[i])
		}
	}
	if len(s.Bursts) != 1 || s.Bursts[0].StartS != 2 || s.Bursts[0].OpenAtStart != 0 || s.Bursts[0].Created != 10 {
		t.Errorf("bursts = %+v, want one at 2 s from 0 open, 10 created", s.Bursts)
	}

	// The same burst on a pre-warmed pool: fill 0, steady at once.
	warm := cold
	warm.Timeline = synth(
		seg{s: 2, open: fixed(10)},
		seg{s: 10, calls: 20, p99: 5, open: fixed(10), inUse: 6},
		seg{s: 12, open: fixed(10)},
	)
	w := Summarize(&warm, Need{MaxPoolSize: 100, Clients: 1, Hosts: 1})
	checkF(t, "warm time_to_fill_s", w.TimeToFillS, 0)
	checkF(t, "warm time_to_steady_s", w.TimeToSteadyS, 0)
	checkF(t, "warm first_second_p99_ms", w.FirstSecondP99MS, 5.05)

	// The need caps the target: a pool of 4 fills when 4 are open.
	c := Summarize(&cold, Need{MaxPoolSize: 2, Clients: 2, Hosts: 1})
	checkF(t, "capped time_to_fill_s", c.TimeToFillS, 0.4)
}

func TestSummarizeBursts(t *testing.T) {
	// Burst, idle longer than the pool's idle time (it shrinks to 0), burst
	// again: the second pays the fill again.
	ps := results.ProfileStats{
		Phases: []results.ProfilePhase{phase("rate", 0, 6, 100, 100), phase("idle", 6, 12, 0, 0), phase("rate", 12, 18, 100, 100)},
		Timeline: synth(
			seg{s: 0.5, calls: 10, p99: 40, open: func(i int) int { return i + 1 }, inUse: 4, create: 1},
			seg{s: 5.5, calls: 10, p99: 4, open: fixed(5), inUse: 4},
			seg{s: 6, open: fixed(0), closed: 0},
			seg{s: 0.5, calls: 10, p99: 60, open: func(i int) int { return i + 1 }, inUse: 4, create: 1},
			seg{s: 5.5, calls: 10, p99: 4, open: fixed(5), inUse: 4},
		),
	}
	s := Summarize(&ps, Need{MaxPoolSize: 100, Clients: 1, Hosts: 1})
	if len(s.Bursts) != 2 {
		t.Fatalf("bursts = %+v, want 2", s.Bursts)
	}
	b1, b2 := s.Bursts[0], s.Bursts[1]
	if b2.StartS != 12 || b2.OpenAtStart != 0 || b2.Created != 5 {
		t.Errorf("second burst = %+v, want at 12 s from 0 open, 5 created", b2)
	}
	checkF(t, "burst 1 fill", b1.TimeToFillS, 0.4)
	checkF(t, "burst 2 fill", b2.TimeToFillS, 0.4)
	checkF(t, "burst 2 worst p99", b2.WorstP99MS, 60.6)
	checkF(t, "burst 1 worst p99", b1.WorstP99MS, 40.4)
	// The step's first second is the first burst's; its worst the second's.
	checkF(t, "first_second_p99_ms", s.FirstSecondP99MS, 40.4)
	checkF(t, "worst_p99_ms", s.WorstP99MS, 60.6)
	// The load never falls before the end: nothing held, said in a note.
	if s.Held != nil || !hasNote(s, "after the load last fell") {
		t.Errorf("held = %+v, notes %q", s.Held, s.Notes)
	}
}

func TestSummarizeRises(t *testing.T) {
	for _, tc := range []struct {
		name   string
		phases []results.ProfilePhase
		want   []int
	}{
		// A ramp from 0 then its rate: one rise, at the ramp.
		{"ramp then rate", []results.ProfilePhase{phase("idle", 0, 5, 0, 0), phase("ramp", 5, 10, 0, 100), phase("rate", 10, 20, 100, 100)}, []int{1}},
		// A step up is a rise after a lower spell; a step down is not.
		{"step up and down", []results.ProfilePhase{phase("rate", 0, 5, 100, 100), phase("rate", 5, 10, 300, 300), phase("rate", 10, 15, 50, 50)}, []int{0, 1}},
		// A sine opens the profile: one rise.
		{"sine", []results.ProfilePhase{phase("sine", 0, 60, 10, 100)}, []int{0}},
		// Only idle: none.
		{"idle", []results.ProfilePhase{phase("idle", 0, 5, 0, 0)}, nil},
	} {
		got := rises(tc.phases)
		if len(got) != len(tc.want) {
			t.Errorf("%s: rises = %v, want %v", tc.name, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%s: rises = %v, want %v", tc.name, got, tc.want)
			}
		}
	}
}

func TestSummarizeNoEvidence(t *testing.T) {
	for _, tc := range []struct {
		name string
		ps   results.ProfileStats
		note string
	}{
		// Empty timeline: the churn only.
		{"empty", results.ProfileStats{Phases: []results.ProfilePhase{phase("rate", 0, 10, 100, 100)}}, "no intervals"},
		// A steady phase too short for batch means: no steady, fill or time to steady.
		{"short", results.ProfileStats{
			Phases:   []results.ProfilePhase{phase("rate", 0, 1, 100, 100)},
			Timeline: synth(seg{s: 1, calls: 10, p99: 4, open: fixed(5), inUse: 4}),
		}, "are needed for a steady state"},
		// A sine has no steady part.
		{"sine", results.ProfileStats{
			Phases:   []results.ProfilePhase{phase("sine", 0, 10, 10, 100)},
			Timeline: synth(seg{s: 10, calls: 5, p99: 4, open: fixed(5), inUse: 4}),
		}, "not of constant rate"},
		// A pool that never opens what the load held in use.
		{"never filled", results.ProfileStats{
			Phases:   []results.ProfilePhase{phase("rate", 0, 10, 100, 100)},
			Timeline: synth(seg{s: 10, calls: 10, p99: 4, open: fixed(2), inUse: 4}),
		}, "never reached the 4"},
	} {
		s := Summarize(&tc.ps, Need{MaxPoolSize: 100, Clients: 1, Hosts: 1})
		if s.TimeToFillS != nil || s.TimeToSteadyS != nil && tc.name != "never filled" {
			t.Errorf("%s: fill %v steady %v, want nil", tc.name, s.TimeToFillS, s.TimeToSteadyS)
		}
		if !hasNote(s, tc.note) {
			t.Errorf("%s: notes %q, want one holding %q", tc.name, s.Notes, tc.note)
		}
	}
}

func hasNote(s results.ProfileSummary, sub string) bool {
	for _, n := range s.Notes {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

func checkF(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = nil, want %g", name, want)
		return
	}
	if math.Abs(*got-want) > 1e-6 {
		t.Errorf("%s = %g, want %g", name, *got, want)
	}
}

// BenchmarkSummarize is the cost the engine pays once per profile step: a
// 10-minute timeline of 0.1-s intervals.
func BenchmarkSummarize(b *testing.B) {
	ps := results.ProfileStats{
		Phases:   []results.ProfilePhase{phase("idle", 0, 30, 0, 0), phase("rate", 30, 600, 200, 200)},
		Timeline: synth(seg{s: 30, open: fixed(0)}, seg{s: 570, calls: 20, p99: 5, open: fixed(10), inUse: 6}),
	}
	for b.Loop() {
		Summarize(&ps, Need{MaxPoolSize: 100, Clients: 1, Hosts: 1})
	}
}
