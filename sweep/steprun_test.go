package sweep

import (
	"cmp"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/teardown"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// TestStepClientOptions: the step's clients keep what the user set (URI or
// flags) and get poolsweep's settings only where the user set nothing:
// the step's pool, maxConnecting 64, and no server-selection timeout of
// their own (--op-timeout bounds every op); a series that sweeps
// maxConnecting (--max-connecting) sets it over the URI's.
func TestStepClientOptions(t *testing.T) {
	spec := plan.StepSpec{Concurrency: 32, MaxPoolSize: 16, Clients: 1}
	tests := []struct {
		uri        string
		flag       int // the series' --max-connecting, 0 when not swept
		ssTimeout  time.Duration
		connecting uint64
	}{
		// A pool of 16 never opens more than 16 at once: maxConnecting 16.
		{"mongodb://h:27017", 0, 0, 16},
		{"mongodb://h:27017/?serverSelectionTimeoutMS=1500", 0, 1500 * time.Millisecond, 16},
		{"mongodb://h:27017/?maxConnecting=5", 0, 0, 5},
		{"mongodb://h:27017/?maxConnecting=5", 9, 0, 9},
	}
	for _, tt := range tests {
		r := &runner{NewClient: func() *options.ClientOptions { return options.Client().ApplyURI(tt.uri) }}
		if tt.flag > 0 {
			r.Workload.PoolOptions = &results.PoolOptions{MaxConnecting: tt.flag}
			r.Workload.PoolSwept = results.PoolAxes{MaxConnecting: true}
		}
		o := r.stepClientOptions(spec, 16, nil, nil)
		if o.ServerSelectionTimeout == nil || *o.ServerSelectionTimeout != tt.ssTimeout {
			t.Errorf("%s: server selection timeout %v, want %v", tt.uri, o.ServerSelectionTimeout, tt.ssTimeout)
		}
		if o.MaxConnecting == nil || *o.MaxConnecting != tt.connecting {
			t.Errorf("%s --max-connecting %d: maxConnecting %v, want %d", tt.uri, tt.flag, o.MaxConnecting, tt.connecting)
		}
		if *o.MaxPoolSize != 16 || *o.MinPoolSize != 16 {
			t.Errorf("%s: pool %d..%d, want 16..16", tt.uri, *o.MinPoolSize, *o.MaxPoolSize)
		}
	}
	// The driver runs a goroutine per maxConnecting in each pool: a pool
	// of 1 (a light client) gets 1, one of 100 the default 64.
	r := &runner{NewClient: func() *options.ClientOptions { return options.Client().ApplyURI("mongodb://h:27017") }}
	for pool, want := range map[int]uint64{1: 1, 100: DefaultMaxConnecting} {
		if o := r.stepClientOptions(plan.StepSpec{Concurrency: 1, MaxPoolSize: pool, Clients: 1}, 1, nil, nil); o.MaxConnecting == nil || *o.MaxConnecting != want {
			t.Errorf("pool %d: maxConnecting %v, want %d", pool, o.MaxConnecting, want)
		}
	}
}

// TestStepClientOptionsPoolSeries: each series' pool options reach its
// clients, and its steps record what the clients ran with: a warm series
// is held at the step's need unless it sweeps minPoolSize; a cold one
// starts empty (the URI's minPoolSize, else 0) and opens connections at
// the driver's own maxConnecting (the URI's, else 2) unless it sweeps
// maxConnecting; an idle time or timeout not swept is the URI's, else
// none.
func TestStepClientOptionsPoolSeries(t *testing.T) {
	spec := plan.StepSpec{Concurrency: 500, MaxPoolSize: 64, Clients: 1}
	all := results.PoolAxes{MinPool: true, MaxConnecting: true, MaxIdle: true, Timeout: true}
	ms := func(v int64) *time.Duration { d := time.Duration(v) * time.Millisecond; return &d }
	tests := []struct {
		name   string
		uri    string
		series *results.PoolOptions
		swept  results.PoolAxes
		// The client's options: nil where the driver's default holds.
		minPool, connecting  *uint64
		idle, timeout        *time.Duration
		retry                *bool // retryReads, and retryWrites where swept
		selection, heartbeat *time.Duration
		// The step's pool_options; the driver's options not given here
		// are their defaults in effect (retry on, the heartbeat 10 s, the
		// wait for a server --op-timeout).
		record results.PoolOptions
	}{
		{name: "steady series, no option", uri: "mongodb://h/", series: nil,
			minPool: u64(64), connecting: u64(DefaultMaxConnecting)},
		{name: "warm profile, nothing swept: held at the need", uri: "mongodb://h/", series: &results.PoolOptions{},
			minPool: u64(64), connecting: u64(DefaultMaxConnecting),
			record: results.PoolOptions{MinPoolSize: 64, MaxConnecting: DefaultMaxConnecting}},
		{name: "warm, every option swept", uri: "mongodb://h/?maxConnecting=5&maxIdleTimeMS=7&timeoutMS=9",
			series: &results.PoolOptions{MinPoolSize: 0, MaxConnecting: 16, MaxIdleMS: 500, TimeoutMS: 50}, swept: all,
			minPool: u64(0), connecting: u64(16), idle: ms(500), timeout: ms(50),
			record: results.PoolOptions{MinPoolSize: 0, MaxConnecting: 16, MaxIdleMS: 500, TimeoutMS: 50}},
		{name: "cold, nothing swept: empty, the driver's maxConnecting", uri: "mongodb://h/", series: &results.PoolOptions{Cold: true},
			minPool: u64(0), record: results.PoolOptions{MaxConnecting: 2, Cold: true}},
		{name: "cold keeps the URI's options", uri: "mongodb://h/?minPoolSize=3&maxConnecting=4&maxIdleTimeMS=1000&timeoutMS=2000",
			series:  &results.PoolOptions{Cold: true},
			minPool: u64(3), connecting: u64(4), idle: ms(1000), timeout: ms(2000),
			record: results.PoolOptions{MinPoolSize: 3, MaxConnecting: 4, MaxIdleMS: 1000, TimeoutMS: 2000, Cold: true}},
		{name: "cold, min-pool and max-connecting swept", uri: "mongodb://h/?minPoolSize=3",
			series: &results.PoolOptions{MinPoolSize: 32, MaxConnecting: 16, Cold: true}, swept: results.PoolAxes{MinPool: true, MaxConnecting: true},
			minPool: u64(32), connecting: u64(16), record: results.PoolOptions{MinPoolSize: 32, MaxConnecting: 16, Cold: true}},
		{name: "max-idle 0 swept over the URI's", uri: "mongodb://h/?maxIdleTimeMS=1000",
			series: &results.PoolOptions{}, swept: results.PoolAxes{MaxIdle: true},
			minPool: u64(64), connecting: u64(DefaultMaxConnecting), idle: ms(0),
			record: results.PoolOptions{MinPoolSize: 64, MaxConnecting: DefaultMaxConnecting}},
		{name: "the driver's options swept over the URI's", uri: "mongodb://h/?retryReads=true&retryWrites=true&serverSelectionTimeoutMS=7000&heartbeatFrequencyMS=20000",
			series:  &results.PoolOptions{RetryReads: "off", RetryWrites: "off", ServerSelectionTimeoutMS: 2000, HeartbeatMS: 500},
			swept:   results.PoolAxes{Retry: true, ServerSelectionTimeout: true, Heartbeat: true},
			minPool: u64(64), connecting: u64(DefaultMaxConnecting), retry: boolp(false), selection: ms(2000), heartbeat: ms(500),
			record: results.PoolOptions{MinPoolSize: 64, MaxConnecting: DefaultMaxConnecting, RetryReads: "off", RetryWrites: "off", ServerSelectionTimeoutMS: 2000, HeartbeatMS: 500}},
		{name: "the URI's driver options kept where not swept", uri: "mongodb://h/?retryWrites=false&serverSelectionTimeoutMS=7000&heartbeatFrequencyMS=20000",
			series: &results.PoolOptions{}, minPool: u64(64), connecting: u64(DefaultMaxConnecting), selection: ms(7000), heartbeat: ms(20000),
			record: results.PoolOptions{MinPoolSize: 64, MaxConnecting: DefaultMaxConnecting, RetryWrites: "off", ServerSelectionTimeoutMS: 7000, HeartbeatMS: 20000}},
	}
	for _, tt := range tests {
		r := &runner{NewClient: func() *options.ClientOptions { return options.Client().ApplyURI(tt.uri) }, OpTimeout: 5 * time.Second}
		r.Workload.PoolOptions, r.Workload.PoolSwept = tt.series, tt.swept
		o := r.stepClientOptions(spec, poolWant(spec), nil, nil)
		want := tt.record
		want.RetryReads, want.RetryWrites = cmp.Or(want.RetryReads, "on"), cmp.Or(want.RetryWrites, "on")
		want.ServerSelectionTimeoutMS, want.HeartbeatMS = cmp.Or(want.ServerSelectionTimeoutMS, 5000), cmp.Or(want.HeartbeatMS, 10000)
		tt.record = want
		sel := tt.selection
		if sel == nil {
			sel = ms(0) // poolsweep's own: none, --op-timeout bounds the wait
		}
		for _, c := range []struct {
			what      string
			got, want any
		}{
			{"minPoolSize", orUnset(o.MinPoolSize), orUnset(tt.minPool)},
			{"maxConnecting", orUnset(o.MaxConnecting), orUnset(tt.connecting)},
			{"maxIdleTime", orUnset(o.MaxConnIdleTime), orUnset(tt.idle)},
			{"timeout", orUnset(o.Timeout), orUnset(tt.timeout)},
			{"retryReads", orUnset(o.RetryReads), orUnset(tt.retry)},
			{"serverSelectionTimeout", orUnset(o.ServerSelectionTimeout), orUnset(sel)},
			{"heartbeatInterval", orUnset(o.HeartbeatInterval), orUnset(tt.heartbeat)},
		} {
			if c.got != c.want {
				t.Errorf("%s: %s %v, want %v", tt.name, c.what, c.got, c.want)
			}
		}
		step := r.newStep(spec)
		switch {
		case tt.series == nil && step.PoolOptions != nil:
			t.Errorf("%s: a series without pool options recorded %+v", tt.name, *step.PoolOptions)
		case tt.series != nil && (step.PoolOptions == nil || *step.PoolOptions != tt.record):
			t.Errorf("%s: recorded %+v, want %+v", tt.name, step.PoolOptions, tt.record)
		}
	}
}

func u64(v uint64) *uint64 { return &v }

func boolp(v bool) *bool { return &v }

// orUnset is *p, or "unset" for nil, so that a table compares both.
func orUnset[T any](p *T) any {
	if p == nil {
		return "unset"
	}
	return *p
}

// TestColdStepStartsEmpty: on the simulator, a cold series' pool opens
// nothing before its first call (no pre-warm, minPoolSize 0): the
// driver's pool events show connections created only once a call needs
// one; a warm series' pre-warm has opened the step's need before any.
func TestColdStepStartsEmpty(t *testing.T) {
	t.Parallel()
	sim := startSimChild(t, "slots=8,service=1ms")
	spec := plan.StepSpec{Concurrency: 500, MaxPoolSize: 8, Clients: 1}
	for _, cold := range []bool{true, false} {
		r := newSimRunner(sim.URI, time.Second)
		r.Workload.PoolOptions = &results.PoolOptions{Cold: cold}
		pool := newPoolRecorder()
		clients, err := r.connect(spec, poolWant(spec), pool, nil)
		if err != nil {
			t.Fatal(err)
		}
		step := r.newStep(spec)
		if err := r.prewarmStep(t.Context(), spec, &step, clients, pool, poolWant(spec)); err != nil {
			t.Fatal(err)
		}
		// A pool that fills in the background would have begun by now.
		time.Sleep(300 * time.Millisecond)
		before := pool.created.Load()
		if err := clients[0].Database("admin").RunCommand(t.Context(), bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
			t.Fatal(err)
		}
		after := pool.created.Load()
		disconnect(clients)
		switch {
		case cold && (before != 0 || after < 1):
			t.Errorf("cold: %d connections created before the first call, %d after; want 0, then at least 1", before, after)
		case !cold && before < int64(poolWant(spec)):
			t.Errorf("warm: %d connections created before the first call; want the pre-warm's %d", before, poolWant(spec))
		}
		t.Logf("cold %v: %d created before the first call, %d after", cold, before, after)
	}
}

// TestRunStepNeedsOpTimeout: a step without an op bound would wait forever
// on a stuck server (its clients have no timeout of their own): RunStep
// refuses it before connecting.
func TestRunStepNeedsOpTimeout(t *testing.T) {
	connected := false
	r := &runner{NewClient: func() *options.ClientOptions { connected = true; return options.Client() }}
	for _, rate := range []int{0, 100} {
		_, err := r.RunStep(t.Context(), plan.StepSpec{Concurrency: 1, MaxPoolSize: 1, Clients: 1, Rate: rate})
		if err == nil || !strings.Contains(err.Error(), "OpTimeout") || connected {
			t.Errorf("rate %d: err %v, connected %v; want a refusal naming OpTimeout, before connecting", rate, err, connected)
		}
	}
}

// TestDisconnectStoppedServer: closing a step's clients ends in bounded
// time even when the driver's Disconnect does not. With connectTimeoutMS=0
// (a user's URI may say so) a connection handshaking with a stopped server
// is never cancelled, and Disconnect waits for it before it looks at its
// context: the sweep stayed in the step's teardown until the server woke.
// The bound is disconnect's deadline (disconnectTimeout, 10 s) plus
// teardown.Grace; the test gives the same code a 1-s deadline. It closes
// the clients only once the pool has a handshake in flight with the
// stopped server (a connection created and neither ready nor closed), so
// that Disconnect does hang, and checks that the teardown ended at the
// bound: not before the deadline (the bound, not Disconnect, ended it),
// and within deadline + Grace.
func TestDisconnectStoppedServer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("stops a simulator for the teardown bound")
	}
	const deadline = time.Second
	sim := startSimChild(t, "slots=8,service=1ms")
	var mu sync.Mutex
	handshaking := map[int64]bool{} // connections created and not yet ready or closed
	monitor := &event.PoolMonitor{Event: func(e *event.PoolEvent) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Type {
		case event.ConnectionCreated:
			handshaking[e.ConnectionID] = true
		case event.ConnectionReady, event.ConnectionClosed:
			delete(handshaking, e.ConnectionID)
		}
	}}
	inFlight := func() int { mu.Lock(); defer mu.Unlock(); return len(handshaking) }
	r := &runner{NewClient: func() *options.ClientOptions {
		return options.Client().ApplyURI(sim.URI).SetDirect(true).SetConnectTimeout(0)
	}}
	c, err := mongo.Connect(r.stepClientOptions(plan.StepSpec{Concurrency: 4, MaxPoolSize: 4, Clients: 1}, 1, monitor, nil))
	if err != nil {
		t.Fatal(err)
	}
	clients := []*mongo.Client{c}
	ping := func(d time.Duration) error {
		ctx, cancel := context.WithTimeout(t.Context(), d)
		defer cancel()
		return c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
	}
	if err := ping(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for end := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(end) {
				t.Fatalf("no %s within 10 s", what)
			}
		}
	}
	waitFor("handshake done before the stop", func() bool { return inFlight() == 0 })
	sim.Cmd.Process.Signal(syscall.SIGSTOP)
	// More calls than the one open connection: the pool dials more, whose
	// handshakes with the stopped server hang.
	waitFor("handshake in flight with the stopped server", func() bool {
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() { ping(300 * time.Millisecond) })
		}
		wg.Wait()
		return inFlight() > 0
	})
	// Keep asking for connections while the teardown starts, so a
	// handshake is still hanging when Disconnect begins even if the pool
	// gave up on the ones above (a busy host once closed them first and
	// the teardown found nothing to wait for).
	pinging, stopPings := context.WithCancel(t.Context())
	var pingers sync.WaitGroup
	defer pingers.Wait()
	defer stopPings()
	pingers.Go(func() {
		for pinging.Err() == nil {
			ping(300 * time.Millisecond)
		}
	})
	start := time.Now()
	done := make(chan struct{})
	go func() { disconnectWithin(clients, deadline); stopPings(); close(done) }()
	// Slack past the bound for a busy host's timers.
	limit := deadline + teardown.Grace + 5*time.Second
	select {
	case <-done:
		took := time.Since(start)
		t.Logf("teardown against a stopped server, %d handshake(s) in flight, took %s (deadline %s, grace %s)", inFlight(), took.Round(time.Millisecond), deadline, teardown.Grace)
		if took < deadline {
			t.Errorf("the teardown ended after %s, before its %s deadline: Disconnect did not hang on the stopped server, so the bound was not tested", took, deadline)
		}
	case <-time.After(limit):
		t.Errorf("closing a step's clients against a stopped server did not end within %s (deadline %s + grace %s)", limit, deadline, teardown.Grace)
	}
}

// TestTimeoutChurn: what docs/sweep.md says the driver does when a
// series' timeoutMS (--timeout) passes before the reply: the connection
// is kept when the reply comes within the driver's background read
// (400 ms), and closed when it comes later, so that the next call opens
// a new one. On the simulator, with a 50-ms timeout: a 200-ms service
// time closes nothing, a 1.5-s one closes the connection.
func TestTimeoutChurn(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		service   string
		wantClose bool
	}{{"200ms", false}, {"1500ms", true}} {
		sim := startSimChild(t, "slots=4,service="+c.service)
		r := newSimRunner(sim.URI, time.Second)
		r.Workload.PoolOptions = &results.PoolOptions{TimeoutMS: 50}
		r.Workload.PoolSwept = results.PoolAxes{Timeout: true}
		var created, closed atomic.Int64
		pm := &event.PoolMonitor{Event: func(e *event.PoolEvent) {
			switch e.Type {
			case event.ConnectionCreated:
				created.Add(1)
			case event.ConnectionClosed:
				closed.Add(1)
			}
		}}
		spec := plan.StepSpec{Concurrency: 1, MaxPoolSize: 1, Clients: 1}
		// The pool opens its one connection before the find: timeoutMS
		// bounds the checkout too, and on a busy host a handshake alone
		// may take 50 ms, which would time the find out before it is sent.
		// The driver also fails an operation unsent when less of its
		// timeout is left than the round trips it has measured, which a
		// busy host's slow round trips can make it do: only a find that
		// was sent tests what a late reply costs, so each attempt's
		// sending is watched, and a find is tried again until one is sent.
		var sent atomic.Int64
		cm := &event.CommandMonitor{Started: func(_ context.Context, e *event.CommandStartedEvent) {
			if e.CommandName == "find" {
				sent.Add(1)
			}
		}}
		o := r.stepClientOptions(spec, 0, pm, cm).SetMinPoolSize(1)
		c0, err := mongo.Connect(o)
		if err != nil {
			t.Fatal(err)
		}
		for end := time.Now().Add(10 * time.Second); created.Load() == 0 && time.Now().Before(end); {
			time.Sleep(20 * time.Millisecond)
		}
		coll := c0.Database(r.Workload.Database).Collection(r.Workload.Collection)
		for try := 1; sent.Load() == 0; try++ {
			err = coll.FindOne(t.Context(), bson.D{{Key: "_id", Value: "user1"}}).Err()
			if !mongo.IsTimeout(err) {
				t.Fatalf("service %s: %v, want the 50-ms timeout", c.service, err)
			}
			if try == 20 {
				t.Fatalf("service %s: 20 finds timed out before the driver sent one", c.service)
			}
		}
		// Past the background read's 400 ms and the reply; a busy host's
		// timers may take longer, so a close is waited for up to 6 s.
		time.Sleep(2 * time.Second)
		for end := time.Now().Add(4 * time.Second); c.wantClose && closed.Load() == 0 && time.Now().Before(end); {
			time.Sleep(50 * time.Millisecond)
		}
		disconnectCount := closed.Load()
		disconnect([]*mongo.Client{c0})
		t.Logf("service %s, timeout 50ms: %d created, %d closed before disconnect", c.service, created.Load(), disconnectCount)
		if got := disconnectCount > 0; got != c.wantClose {
			t.Errorf("service %s, timeout 50ms: %d connections closed; want closed %v", c.service, disconnectCount, c.wantClose)
		}
	}
}
