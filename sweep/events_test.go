package sweep

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// Each action needs a target that can take it; the refusal names the
// event, the target and why, in one line.
func TestCheckEvents(t *testing.T) {
	sim := func(topo string) results.TargetHeader {
		return results.TargetHeader{Name: "t", Topology: topo, ServerKind: topology.KindSimulator, Hosts: []string{"127.0.0.1:1"}}
	}
	real := func(topo string) results.TargetHeader {
		return results.TargetHeader{Name: "t", Topology: topo, ServerKind: topology.KindMongoDB, Hosts: []string{"127.0.0.1:1"}}
	}
	for _, c := range []struct {
		event string
		h     results.TargetHeader
		err   string // "" when it is taken
	}{
		{"1s=stepdown", sim(topology.ReplSet), ""},
		{"1s=stepdown", real(topology.ReplSet), ""},
		{"1s=stepdown", sim(topology.Standalone), "it is a standalone, and replSetStepDown steps down the primary of a replica set"},
		{"1s=stepdown", real(topology.Sharded), "it is a sharded"},
		{"1s=slow=10:2s", sim(topology.Standalone), ""},
		{"1s=freeze=2s", sim(topology.ReplSet), ""},
		{"1s=reset", sim(topology.Sharded), ""},
		{"1s=router-restart", sim(topology.Sharded), ""},
		{"1s=router-restart", sim(topology.ReplSet), "router-restart restarts a mongos"},
		{"1s=freeze=10s", sim(topology.ReplSet), ""},
		{"1s=freeze=11s", sim(topology.ReplSet), "frozen longer than 10s (electionTimeoutMillis)"},
		{"1s=freeze=11s", sim(topology.Standalone), ""},
		{"1s=slow=10:2s", real(topology.Standalone), "it is a mongodb server, and only the simulator performs slow"},
		{"1s=reset", real(topology.ReplSet), "only the simulator performs reset"},
		{"1s=freeze=2s", results.TargetHeader{Name: "t", Topology: topology.Standalone, ServerKind: topology.KindFerretDB}, "it is a ferretdb server"},
	} {
		ev, err := plan.ParseEvent(c.event)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckEvents(context.Background(), EventTarget{Header: c.h}, []results.EventSpec{ev})
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s on %s %s: %v", c.event, c.h.ServerKind, c.h.Topology, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || !strings.HasPrefix(err.Error(), `--event "`+c.event+`": target t: `)):
			t.Errorf("%s on %s %s: error %v, want one naming the event and target with %q", c.event, c.h.ServerKind, c.h.Topology, err, c.err)
		}
	}
}

// A step-down on a 3-member simulated set during a steady load: the event
// is recorded (replSetStepDown, on the old primary, ending when the
// clients know the new one, at least the election's length after it),
// the writes it refused are counted by cause (retries off), the retries
// that saved others are counted (retries on), and the cold pools refill
// on the new primary, host by host on the timeline.
func TestStepDownEventOnSimulator(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a simulated replica set for about 15 s")
	}
	const election = time.Second
	sim := startSimChild(t, "rs=3,election=1s,slots=8,service=2ms")
	info, err := topology.Detect(context.Background(), sim.URI)
	if err != nil {
		t.Fatal(err)
	}
	h := NewTargetHeader("rs", sim.URI, info)
	if h.ServerKind != topology.KindSimulator || h.Topology != topology.ReplSet {
		t.Fatalf("detected %s %s, want a simulated replica set", h.ServerKind, h.Topology)
	}
	ev, err := plan.ParseEvent("2s=stepdown")
	if err != nil {
		t.Fatal(err)
	}
	run := func(name, uri string) results.StepResult {
		t.Helper()
		r := openRunner(uri, 0, 0)
		r.Workload.Mix = []workload.MixEntry{{Op: workload.OpRead, Weight: 0.5}, {Op: workload.OpUpdate, Weight: 0.5}}
		r.Workload.PoolOptions = &results.PoolOptions{Cold: true, MaxConnecting: 2}
		r.Workload.PoolSwept.MaxConnecting = true
		r.NewClient = func() *options.ClientOptions { return options.Client().ApplyURI(uri) }
		r.Events, r.Header = []results.EventSpec{ev}, h
		if err := CheckEvents(context.Background(), r.eventTarget(), r.Events); err != nil {
			t.Fatal(err)
		}
		st, err := r.RunStep(context.Background(), profileSpec(t, "rate:200:6s", 1, 20, 50))
		if err != nil {
			t.Fatal(err)
		}
		if err := results.ValidateStep(&st, nil); err != nil {
			t.Errorf("%s: the step record does not validate: %v", name, err)
		}
		checkTimelineTotals(t, name, st)
		if st.Profile == nil || len(st.Profile.Events) != 1 {
			t.Fatalf("%s: events %+v", name, st.Profile)
		}
		se := st.Profile.Events[0]
		var clears int64
		for _, iv := range st.Profile.Timeline.Intervals {
			clears += iv.Clears
		}
		t.Logf("%s: event %+v end %v; primary change %+v; errors %+v; pool clears %d; timeline%s", name, se, endText(se.EndS), st.PrimaryChange, st.Errors, clears, timelineText(st.Profile.Timeline))
		switch {
		case se.Error != "" || se.Via != results.EventViaStepDown || se.Action != results.EventStepDown || se.Host == "":
			t.Fatalf("%s: event %+v", name, se)
		case se.FiredS < 2 || se.FiredS > 3:
			t.Errorf("%s: fired at %.3f s, want 2 s into the profile", name, se.FiredS)
		case se.EndS == nil:
			t.Fatalf("%s: no end: the clients never saw a new primary", name)
		case *se.EndS-se.FiredS < election.Seconds()*0.9:
			t.Errorf("%s: ended %.3f s after it fired, before the %s election could", name, *se.EndS-se.FiredS, election)
		}
		if c := st.PrimaryChange; c == nil || c.After == "" || c.After == c.Before {
			t.Fatalf("%s: primary change %+v", name, c)
		}
		// The election is what the step measured: it counts, unwarned.
		if !st.Measured() || st.TargetFailed != nil {
			t.Errorf("%s: not a measurement (target failed %+v)", name, st.TargetFailed)
		}
		for _, w := range st.Warnings {
			if strings.Contains(w, "primary changed") {
				t.Errorf("%s: warned of the election it fired: %s", name, w)
			}
		}
		return st
	}

	// Retries off: the refused writes are the ops' errors, server errors
	// whose cause is a primary gone.
	off := run("retries off", sim.URI+"&retryWrites=false&retryReads=false")
	var errs results.ErrorCounts
	for _, iv := range off.Profile.Timeline.Intervals {
		if e := iv.Errors; e != nil {
			errs.Server += e.Server
			errs.NotWritablePrimary += e.NotWritablePrimary
			errs.PoolCleared += e.PoolCleared
		}
	}
	if errs.NotWritablePrimary == 0 || errs.NotWritablePrimary > errs.Server+off.Errors.Network {
		t.Errorf("retries off: %d not-writable-primary errors of %d server errors (step %+v)", errs.NotWritablePrimary, errs.Server, off.Errors)
	}
	refill(t, "retries off", off)

	// Retries on (the driver's default): writes the old primary refused
	// succeed on the new one, counted as retried.
	on := run("retries on", sim.URI)
	var retried int64
	for _, iv := range on.Profile.Timeline.Intervals {
		retried += iv.RetriedOK
	}
	if retried == 0 {
		t.Errorf("retries on: no operation counted as succeeding on retry (errors %+v)", on.Errors)
	}
	refill(t, "retries on", on)
}

// refill: the new primary had no connection before the event (the pools
// are cold and only the primary is used), had some created after it, and
// holds some at the end; the per-host counts add up to the interval's.
func refill(t *testing.T, name string, st results.StepResult) {
	t.Helper()
	tl, se, newP := st.Profile.Timeline, st.Profile.Events[0], st.PrimaryChange.After
	var before, after, open int64
	for i, iv := range tl.Intervals {
		var created, closed int64
		for _, hc := range iv.Hosts {
			created += hc.Created
			closed += hc.Closed
			if hc.Host != newP {
				continue
			}
			if float64(i+1)*tl.IntervalS <= se.FiredS {
				before += hc.Created
			} else {
				after += hc.Created
			}
			open = int64(hc.Open)
		}
		if created != iv.Created || closed != iv.Closed {
			t.Errorf("%s: interval %d: hosts created %d closed %d, the interval %d and %d", name, i, created, closed, iv.Created, iv.Closed)
		}
	}
	if before != 0 || after == 0 || open == 0 {
		t.Errorf("%s: the new primary %s: %d connections created before the step-down, %d after, %d open at the end", name, newP, before, after, open)
	}
}

func endText(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// poolClearedError stands for the driver's error for a checkout from a
// cleared pool, which it does not export: what it is known by is the
// retryable pool error's interface.
type poolClearedError struct{}

func (poolClearedError) Error() string   { return "connection pool for h:1 was cleared" }
func (poolClearedError) Retryable() bool { return true }

// Errors are filed by kind and, beside it, by the cause an event brings.
func TestErrorCauses(t *testing.T) {
	for _, c := range []struct {
		name        string
		err         error
		kind, cause int
	}{
		{"not writable primary", mongo.CommandError{Code: 10107, Name: "NotWritablePrimary"}, errServer, causeNotPrimary},
		{"not primary, no secondaryOk", mongo.CommandError{Code: 13435}, errServer, causeNotPrimary},
		{"not primary or secondary", mongo.CommandError{Code: 13436}, errServer, causeNotPrimary},
		{"stepped down", mongo.CommandError{Code: 189}, errServer, causeNotPrimary},
		{"interrupted by a state change", mongo.WriteException{WriteErrors: []mongo.WriteError{{Code: 11602}}}, errServer, causeNotPrimary},
		{"another server error", mongo.CommandError{Code: 11000}, errServer, causeOther},
		{"pool cleared", poolClearedError{}, errNetwork, causePoolCleared},
		{"pool cleared, wrapped", fmt.Errorf("find: %w", poolClearedError{}), errNetwork, causePoolCleared},
		{"network", mongo.CommandError{Labels: []string{"NetworkError"}}, errNetwork, causeOther},
		{"timeout", context.DeadlineExceeded, errTimeout, causeOther},
	} {
		if k, cause := classify(c.err), errCause(c.err); k != c.kind || cause != c.cause {
			t.Errorf("%s: kind %d cause %d, want %d and %d", c.name, k, cause, c.kind, c.cause)
		}
	}
}

// endRecorder is an EventEnder that notes when it was asked to end.
type endRecorder struct {
	at  chan time.Time
	err error
}

func (e endRecorder) End(context.Context, EventTarget, results.EventSpec, Fired) error {
	e.at <- time.Now()
	return e.err
}

// An action the server does not end by itself is ended once its length
// has passed, or at once when the step ends first; a failure to end it
// is the event's error.
func TestEventEnder(t *testing.T) {
	ev := results.EventSpec{Spec: "0s=freeze=1s", Action: results.EventFreeze, DurationS: 1}
	f := &eventFire{out: make([]results.StepEvent, 1)}
	e := endRecorder{at: make(chan time.Time, 1)}
	start := time.Now()
	f.endAfter(context.Background(), 0, e, EventTarget{}, ev, Fired{For: 200 * time.Millisecond})
	if d := (<-e.at).Sub(start); d < 200*time.Millisecond {
		t.Errorf("ended %s after it fired, before its 200ms", d)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.err = context.DeadlineExceeded
	start = time.Now()
	f.endAfter(ctx, 0, e, EventTarget{}, ev, Fired{For: time.Hour})
	if d := (<-e.at).Sub(start); d > time.Minute {
		t.Errorf("the step had ended, yet it was ended only %s later", d)
	}
	if !strings.HasPrefix(f.out[0].Error, "ending it: ") {
		t.Errorf("error %q, want why it could not be ended", f.out[0].Error)
	}
}

// A target's failure that began while the step's own event lasted (or
// within a second of its end) is the event's; one outside every
// performed event's span is the target's.
func TestEventFailure(t *testing.T) {
	end := 5.0
	ps := &results.ProfileStats{Events: []results.StepEvent{
		{EventSpec: results.EventSpec{Spec: "2s=freeze=3s", Action: results.EventFreeze}, FiredS: 2, EndS: &end},
		{EventSpec: results.EventSpec{Spec: "8s=reset", Action: results.EventReset}, FiredS: 8, Error: "no such command"},
		{EventSpec: results.EventSpec{Spec: "10s=stepdown", Action: results.EventStepDown}, FiredS: 10},
	}}
	for _, c := range []struct {
		first float64
		want  string // the event's spec, "" for none
	}{
		{1.0, ""},             // before any event
		{2.0, "2s=freeze=3s"}, // as it fired
		{4.9, "2s=freeze=3s"}, // while it lasted
		{5.9, "2s=freeze=3s"}, // within the grace after its end
		{6.5, ""},             // past it
		{8.2, ""},             // the reset was never performed
		{12, "10s=stepdown"},  // the step-down never ended in the step
		{0, ""},               // no time: the target's
	} {
		got := eventFailure(ps, &results.TargetFailed{Failed: true, FirstFailureS: c.first})
		if (got == nil) != (c.want == "") || got != nil && got.Spec != c.want {
			t.Errorf("first failure at %v s: %+v, want %q", c.first, got, c.want)
		}
	}
}
