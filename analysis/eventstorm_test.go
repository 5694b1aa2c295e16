package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// The reconnect storm of each trial's step-down is gathered per setting:
// the busiest storm's figures with their intervals over the trials, its
// hosts each once (the new primary differs from trial to trial), the
// limiter's counts where the host reported them, and the storm in words
// in the verdict.
func TestEventStorms(t *testing.T) {
	r := withStepDown(profileRun(3, coldDefault, connect16), map[int]evfig{
		2:  {recover: 4.1, errors: 212, created: 40, peak: 40, srv: 480, limit: 800},
		16: {recover: 1.2, errors: 60, created: 40, peak: 40, srv: 520, limit: 800},
	})
	queued, zero := 120.0, 0.0
	for i := range r.Steps {
		st := &r.Steps[i]
		st.Clients = 50
		ev := &st.Profile.Events[0]
		host := []string{"h2", "h3", "h2"}[(st.Trial-1)%3]
		refill := 5.0 + 0.1*float64(st.Trial%3)
		rate := 250 / refill
		s := results.ReconnectStorm{Host: host, StartS: 21, LastCreatedS: 25, Created: 250, RefillS: &refill, SetupPerS: &rate, PeakCreatedPerS: 1000, Clients: 50}
		if st.PoolOptions.MaxConnecting == 16 {
			// This setting's host reports the 8.2 limiter, which queued.
			s.Establishment = &results.EstablishmentCounts{Queued: &queued, Rejected: &zero}
		}
		// A smaller storm on the old primary comes second and is not the
		// setting's storm.
		ev.Storms = []results.ReconnectStorm{s, {Host: "h1", StartS: 22, LastCreatedS: 22, Created: 2, PeakCreatedPerS: 20, Clients: 2}}
	}
	a := Of([]*results.Results{r}, knee.Options{})
	if len(a.Events) != 2 {
		t.Fatalf("events = %d, want 2", len(a.Events))
	}
	base, c16 := a.Events[0], a.Events[1]
	sr := base.Storm
	if sr == nil {
		t.Fatal("no storm gathered")
	}
	if sr.Trials != 3 || strings.Join(sr.Hosts, ",") != "h2,h3" || sr.Clients != 50 || sr.ClientsInStep != 50 {
		t.Errorf("storm trials %d hosts %v clients %d of %d", sr.Trials, sr.Hosts, sr.Clients, sr.ClientsInStep)
	}
	if v, ok := sr.Created.Get(); !ok || v != 250 {
		t.Errorf("created %+v, want 250", sr.Created)
	}
	// Refill 5.1, 5.2, 5.0 over trials 1..3: mean 5.1 inside its interval.
	if f := sr.RefillS; f.Value == nil || math.Abs(*f.Value-5.1) > 1e-9 || f.Low == nil || !(*f.Low < 5.1 && *f.High > 5.1) || f.N != 3 {
		t.Errorf("refill %+v, want 5.1 inside its interval", f)
	}
	if sr.LimiterKnown != 0 || base.Storm.Limited != 0 {
		t.Errorf("baseline limiter %d/%d, its host reported none", sr.Limited, sr.LimiterKnown)
	}
	if c := c16.Storm; c == nil || c.Limited != 3 || c.LimiterKnown != 3 || c.Queued != 360 {
		t.Errorf("maxConnecting 16's storm %+v: want the limiter queuing in 3 of 3 trials, 360 in all", c16.Storm)
	}
	w := base.StormWords()
	for _, want := range []string{"on the new primary (h2, h3)", "250 connections from 50 of 50 clients", "ready in 5.1 s [4.9, 5.3]", "set up at 49"} {
		if !strings.Contains(w, want) {
			t.Errorf("storm words %q lack %q", w, want)
		}
	}
	if w := c16.StormWords(); !strings.Contains(w, "limiter queued 360 and rejected 0 (3 of 3 trials)") {
		t.Errorf("maxConnecting 16's storm words %q do not name the limiter", w)
	}
	vs := EventVerdicts(a.Events)
	if len(vs) != 1 || !strings.Contains(vs[0], "with maxConnecting 16, the reconnect storm on the new primary") {
		t.Errorf("verdicts %q do not hold each setting's storm", vs)
	}
}
