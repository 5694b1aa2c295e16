package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// profileSpec is a profile step of spec over clients clients, with pool
// and max in flight per client.
func profileSpec(t *testing.T, spec string, clients, pool, maxInFlight int) plan.StepSpec {
	t.Helper()
	p, err := loadprofile.Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return plan.StepSpec{Target: "sim", Workload: "read", Concurrency: maxInFlight, MaxPoolSize: pool, PoolSetting: itoa(pool),
		Clients: clients, Trial: 1, Rate: int(math.Ceil(p.Peak())), Arrivals: results.ArrivalsUniform, Profile: &p}
}

// timelineText is a timeline, one interval per part, for the log.
func timelineText(tl results.Timeline) string {
	var b strings.Builder
	for i, iv := range tl.Intervals {
		p99 := "-"
		if iv.P99MS != nil {
			p99 = fmt.Sprintf("%.1f", *iv.P99MS)
		}
		fmt.Fprintf(&b, " %d:%d/%d/p99=%s/open=%d+%d", i, iv.Offered, iv.Calls, p99, iv.Open, iv.Created)
	}
	return b.String()
}

// checkTimelineTotals: the timeline adds up to the step's own totals.
func checkTimelineTotals(t *testing.T, name string, st results.StepResult) {
	t.Helper()
	var offered, calls, ops, dropped, created, closed int64
	var errs results.ErrorCounts
	for _, iv := range st.Profile.Timeline.Intervals {
		offered += iv.Offered
		calls += iv.Calls
		ops += iv.Ops
		dropped += iv.Dropped
		created += iv.Created
		closed += iv.Closed
		if iv.Errors != nil {
			errs.Timeout += iv.Errors.Timeout
			errs.Network += iv.Errors.Network
			errs.Server += iv.Errors.Server
			errs.NotWritablePrimary += iv.Errors.NotWritablePrimary
			errs.PoolCleared += iv.Errors.PoolCleared
		}
	}
	o := st.Open
	for _, c := range []struct {
		what       string
		got, total int64
	}{{"offered", offered, o.Offered}, {"calls", calls, st.Calls}, {"ops", ops, st.Ops}, {"dropped", dropped, o.Dropped},
		{"created", created, st.Profile.Summary.ConnectionsCreated}, {"created (pool)", created, st.Pool.ConnectionsCreated},
		{"closed", closed, st.Profile.Summary.ConnectionsClosed}, {"errors", errs.Total(), st.Errors.Total()},
		{"not-writable-primary errors", errs.NotWritablePrimary, st.Errors.NotWritablePrimary}, {"pool-cleared errors", errs.PoolCleared, st.Errors.PoolCleared}} {
		if c.got != c.total {
			t.Errorf("%s: the timeline's %s add up to %d, the step's are %d", name, c.what, c.got, c.total)
		}
	}
}

// TestProfileStepOnSimulator runs idle:300ms,rate:400:1.5s,idle:500ms on
// the simulator (slots=8, service=2ms: 4,000 calls/s by construction, so
// 400/s is a tenth of it; each new connection costs the serial acceptor
// 5 ms) over two clients: the timeline offers nothing in the idle
// intervals and the rate's tenth in each loaded one, the calls add up to
// the profile's integral, and the timeline adds up to the step's totals.
// A cold pool (maxConnecting 2) creates its connections in the first
// loaded intervals and its open count rises from 0; a warm pool (pre-warmed
// to its size) creates none during the load.
func TestProfileStepOnSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator for about 8 s")
	}
	const (
		rate    = 400
		clients = 2
		pool    = 20
	)
	sim := startSimChild(t, "slots=8,service=2ms,accept_cost=5ms")
	run := func(name string, cold bool) results.StepResult {
		t.Helper()
		r := openRunner(sim.URI, 0, 0)
		if cold {
			r.Workload.PoolOptions = &results.PoolOptions{Cold: true, MaxConnecting: 2}
			r.Workload.PoolSwept.MaxConnecting = true
		}
		st, err := r.RunStep(context.Background(), profileSpec(t, "idle:300ms,rate:400:1.5s,idle:500ms", clients, pool, 50))
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode != results.ModeProfile || st.Profile == nil || st.Open == nil {
			t.Fatalf("%s: not a profile step: mode %q profile %v", name, st.Mode, st.Profile)
		}
		t.Logf("%s: calls %d, ops %d, p99 %.2f ms, dropped %d, created %d, warnings %q; timeline%s", name, st.Calls, st.Ops, st.Latency.P99,
			st.Open.Dropped, st.Pool.ConnectionsCreated, st.Warnings, timelineText(st.Profile.Timeline))
		if err := results.ValidateStep(&st, nil); err != nil {
			t.Errorf("%s: the step record does not validate: %v", name, err)
		}
		return st
	}
	for _, name := range []string{"cold", "warm"} {
		st := run(name, name == "cold")
		tl := st.Profile.Timeline
		if tl.IntervalS != 0.1 {
			t.Fatalf("%s: interval %v s, want 0.1", name, tl.IntervalS)
		}
		if len(tl.Intervals) < 23 {
			t.Fatalf("%s: %d intervals, want the profile's 23 at least", name, len(tl.Intervals))
		}
		// What the schedule fixes holds on any host: each interval offers
		// the profile's integral over it, within one arrival per client
		// (a client's last arrival of a phase may fall on its end, in the
		// next interval); an idle interval away from the load offers none.
		for i, iv := range tl.Intervals {
			loaded := i >= 3 && i < 18
			switch {
			case !loaded && i != 18 && iv.Offered != 0:
				t.Errorf("%s: idle interval %d offered %d arrivals", name, i, iv.Offered)
			case !loaded && iv.Offered > clients:
				t.Errorf("%s: interval %d after the load offered %d arrivals, at most one per client", name, i, iv.Offered)
			case loaded && math.Abs(float64(iv.Offered)-rate*0.1) > clients:
				t.Errorf("%s: loaded interval %d offered %d arrivals, want %d ± %d", name, i, iv.Offered, rate/10, clients)
			}
			if iv.Calls > 0 && (iv.P50MS == nil || iv.P99MS == nil || *iv.P50MS > *iv.P99MS || *iv.P50MS < 2*(1-TimelineQuantileError)) {
				t.Errorf("%s: interval %d: %d calls with p50 %v p99 %v ms (the service time is 2 ms)", name, i, iv.Calls, iv.P50MS, iv.P99MS)
			}
		}
		if o := st.Open.Offered; math.Abs(float64(o)-rate*1.5) > clients {
			t.Errorf("%s: offered %d arrivals, the profile's integral is %d", name, o, rate*3/2)
		}
		// Every arrival was issued and carried (400/s is a tenth of the
		// simulator's capacity, with 50 slots per client).
		if st.Calls+st.Open.Dropped+st.Open.NotIssued+int64(st.InFlightAtClose) != st.Open.Offered || st.Open.Dropped != 0 && behindEvidence(st) == "" {
			t.Errorf("%s: %d calls, %d dropped, %d not issued, %d stuck of %d offered", name, st.Calls, st.Open.Dropped, st.Open.NotIssued, st.InFlightAtClose, st.Open.Offered)
		}
		checkTimelineTotals(t, name, st)
		switch name {
		case "cold":
			if tl.Intervals[2].Open != 0 || st.Connections != 0 {
				t.Errorf("cold: %d connections open before the load (%d at the start)", tl.Intervals[2].Open, st.Connections)
			}
			if c := tl.Intervals[3].Created + tl.Intervals[4].Created; c == 0 {
				t.Errorf("cold: no connection created in the first two loaded intervals")
			}
			peak := 0
			for i, iv := range tl.Intervals {
				if i > 0 && iv.Open < tl.Intervals[i-1].Open {
					t.Errorf("cold: open fell from %d to %d at interval %d with no idle timeout", tl.Intervals[i-1].Open, iv.Open, i)
				}
				peak = max(peak, iv.Open)
			}
			if peak < 2 || int64(peak) != st.Pool.ConnectionsCreated {
				t.Errorf("cold: open rose to %d, %d created", peak, st.Pool.ConnectionsCreated)
			}
			if st.Profile.Summary.ConnectionsCreated == 0 {
				t.Errorf("cold: summary created 0")
			}
		case "warm":
			if st.Connections != pool*clients {
				t.Fatalf("warm: %d connections open at the start, want %d (warnings %q)", st.Connections, pool*clients, st.Warnings)
			}
			for i, iv := range tl.Intervals {
				if iv.Created != 0 || iv.Open != pool*clients {
					t.Errorf("warm: interval %d created %d, open %d (pre-warmed to %d)", i, iv.Created, iv.Open, pool*clients)
				}
			}
		}
	}
}

// TestProfileStepInterrupted: a profile step cancelled in its load ends
// at once, marked interrupted with the context's error, and what it
// recorded so far still adds up.
func TestProfileStepInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator for about 1 s")
	}
	sim := startSimChild(t, "slots=8,service=2ms")
	r := openRunner(sim.URI, 0, 0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { time.Sleep(500 * time.Millisecond); cancel() }()
	start := time.Now()
	st, err := r.RunStep(ctx, profileSpec(t, "idle:100ms,rate:200:20s", 1, 10, 50))
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the cancelled 20-s profile took %s to end", took)
	}
	if !errors.Is(err, context.Canceled) || !st.Interrupted || st.Profile == nil {
		t.Fatalf("err %v, interrupted %v, profile %v", err, st.Interrupted, st.Profile != nil)
	}
	if n := len(st.Profile.Timeline.Intervals); n > 100 {
		t.Errorf("%d intervals recorded for half a second", n)
	}
	checkTimelineTotals(t, "interrupted", st)
}
