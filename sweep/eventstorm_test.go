package sweep

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology"
)

// TestReconnectStormGrowsWithClients steps down the primary of a
// simulated set whose members each set up a new connection in 20 ms, one
// at a time (accept_cost=20ms), under the load of K clients, each with a
// cold pool of 5 (maxConnecting 4) whose calls (200 ms each) keep it full once the step-down
// has piled them up. The K pools refill on the new primary with K·5
// connections, which its acceptor sets up one per 20 ms: by construction
// the refill takes K·5·20 ms (0.1 s, 1 s, 5 s for K = 1, 10, 50). The
// storm recorded on the new primary holds every client's pool, the
// connections they opened, and a refill time within 20 % of the
// construction for each K.
func TestReconnectStormGrowsWithClients(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a simulated replica set under 1, 10 and 50 clients for about a minute")
	}
	const (
		accept  = 20 * time.Millisecond
		pool    = 5
		perCall = 15 // calls/s per client: 3 in flight at 200 ms, under the pool
	)
	sim := startSimChild(t, "rs=3,election=1s,slots=400,service=200ms,accept_cost=20ms")
	info, err := topology.Detect(context.Background(), sim.URI)
	if err != nil {
		t.Fatal(err)
	}
	h := NewTargetHeader("rs", sim.URI, info)
	ev, err := plan.ParseEvent("8s=stepdown")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []int{1, 10, 50} {
		r := openRunner(sim.URI, 0, 0)
		// Calls wait out the refill: none is cancelled, whose connection
		// would be closed and opened again inside the storm.
		r.OpTimeout = 30 * time.Second
		// maxConnecting 4 keeps 4 attempts per pool at the acceptor, so
		// that one client alone keeps it busy through its host's delays.
		r.Workload.PoolOptions = &results.PoolOptions{Cold: true, MaxConnecting: 4}
		r.Workload.PoolSwept.MaxConnecting = true
		r.NewClient = func() *options.ClientOptions { return options.Client().ApplyURI(sim.URI) }
		r.Events, r.Header = []results.EventSpec{ev}, h
		st, err := r.RunStep(context.Background(), profileSpec(t, fmt.Sprintf("rate:%d:16s", perCall*k), k, pool, 2*pool))
		if err != nil {
			t.Fatal(err)
		}
		if err := results.ValidateStep(&st, nil); err != nil {
			t.Errorf("K=%d: the step record does not validate: %v", k, err)
		}
		if st.Profile == nil || len(st.Profile.Events) != 1 || st.PrimaryChange == nil {
			t.Fatalf("K=%d: events %+v, primary change %+v", k, st.Profile, st.PrimaryChange)
		}
		se := st.Profile.Events[0]
		t.Logf("K=%d: event fired %.3f s end %v; storms %s", k, se.FiredS, endText(se.EndS), stormsText(se.Storms))
		if len(se.Storms) == 0 {
			t.Fatalf("K=%d: no reconnect storm recorded", k)
		}
		s := se.Storms[0]
		want := float64(k*pool) * accept.Seconds()
		switch {
		case s.Host != st.PrimaryChange.After:
			t.Errorf("K=%d: the busiest storm is on %s, not on the new primary %s", k, s.Host, st.PrimaryChange.After)
		case s.Clients != k:
			t.Errorf("K=%d: %d clients opened connections in the storm, want every one", k, s.Clients)
		case s.Created < int64(k*pool) || s.Created > int64(k*pool)+int64(k):
			t.Errorf("K=%d: the storm opened %d connections, want the %d of K full pools", k, s.Created, k*pool)
		case s.RefillS == nil:
			t.Errorf("K=%d: no refill time (%d not ready)", k, s.NotReady)
		case math.Abs(*s.RefillS-want) > 0.2*want:
			t.Errorf("K=%d: refilled in %.3f s, the construction gives %.3f s (K·pool·accept_cost) ±20 %%", k, *s.RefillS, want)
		case s.SetupPerS == nil || *s.SetupPerS > 1.2/accept.Seconds():
			t.Errorf("K=%d: set up at %v/s, above the acceptor's 1/accept_cost = %.0f/s", k, s.SetupPerS, 1/accept.Seconds())
		}
	}
}

func stormsText(ss []results.ReconnectStorm) string {
	out := ""
	for _, s := range ss {
		out += fmt.Sprintf(" [%s start %.3f last %.3f created %d not ready %d clients %d refill %v setup %v/s peak %.0f/s]",
			s.Host, s.StartS, s.LastCreatedS, s.Created, s.NotReady, s.Clients, endText(s.RefillS), endText(s.SetupPerS), s.PeakCreatedPerS)
	}
	return out
}
