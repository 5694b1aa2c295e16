package sim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// The simulator's events (poolsweepSimEvent) through the Go driver alone:
// what a client sees of a slowdown, a freeze, a reset and a router
// restart, and the time a step-down costs a client under load.

// simEvent sends the simulator's event command through c (admin).
func simEvent(ctx context.Context, c *mongo.Client, action string, factor float64, ms int64) (bson.Raw, error) {
	cmd := bson.D{{Key: simEventCommand, Value: action}}
	if factor != 0 {
		cmd = append(cmd, bson.E{Key: "factor", Value: factor})
	}
	if ms != 0 {
		cmd = append(cmd, bson.E{Key: "durationMS", Value: ms})
	}
	return c.Database("admin").RunCommand(ctx, cmd).Raw()
}

// inUse follows a pool's connections checked out, time-weighted.
type inUse struct {
	mu     sync.Mutex
	n      int
	peak   int
	last   time.Time
	area   float64 // connection·seconds since the window began
	window time.Time
}

func (u *inUse) monitor() *event.PoolMonitor {
	return &event.PoolMonitor{Event: func(e *event.PoolEvent) {
		switch e.Type {
		case event.ConnectionCheckedOut:
			u.add(1)
		case event.ConnectionCheckedIn:
			u.add(-1)
		}
	}}
}

func (u *inUse) add(d int) {
	now := time.Now()
	u.mu.Lock()
	defer u.mu.Unlock()
	if !u.window.IsZero() {
		u.area += float64(u.n) * now.Sub(u.last).Seconds()
	}
	u.last = now
	u.n += d
	u.peak = max(u.peak, u.n)
}

// start begins a window; end returns its time-weighted mean and its peak.
func (u *inUse) start() {
	now := time.Now()
	u.mu.Lock()
	u.window, u.last, u.area, u.peak = now, now, 0, u.n
	u.mu.Unlock()
}

func (u *inUse) end() (mean float64, peak int) {
	now := time.Now()
	u.mu.Lock()
	defer u.mu.Unlock()
	u.area += float64(u.n) * now.Sub(u.last).Seconds()
	mean = u.area / now.Sub(u.window).Seconds()
	u.window = time.Time{}
	return mean, u.peak
}

// latencies records each read's start and latency.
type latencies struct {
	mu  sync.Mutex
	at  []time.Time
	lat []time.Duration
}

func (l *latencies) add(at time.Time, d time.Duration) {
	l.mu.Lock()
	l.at, l.lat = append(l.at, at), append(l.lat, d)
	l.mu.Unlock()
}

// within returns the mean and the median latency of the reads that
// started in [from, to).
func (l *latencies) within(from, to time.Time) (mean, median time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var in []time.Duration
	var sum time.Duration
	for i, at := range l.at {
		if !at.Before(from) && at.Before(to) {
			in = append(in, l.lat[i])
			sum += l.lat[i]
		}
	}
	if len(in) == 0 {
		return 0, 0
	}
	sort.Slice(in, func(i, j int) bool { return in[i] < in[j] })
	return sum / time.Duration(len(in)), in[len(in)/2]
}

// openLoop sends one point read every 1/rate seconds, each on a
// goroutine of its own (an open loop: arrivals do not wait for replies),
// until stop, counting them in sent and recording their latencies in
// lat (when not nil).
func openLoop(ctx context.Context, coll *mongo.Collection, rate float64, stop <-chan struct{}, sent *atomic.Int64, errs *atomic.Int64, lat *latencies) *sync.WaitGroup {
	var wg sync.WaitGroup
	wg.Go(func() {
		gap := time.Duration(float64(time.Second) / rate)
		next := time.Now()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Until(next)):
			}
			next = next.Add(gap)
			sent.Add(1)
			wg.Go(func() {
				t0 := time.Now()
				if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: i % 10}}).Err(); err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
					errs.Add(1)
				}
				if lat != nil {
					lat.add(t0, time.Since(t0))
				}
			})
		}
	})
	return &wg
}

// TestSimEventSlowLittle is the ground truth of the slow event: at a set
// arrival rate λ, a slowdown by F of a service time s makes the
// connections in use settle at L = λ·F·s (Little's law), which a client's
// pool shows as its peak. With λ = 100/s, s = 20 ms and slow=10:2s, L = 20:
// each 250 ms interval's mean in use peaks within 15 % of it, and falls back
// to λ·s = 2 after the slowdown.
func TestSimEventSlowLittle(t *testing.T) {
	t.Parallel()
	const (
		rate    = 100.0
		service = 20 * time.Millisecond
		factor  = 10.0
		slowFor = 2 * time.Second
	)
	d := startSim(t, fmt.Sprintf("slots=64,service=%s", service))
	var u inUse
	c, err := mongo.Connect(options.Client().ApplyURI(d.URI()).SetMaxPoolSize(200).SetTimeout(10 * time.Second).SetPoolMonitor(u.monitor()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disconnect(c) })
	ctx := t.Context()
	admin := connect(t, d.URI(), 1)
	coll := c.Database("db").Collection("c")
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var sent, errs atomic.Int64
	var lat latencies
	wg := openLoop(ctx, coll, rate, stop, &sent, &errs, &lat)
	time.Sleep(time.Second) // the pool reaches its steady state
	u.start()
	time.Sleep(time.Second)
	before, _ := u.end()
	if _, err := simEvent(ctx, admin, simEventSlow, factor, slowFor.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	// Intervals of 250 ms over the slowdown, after its first F·s (the
	// ops that started before it end by then).
	time.Sleep(time.Duration(factor) * service)
	var means []float64
	var rawPeak int
	n0 := sent.Load()
	t0 := time.Now()
	for time.Since(began) < slowFor-250*time.Millisecond {
		u.start()
		time.Sleep(250 * time.Millisecond)
		m, p := u.end()
		means = append(means, m)
		rawPeak = max(rawPeak, p)
	}
	t1 := time.Now()
	arrivals := float64(sent.Load()-n0) / t1.Sub(t0).Seconds()
	time.Sleep(slowFor - time.Since(began) + time.Duration(factor)*service + 500*time.Millisecond)
	u.start()
	time.Sleep(time.Second)
	after, _ := u.end()
	close(stop)
	wg.Wait()

	sort.Float64s(means)
	peak := means[len(means)-1]
	slowed := time.Duration(factor) * service
	want := arrivals * slowed.Seconds()
	// A busy host adds its own delays to some reads' latency W, and Little
	// holds for the W measured: the simulator's part is that the typical
	// read takes F·s (the median), the pool's that in use is λ·W.
	meanW, medianW := lat.within(t0, t1)
	t.Logf("arrivals %.0f/s; in use: %.1f before, interval means %v during (peak %.1f, raw peak %d; λ·F·s %.1f, λ·W %.1f with W %v, median %v), %.1f after",
		arrivals, before, means, peak, rawPeak, want, arrivals*meanW.Seconds(), meanW, medianW, after)
	if medianW < slowed || medianW > slowed*115/100 {
		t.Errorf("median read latency %v during slow=%g:%s, want F·s = %v (+15%%)", medianW, factor, slowFor, slowed)
	}
	if little := arrivals * max(slowed, meanW).Seconds(); peak < 0.85*want || peak > 1.15*little {
		t.Errorf("peak interval mean in use %.1f during slow=%g:%s at %.0f/s, want λ·F·s = %.1f (λ·W = %.1f on this host) ±15%%", peak, factor, slowFor, arrivals, want, little)
	}
	if base := rate * service.Seconds(); after > 2*base+1 {
		t.Errorf("in use %.1f after the slowdown ended, want back near λ·s = %.1f", after, base)
	}
	if errs.Load() > 0 {
		t.Errorf("%d reads failed; a slowdown below capacity fails none", errs.Load())
	}
}

// TestSimEventFreeze: a frozen server answers nothing for D, on the
// connections it has and on new ones, closes none, and then answers.
func TestSimEventFreeze(t *testing.T) {
	t.Parallel()
	const freeze = 800 * time.Millisecond
	d := startSim(t, "slots=8,service=1ms")
	ctx := t.Context()
	admin := connect(t, d.URI(), 1)
	c := connect(t, d.URI(), 4)
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	before := counter(t, serverStatus(t, admin), "connections", "totalCreated")
	sentAt := time.Now()
	if _, err := simEvent(ctx, admin, simEventFreeze, 0, freeze.Milliseconds()); err != nil {
		t.Fatal(err)
	}
	// The freeze began when its reply was built, at most now.
	frozeBy := time.Now()
	start := time.Now()
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatalf("ping across the freeze: %v", err)
	}
	answered := time.Now()
	fresh := connect(t, d.URI(), 1)
	if err := fresh.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	t.Logf("a ping sent %v into the freeze answered after %v", start.Sub(sentAt), answered.Sub(start))
	if answered.Sub(frozeBy) < freeze-50*time.Millisecond || answered.Sub(sentAt) > freeze+time.Second {
		t.Errorf("a ping during a %v freeze was answered %v after the freeze began, want about %v", freeze, answered.Sub(sentAt), freeze)
	}
	t0 := time.Now()
	if err := c.Ping(ctx, nil); err != nil || time.Since(t0) > 200*time.Millisecond {
		t.Errorf("after the freeze a ping took %v (%v)", time.Since(t0), err)
	}
	// No connection was closed: the clients' connections carried on, and
	// only the new client's were created.
	st := serverStatus(t, admin)
	if created := counter(t, st, "connections", "totalCreated") - before; created > 3 {
		t.Errorf("%d connections created across the freeze, want the new client's (at most 3)", created)
	}
}

// TestSimEventReset: every client connection is closed by the server;
// the driver sees network errors, clears its pool and reconnects.
func TestSimEventReset(t *testing.T) {
	t.Parallel()
	d := startSim(t, "slots=8,service=1ms")
	ctx := t.Context()
	var cleared, closed, ready atomic.Int64
	c, err := mongo.Connect(options.Client().ApplyURI(d.URI()).SetMaxPoolSize(8).SetMinPoolSize(8).SetTimeout(10 * time.Second).
		SetPoolMonitor(&event.PoolMonitor{Event: func(e *event.PoolEvent) {
			switch e.Type {
			case event.ConnectionPoolCleared:
				cleared.Add(1)
			case event.ConnectionClosed:
				closed.Add(1)
			case event.ConnectionReady:
				ready.Add(1)
			}
		}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disconnect(c) })
	admin := connect(t, d.URI(), 1)
	waitFor(t, 10*time.Second, "the pool holds minPoolSize 8", func() bool { return ready.Load() >= 8 })
	created := counter(t, serverStatus(t, admin), "connections", "totalCreated")
	f := d.fronts[0]
	f.mu.Lock()
	var old []net.Conn
	for conn := range f.conns {
		old = append(old, conn)
	}
	f.mu.Unlock()
	if _, err := simEvent(ctx, admin, simEventReset, 0, 0); err != nil {
		t.Fatal(err)
	}
	// Every connection open before the reset is gone from the server.
	waitFor(t, 10*time.Second, "the server closes every connection it had", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, conn := range old {
			if _, ok := f.conns[conn]; ok {
				return false
			}
		}
		return true
	})
	// An idle client learns of it when it next uses a connection (or at
	// its next heartbeat): the command on a pooled connection meets a
	// network error, which clears the pool; a ping is not retried.
	if err := c.Ping(ctx, nil); !mongo.IsNetworkError(err) {
		t.Errorf("the first ping after the reset: %v, want a network error", err)
	}
	waitFor(t, 2*time.Second, "the driver clears its pool", func() bool { return cleared.Load() > 0 })
	// Then it reconnects: a ping succeeds again (a connection created
	// while the pool was being cleared may fail one more).
	waitFor(t, 5*time.Second, "a ping succeeds after the reset", func() bool { return c.Ping(ctx, nil) == nil })
	// The admin client's connection was closed after the reset's reply:
	// a new client asks.
	if n := counter(t, serverStatus(t, connect(t, d.URI(), 1)), "connections", "totalCreated") - created; n < 2 || ready.Load() < 9 {
		t.Errorf("after the reset the server created %d connections and the pool made %d ready; want the clients' new ones", n, ready.Load())
	}
	t.Logf("pool cleared %d times, %d connections closed", cleared.Load(), closed.Load())
}

// TestSimEventRouterRestart: on a 2-router cluster a restarted router
// closes its connections and refuses connects for router_restart, the
// driver's reads move to the other router, and the router comes back with
// a new process's counters. A read fails only as the Go driver lets it,
// at the restarted router and at most once per worker: opening a
// connection there before the client knew it was gone
// (TestSimEventRouterRestartUnopenedPool), or, on a host whose CPUs are
// held by other processes, the refusal of a checkout from its cleared
// pool, which the driver returned in about 1 run in 20 beside two busy
// loops. A read whose command met a closed connection is retried on the
// other router.
func TestSimEventRouterRestart(t *testing.T) {
	t.Parallel()
	const restart = time.Second
	d := startSim(t, fmt.Sprintf("shards=1,routers=2,slots=8,service=1ms,router_restart=%s", restart))
	ctx := t.Context()
	hosts := d.Hosts()
	var mu sync.Mutex
	served := map[string]int{} // successes by router, during the restart
	var during atomic.Bool
	c, err := mongo.Connect(options.Client().ApplyURI(d.URI()).SetMaxPoolSize(8).SetTimeout(10 * time.Second).
		SetMonitor(&event.CommandMonitor{Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
			if e.CommandName == "find" && during.Load() {
				mu.Lock()
				served[connHost(e.ConnectionID)]++
				mu.Unlock()
			}
		}}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disconnect(c) })
	coll := c.Database("db").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	const workers = 4
	var failed atomic.Int64
	var reads atomic.Int64
	var errMu sync.Mutex
	var errs []string // the failures that are not a connection to hosts[0] left unopened
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err(); err != nil {
					failed.Add(1)
					if !unopened(err, hosts[0]) && !poolCleared(err, hosts[0]) {
						errMu.Lock()
						errs = append(errs, fmt.Sprintf("%v (at %v)", err, time.Now().Format("15:04:05.000")))
						errMu.Unlock()
					}
				}
				reads.Add(1)
				time.Sleep(2 * time.Millisecond)
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	r0 := connectNoCleanup(t, "mongodb://"+hosts[0]+"/?directConnection=true", 1)
	defer disconnect(r0)
	downAt := time.Now()
	t.Logf("restart at %v", downAt.Format("15:04:05.000"))
	if _, err := simEvent(ctx, r0, simEventRouterRestart, 0, 0); err != nil {
		t.Fatal(err)
	}
	// Refused while down.
	time.Sleep(100 * time.Millisecond)
	during.Store(true)
	if conn, err := net.DialTimeout("tcp", hosts[0], time.Second); err == nil {
		conn.Close()
		t.Errorf("router %s accepted a connection %v into its restart", hosts[0], time.Since(downAt))
	}
	time.Sleep(restart - 300*time.Millisecond)
	during.Store(false)
	var back time.Time
	waitFor(t, 10*time.Second, "the router listens again", func() bool {
		conn, err := net.DialTimeout("tcp", hosts[0], time.Second)
		if err != nil {
			return false
		}
		conn.Close()
		back = time.Now()
		return true
	})
	close(stop)
	wg.Wait()
	t.Logf("router down for %v; reads during the restart by router: %v; %d reads, %d failed", back.Sub(downAt), served, reads.Load(), failed.Load())
	if back.Sub(downAt) < restart-50*time.Millisecond {
		t.Errorf("the router listened again %v after its restart, before router_restart %v", back.Sub(downAt), restart)
	}
	mu.Lock()
	if served[hosts[0]] > 0 || served[hosts[1]] == 0 {
		t.Errorf("reads during the restart by router: %v; want all on %s", served, hosts[1])
	}
	mu.Unlock()
	errMu.Lock()
	if len(errs) > 0 {
		t.Errorf("%d reads failed otherwise than at the restarted router %s (a connection it could not open, its pool cleared), the first: %s; the driver retries a read whose command failed on the other router", len(errs), hosts[0], errs[0])
	}
	errMu.Unlock()
	if failed.Load() > workers {
		t.Errorf("%d reads failed at the restarted router %s; the first failure there marks it unknown, so at most one per worker (%d)", failed.Load(), hosts[0], workers)
	}
	// A new process: uptime from its return, counters from zero.
	fresh := connect(t, "mongodb://"+hosts[0]+"/?directConnection=true", 1)
	st := serverStatus(t, fresh)
	if up := st.Lookup("uptime").Double(); up > 2 {
		t.Errorf("the restarted router's uptime %v s, want from its return", up)
	}
	if created := counter(t, st, "connections", "totalCreated"); created > 3 {
		t.Errorf("the restarted router's totalCreated %d, want only its new connections", created)
	}
}

// TestSimEventRouterRestartUnopenedPool is why a read can fail in a
// router restart although the driver retries reads: the Go driver (v2.10)
// retries an operation whose command failed or whose pool was cleared,
// but not one whose own connection could not be opened (its retry of a
// failed handshake, DRIVERS-746, is GODRIVER-2191, blocked). A stopped
// mongos refuses connects, as the simulator's restarted router does, and
// a client learns of it only from an error or its next heartbeat: until
// then the router is a Mongos to it, and a read that selects it while the
// client's pool there holds no idle connection fails opening one. Each
// client here has found both routers and opened no pool: after the
// restart its one read picks either router (at random), so of 16 clients
// some fail opening a connection to the restarted router and some read on
// the other; no other failure.
func TestSimEventRouterRestartUnopenedPool(t *testing.T) {
	t.Parallel()
	const clients = 16
	d := startSim(t, "shards=1,routers=2,slots=8,service=1ms,router_restart=2s")
	ctx := t.Context()
	hosts := d.Hosts()
	seed := connect(t, d.URI(), 2)
	if _, err := seed.Database("db").Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	cs := make([]*mongo.Client, clients)
	for i := range cs {
		var routers atomic.Int32
		c, err := mongo.Connect(options.Client().ApplyURI(d.URI()).SetMaxPoolSize(4).SetTimeout(5 * time.Second).
			SetServerMonitor(&event.ServerMonitor{TopologyDescriptionChanged: func(e *event.TopologyDescriptionChangedEvent) {
				n := int32(0)
				for _, s := range e.NewDescription.Servers {
					if s.Kind == "Mongos" {
						n++
					}
				}
				routers.Store(n)
			}}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { disconnect(c) })
		waitFor(t, 10*time.Second, "the client finds both routers", func() bool { return routers.Load() == 2 })
		cs[i] = c
	}
	r0 := connect(t, "mongodb://"+hosts[0]+"/?directConnection=true", 1)
	if _, err := simEvent(ctx, r0, simEventRouterRestart, 0, 0); err != nil {
		t.Fatal(err)
	}
	var failed, other int
	for _, c := range cs {
		err := c.Database("db").Collection("c").FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err()
		switch {
		case err == nil:
			other++
			continue
		case unopened(err, hosts[0]):
			failed++
			continue
		}
		t.Errorf("a read after the restart failed otherwise than opening a connection to %s: %v", hosts[0], err)
	}
	t.Logf("of %d fresh clients' reads: %d failed opening a connection to the restarted router, %d succeeded", clients, failed, other)
	if failed == 0 || other == 0 {
		t.Errorf("%d reads failed opening a connection to the restarted router and %d succeeded; each client picks a router at random, want some of each", failed, other)
	}
}

// unopened says err is the driver's failure to open a connection to host
// (the dial or the handshake), as opposed to a command that failed.
func unopened(err error, host string) bool {
	var ce topology.ConnectionError
	return errors.As(err, &ce) && strings.Contains(ce.Error(), "handshake") && strings.Contains(ce.Error(), host)
}

// poolCleared says err is the driver's refusal of a checkout from host's
// pool, cleared by another operation's error there.
func poolCleared(err error, host string) bool {
	var pe driver.RetryablePoolError
	return errors.As(err, &pe) && pe.Retryable() && strings.Contains(err.Error(), "connection pool for "+host+" was cleared")
}

// connHost is the host:port of a driver connection ID ("host:port[-n]").
func connHost(id string) string {
	for i := len(id) - 1; i >= 0; i-- {
		if id[i] == '[' {
			return id[:i]
		}
	}
	return id
}

// TestSimEventStepDownRecovery is the ground truth of a step-down's time
// to recover: a client under load writes again on the new primary after
// the election (election=) plus its discovery. The driver learns of the
// step-down from a refused write, marks the primary Unknown and, while a
// write waits for a primary, checks every member at most every
// minHeartbeatFrequencyMS (500 ms): so the first acknowledged write
// after the step-down comes between election and election + 500 ms.
func TestSimEventStepDownRecovery(t *testing.T) {
	t.Parallel()
	const election = 1500 * time.Millisecond
	const minHeartbeat = 500 * time.Millisecond
	d := startSim(t, fmt.Sprintf("rs=3,slots=8,service=1ms,election=%s", election))
	c, _ := connectWatched(t, d.URI(), 8)
	ctx := t.Context()
	coll := c.Database("db").Collection("c", options.Collection().SetWriteConcern(writeconcern.W1()))
	if err := c.Ping(ctx, nil); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var acks []time.Time
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failed atomic.Int64
	for g := range 2 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: fmt.Sprintf("w%d-%d", g, i)}}); err != nil {
					failed.Add(1)
					continue
				}
				mu.Lock()
				acks = append(acks, time.Now())
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	time.Sleep(500 * time.Millisecond)
	stepDown := time.Now()
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetStepDown", Value: 60}}).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.waitPrimary(ctx); err != nil {
		t.Fatal(err)
	}
	elected := d.rs.view().electedAt
	waitFor(t, 10*time.Second, "a write is acknowledged after the election", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acks) > 0 && acks[len(acks)-1].After(elected)
	})
	close(stop)
	wg.Wait()
	// The first write acknowledged after the election: the new primary's
	// (one acknowledged between the step-down and the election was
	// applied by the old primary). The writers' writes wait in the driver
	// meanwhile, sent before the step-down and retried after it.
	var first time.Time
	for _, at := range acks {
		if at.After(elected) && (first.IsZero() || at.Before(first)) {
			first = at
		}
	}

	recover := first.Sub(stepDown)
	t.Logf("elected %v after the step-down; first write acknowledged %v after it (election %v + discovery %v)",
		elected.Sub(stepDown), recover, election, first.Sub(elected))
	if recover < election || recover > election+minHeartbeat+300*time.Millisecond {
		t.Errorf("first write acknowledged %v after the step-down, want between election %v and election + minHeartbeatFrequencyMS %v (+300 ms for a busy host)",
			recover, election, election+minHeartbeat)
	}
	if failed.Load() > 0 {
		t.Errorf("%d inserts failed for good; the driver retries them on the new primary", failed.Load())
	}
}

// TestSimEventRefusals: the command's bad arguments, each answered as a
// real server answers a bad command (an error reply, nothing done).
func TestSimEventRefusals(t *testing.T) {
	t.Parallel()
	d := startSim(t, "service=0s")
	ctx := t.Context()
	c := connect(t, d.URI(), 1)
	code := func(err error) int32 {
		var ce mongo.CommandError
		if errors.As(err, &ce) {
			return ce.Code
		}
		return -1
	}
	for _, tc := range []struct {
		cmd  bson.D
		db   string
		want int32
	}{
		{bson.D{{Key: simEventCommand, Value: "slow"}, {Key: "factor", Value: 10}, {Key: "durationMS", Value: 100}}, "db", 13},
		{bson.D{{Key: simEventCommand, Value: "melt"}}, "admin", 2},
		{bson.D{{Key: simEventCommand, Value: "slow"}, {Key: "factor", Value: 0.5}, {Key: "durationMS", Value: 100}}, "admin", 2},
		{bson.D{{Key: simEventCommand, Value: "slow"}, {Key: "factor", Value: 2}}, "admin", 2},
		{bson.D{{Key: simEventCommand, Value: "freeze"}, {Key: "durationMS", Value: -1}}, "admin", 2},
		{bson.D{{Key: simEventCommand, Value: "freeze"}, {Key: "durationMS", Value: "1s"}}, "admin", 14},
		{bson.D{{Key: simEventCommand, Value: "routerRestart"}}, "admin", 20},
	} {
		err := c.Database(tc.db).RunCommand(ctx, tc.cmd).Err()
		if code(err) != tc.want {
			t.Errorf("%v on %s: %v, want code %d", tc.cmd, tc.db, err, tc.want)
		}
	}
	// Nothing was done: a ping answers at once.
	t0 := time.Now()
	if err := c.Ping(ctx, nil); err != nil || time.Since(t0) > 200*time.Millisecond {
		t.Errorf("ping after the refusals: %v in %v", err, time.Since(t0))
	}
	rs := startSim(t, "rs=2,service=0s")
	p := connect(t, "mongodb://"+rs.Hosts()[0]+"/?directConnection=true", 1)
	if err := p.Database("admin").RunCommand(ctx, bson.D{{Key: simEventCommand, Value: "freeze"}, {Key: "durationMS", Value: 20000}}).Err(); code(err) != 2 {
		t.Errorf("a 20 s freeze of a member: %v, want BadValue (an election would follow)", err)
	}
}

// TestSimEventSlowSharded: a slowdown by F sent to a router, or to every
// server with all, multiplies a routed op's shard time by F once.
func TestSimEventSlowSharded(t *testing.T) {
	t.Parallel()
	const service, factor = 20 * time.Millisecond, 5
	d := startSim(t, fmt.Sprintf("shards=1,slots=4,service=%s", service))
	ctx := t.Context()
	c := connect(t, d.URI(), 2)
	coll := c.Database("db").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	took := func() time.Duration {
		best := time.Hour
		for range 3 {
			t0 := time.Now()
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 1}}).Err(); err != nil {
				t.Fatal(err)
			}
			best = min(best, time.Since(t0))
		}
		return best
	}
	for _, all := range []bool{false, true} {
		cmd := bson.D{{Key: simEventCommand, Value: simEventSlow}, {Key: "factor", Value: factor}, {Key: "durationMS", Value: 1500}, {Key: "all", Value: all}}
		if err := c.Database("admin").RunCommand(ctx, cmd).Err(); err != nil {
			t.Fatal(err)
		}
		got := took()
		want := factor * service
		t.Logf("all=%v: a find took %v, want about %v", all, got, want)
		if got < want || got > want+want/2 {
			t.Errorf("all=%v: a find took %v under slow=%d, want about %v (the shard time × F once)", all, got, factor, want)
		}
		time.Sleep(1600 * time.Millisecond)
	}
}
