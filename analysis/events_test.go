package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// evfig is what a synthetic step-down did under one setting: the figures
// its event's summary holds (trial n spreads them a little).
type evfig struct {
	recover    float64 // s; <0: did not recover
	errors     int64
	created    int64
	peak, srv  int // the new primary's peak, this run's and the server's
	limit      int
	notPerform bool
}

// withStepDown gives each profile step of r a step-down at 20 s, with the
// summary figs[step's maxConnecting] says.
func withStepDown(r *results.Results, figs map[int]evfig) *results.Results {
	for i := range r.Steps {
		st := &r.Steps[i]
		f := figs[st.PoolOptions.MaxConnecting]
		j := 1 + 0.02*float64(st.Trial%3-1)
		ev := results.StepEvent{EventSpec: results.EventSpec{Spec: "20s=stepdown", AtS: 20, Action: results.EventStepDown},
			FiredS: 20, Via: results.EventViaStepDown, Host: "h1"}
		if f.notPerform {
			ev.Error = "replSetStepDown: (NotWritablePrimary) not primary"
			st.Profile.Events = []results.StepEvent{ev}
			continue
		}
		srv, limit := int(float64(f.srv)*j), f.limit
		s := &results.EventSummary{
			Errors:             results.ErrorCounts{Server: f.errors, NotWritablePrimary: f.errors},
			ConnectionsCreated: f.created, ConnectionsClosed: f.created, PoolClears: 1,
			PeakConnections: []results.HostPeak{{Host: "h1", Peak: 40}, {Host: "h2", Peak: f.peak, ServerPeak: &srv, Limit: &limit}},
			P99DuringMS:     new(900 * j), DegradedAfter: new(f.recover < 0),
		}
		if f.recover >= 0 {
			s.TimeToRecoverS = new(f.recover * j)
		}
		ev.Summary = s
		st.Profile.Events = []results.StepEvent{ev}
	}
	return r
}

var (
	connect16 = pstep{pool: 100, opts: opts(0, 16), fill: 0.6, worst: 9, steady: 5, perS: 500, created: 40, inUse: 40}
	connect64 = pstep{pool: 100, opts: opts(0, 64), fill: 0.2, worst: 8, steady: 5, perS: 500, created: 40, inUse: 40}
)

func TestEvents(t *testing.T) {
	r := withStepDown(profileRun(5, coldDefault, connect16, connect64), map[int]evfig{
		2:  {recover: 4.1, errors: 212, created: 40, peak: 40, srv: 480, limit: 800},
		16: {recover: 1.2, errors: 60, created: 40, peak: 40, srv: 520, limit: 800},
		// The fastest, but the server's connections reach its limit.
		64: {recover: 0.8, errors: 50, created: 40, peak: 40, srv: 800, limit: 800},
	})
	a := Of([]*results.Results{r}, knee.Options{})
	if len(a.Events) != 3 {
		t.Fatalf("events = %d, want 3 (a setting each)", len(a.Events))
	}
	base, c16 := a.Events[0], a.Events[1]
	if !base.Baseline || c16.Baseline || base.Trials != 5 || base.Event != "20s=stepdown" {
		t.Errorf("baseline %v/%v, trials %d, event %q", base.Baseline, c16.Baseline, base.Trials, base.Event)
	}
	f := base.TimeToRecoverS
	// Trials 1..5 spread by ×1, 1.02, 0.98, 1, 1.02: the mean is 4.1 × 1.004.
	if f.Value == nil || math.Abs(*f.Value-4.1*1.004) > 1e-9 || f.Low == nil || !(*f.Low < 4.1 && *f.High > 4.12) {
		t.Errorf("time to recover = %+v, want about 4.1 inside its interval", f)
	}
	if base.ErrorKinds.NotWritablePrimary != 5*212 || base.Degraded != 0 || base.DegradedKnown != 5 {
		t.Errorf("error kinds %+v, degraded %d of %d", base.ErrorKinds, base.Degraded, base.DegradedKnown)
	}
	got := map[string]Verdict{}
	for _, v := range c16.Versus {
		got[v.Metric] = v
	}
	if v := got["time_to_recover_s"]; v.Verdict != verdictBetter || v.Method != "mann-whitney" {
		t.Errorf("maxConnecting 16 time to recover verdict = %+v, want better by mann-whitney", v)
	}
	if v := got["errors"]; v.Verdict != verdictUntested && v.Verdict != verdictNoChange && v.Verdict != verdictBetter {
		t.Errorf("errors verdict = %+v", v)
	}
	if len(base.Versus) != 0 {
		t.Errorf("the baseline was compared with itself: %+v", base.Versus)
	}

	vs := EventVerdicts(a.Events)
	if len(vs) != 1 {
		t.Fatalf("verdicts = %q, want one", vs)
	}
	for _, want := range []string{
		"after a step-down at 20 s on sim, maxConnecting 2 recovers in 4.1 s [",
		"with 212 errors; maxConnecting 16 in 1.20 s [1.18, 1.23] with 60 errors; maxConnecting 64 in 0.80 s [",
		"the new primary's (h2) connections peak at 816 of 800",
	} {
		if !strings.Contains(vs[0], want) {
			t.Errorf("verdict %q lacks %q", vs[0], want)
		}
	}

	// The recommendation: 64 recovers fastest but reaches the limit; 16 is
	// the fastest below it.
	p := a.Pool[0].PoolOptions
	if p.MaxConnecting.Value == nil || *p.MaxConnecting.Value != 16 || p.MaxConnecting.From != "events" ||
		!strings.Contains(p.MaxConnecting.Why, "reached a server's connection limit: maxPoolSize=100 minPoolSize=0 maxConnecting=64") {
		t.Errorf("max_connecting = %v from %s (%s), want 16 from the events", deref(p.MaxConnecting.Value), p.MaxConnecting.From, p.MaxConnecting.Why)
	}
}

// Without events, the bursts alone choose the largest healthy
// maxConnecting: the events are what change it.
func TestRecommendWithoutEvents(t *testing.T) {
	p := rec(t, 0, profileRun(5, coldDefault, connect16, connect64))
	if p.MaxConnecting.Value == nil || *p.MaxConnecting.Value != 64 {
		t.Errorf("max_connecting = %v (%s), want 64", deref(p.MaxConnecting.Value), p.MaxConnecting.Why)
	}
}

func TestEventsNotRecoveredOrPerformed(t *testing.T) {
	heldUp := pstep{pool: 100, opts: opts(10, 4), fill: 0.6, worst: 9, steady: 5, perS: 500, created: 40, inUse: 40}
	r := withStepDown(profileRun(3, coldDefault, connect16, heldUp), map[int]evfig{
		2:  {recover: -1, errors: 900, created: 40, peak: 40, srv: 300, limit: 800},
		16: {notPerform: true},
		4:  {recover: 2.5, errors: 100, created: 40, peak: 40, srv: 300, limit: 800},
	})
	a := Of([]*results.Results{r}, knee.Options{})
	base, c16 := a.Events[0], a.Events[1]
	if base.TimeToRecoverS.N != 0 || base.Degraded != 3 || !strings.Contains(strings.Join(base.Notes, ";"), "3 of 3 trials did not recover") {
		t.Errorf("not recovered: %+v", base)
	}
	if c16.Trials != 0 || c16.NotPerformed != 3 || !strings.Contains(strings.Join(c16.Notes, ";"), "not performed") {
		t.Errorf("not performed: trials %d, not performed %d, notes %q", c16.Trials, c16.NotPerformed, c16.Notes)
	}
	vs := EventVerdicts(a.Events)
	for _, want := range []string{"does not recover within the step with 900 errors (degraded after the trigger in 3 of 3 trials)",
		"maxConnecting 16 was not performed", "minPoolSize 10 maxConnecting 4 recovers in 2.5 s ["} {
		if !strings.Contains(vs[0], want) {
			t.Errorf("verdict %q lacks %q", vs[0], want)
		}
	}
	// Only (10, 4) ran the event and recovered: minPoolSize raised to 10.
	p := a.Pool[0].PoolOptions
	if p.MaxConnecting.Value == nil || *p.MaxConnecting.Value != 4 || p.MinPoolSize.Value == nil || *p.MinPoolSize.Value != 10 || p.MinPoolSize.From != "events" {
		t.Errorf("max_connecting %v, min_pool_size %v from %s (%s)", deref(p.MaxConnecting.Value), deref(p.MinPoolSize.Value), p.MinPoolSize.From, p.MinPoolSize.Why)
	}
}
