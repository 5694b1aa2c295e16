package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// poolClock records when the driver's pool events happen, as a user of
// the driver sees them.
type poolClock struct {
	mu      sync.Mutex
	ready   chan struct{} // closed at the pool's PoolReady
	readyAt time.Time
	// known is closed when the client has discovered the server (its
	// monitor's first hello, which pays the setup latency too): from then
	// on an operation checks out at once.
	known     chan struct{}
	knownOnce sync.Once
	created   []time.Time // ConnectionCreated
	opened    []time.Time // ConnectionReady
	once      sync.Once
}

func newPoolClock() *poolClock {
	return &poolClock{ready: make(chan struct{}), known: make(chan struct{})}
}

func (p *poolClock) serverMonitor() *event.ServerMonitor {
	return &event.ServerMonitor{TopologyDescriptionChanged: func(e *event.TopologyDescriptionChangedEvent) {
		if k := e.NewDescription.Kind; k != "" && k != "Unknown" {
			p.knownOnce.Do(func() { close(p.known) })
		}
	}}
}

// waitKnown waits until the client has discovered the server.
func (p *poolClock) waitKnown(t *testing.T) {
	t.Helper()
	select {
	case <-p.known:
	case <-time.After(10 * time.Second):
		t.Fatal("the client never discovered the server")
	}
}

func (p *poolClock) monitor() *event.PoolMonitor {
	return &event.PoolMonitor{Event: func(e *event.PoolEvent) {
		now := time.Now()
		p.mu.Lock()
		defer p.mu.Unlock()
		switch e.Type {
		case event.ConnectionPoolReady:
			p.once.Do(func() { p.readyAt = now; close(p.ready) })
		case event.ConnectionCreated:
			p.created = append(p.created, now)
		case event.ConnectionReady:
			p.opened = append(p.opened, now)
		}
	}}
}

// nthOpen waits until n connections are open and returns when the n-th
// was, or fails the test after limit.
func (p *poolClock) nthOpen(t *testing.T, n int, limit time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		if len(p.opened) >= n {
			at := p.opened[n-1]
			p.mu.Unlock()
			return at
		}
		p.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%d connections open after %s, want %d", len(p.opened), limit, n)
	return time.Time{}
}

func (p *poolClock) waitReady(t *testing.T) {
	t.Helper()
	select {
	case <-p.ready:
	case <-time.After(10 * time.Second):
		t.Fatal("the pool never became ready")
	}
}

func connectPool(t *testing.T, uri string, opts *options.ClientOptions, clock *poolClock) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(20*time.Second).SetPoolMonitor(clock.monitor()).SetServerMonitor(clock.serverMonitor()), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { disconnect(c) })
	return c
}

// TestSetupLatencyFillTime is the ground truth for a cold pool's fill
// with the Go driver alone: with setup_latency d and no accept cost, a
// pool that opens m connections at a time has N open after ⌈N/m⌉·d.
// Two ways of asking for N connections are measured: minPoolSize N
// (from the pool's PoolReady, when the driver starts filling it), and N
// calls at once that each hold a connection longer than the fill takes
// (from the first ConnectionCreated). Each is held to [0.8, 1.6] of its
// construction, and maxConnecting 2 to at least 3 times maxConnecting
// N's time (5 by construction): a latency paid at the acceptor, one
// connection at a time, would give m=N the same time as m=2.
func TestSetupLatencyFillTime(t *testing.T) {
	const d = 100 * time.Millisecond
	within := func(t *testing.T, what string, got, want time.Duration) {
		t.Helper()
		if r := got.Seconds() / want.Seconds(); r < 0.8 || r > 1.6 {
			t.Errorf("%s: %s, not within [0.8, 1.6] of the construction ⌈N/m⌉·d = %s", what, got, want)
		}
	}
	construction := func(n, m int) time.Duration {
		return time.Duration(math.Ceil(float64(n)/float64(m))) * d
	}

	t.Run("minPoolSize", func(t *testing.T) {
		// The Go driver asks for at most 10 connections per pass of its
		// pool maintenance (and passes every 10 s), so minPoolSize 10 is
		// the most one pass fills.
		const n = 10
		took := map[int]time.Duration{}
		for _, m := range []int{2, n} {
			d := startSim(t, fmt.Sprintf("service=0s,setup_latency=%s", d))
			clock := newPoolClock()
			connectPool(t, d.URI(), options.Client().SetMinPoolSize(n).SetMaxPoolSize(n).SetMaxConnecting(uint64(m)), clock)
			clock.waitReady(t)
			took[m] = clock.nthOpen(t, n, 20*time.Second).Sub(clock.readyAt)
			t.Logf("minPoolSize %d, maxConnecting %d: %d open %s after PoolReady; construction %s", n, m, n, took[m], construction(n, m))
			within(t, fmt.Sprintf("maxConnecting %d", m), took[m], construction(n, m))
		}
		if took[2] < 3*took[n] {
			t.Errorf("maxConnecting 2 filled in %s, less than 3× maxConnecting %d's %s: setup is not paid in parallel", took[2], n, took[n])
		}
	})

	t.Run("burst", func(t *testing.T) {
		// Each call holds its connection for 2 s, longer than any fill
		// here, so N calls at once need N connections and no call's
		// connection comes back to serve another.
		const n = 16
		took := map[int]time.Duration{}
		for _, m := range []int{2, n} {
			d := startSim(t, fmt.Sprintf("slots=64,service=2s,setup_latency=%s", d))
			clock := newPoolClock()
			c := connectPool(t, d.URI(), options.Client().SetMaxPoolSize(n).SetMaxConnecting(uint64(m)), clock)
			clock.waitKnown(t)
			coll := c.Database("db").Collection("c")
			var wg sync.WaitGroup
			for range n {
				wg.Go(func() { coll.FindOne(context.Background(), bson.D{{Key: "_id", Value: 1}}) })
			}
			last := clock.nthOpen(t, n, 20*time.Second)
			clock.mu.Lock()
			first, created := clock.created[0], len(clock.created)
			clock.mu.Unlock()
			took[m] = last.Sub(first)
			t.Logf("%d calls at once, maxConnecting %d: %d open %s after the first was created; construction %s", n, m, n, took[m], construction(n, m))
			within(t, fmt.Sprintf("maxConnecting %d", m), took[m], construction(n, m))
			if created != n {
				t.Errorf("maxConnecting %d: %d connections created, want %d (one per call)", m, created, n)
			}
			wg.Wait()
		}
		if took[2] < 3*took[n] {
			t.Errorf("maxConnecting 2 filled in %s, less than 3× maxConnecting %d's %s: setup is not paid in parallel", took[2], n, took[n])
		}
	})
}

// TestSetupLatencyBurstP99 is the ground truth for the first second of a
// burst on a cold pool: calls arrive at λ = N/s (N connections busy in
// the steady state, s the service time) on a pool that is empty, of a
// client that has discovered the server. The construction in
// the package documentation gives the worst
// wait for a checkout as about (⌈N/m⌉+1)·d/2, so the calls' p99 by
// intended start is about that plus s. With N = 16, s = 200 ms and
// d = 100 ms (λ = 80/s): 650 ms for maxConnecting 2, 300 ms for 16 (the
// first calls wait one setup). Each is held to [0.8, 1.6] of its
// construction, and maxConnecting 2's p99 to at least 1.5 times 16's
// (2.2 by construction). The times are long beside a busy host's
// scheduling delays, which add to every call's latency by intended start.
func TestSetupLatencyBurstP99(t *testing.T) {
	const (
		n = 16
		s = 200 * time.Millisecond
		d = 100 * time.Millisecond
	)
	rate := float64(n) / s.Seconds()
	p99 := map[int]time.Duration{}
	for _, m := range []int{2, n} {
		dep := startSim(t, fmt.Sprintf("slots=256,service=%s,setup_latency=%s", s, d))
		clock := newPoolClock()
		c := connectPool(t, dep.URI(), options.Client().SetMaxPoolSize(100).SetMaxConnecting(uint64(m)), clock)
		// The burst meets a cold pool of a client that knows its server:
		// a client's first operation would also wait for discovery, its
		// monitor's own setup.
		clock.waitKnown(t)
		coll := c.Database("db").Collection("c")
		calls := int(rate) // one second of arrivals
		lat := make([]time.Duration, calls)
		start := time.Now()
		var wg sync.WaitGroup
		for i := range calls {
			intended := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
			time.Sleep(time.Until(intended))
			wg.Go(func() {
				coll.FindOne(context.Background(), bson.D{{Key: "_id", Value: 1}})
				lat[i] = time.Since(intended)
			})
		}
		wg.Wait()
		sort.Slice(lat, func(a, b int) bool { return lat[a] < lat[b] })
		p99[m] = lat[int(0.99*float64(len(lat)-1))]
		k := math.Ceil(float64(n) / float64(m))
		want := time.Duration((k+1)/2*float64(d)) + s
		clock.mu.Lock()
		created := len(clock.created)
		clock.mu.Unlock()
		t.Logf("maxConnecting %d: first second's p99 %s (median %s, %d connections created); construction %s", m, p99[m], lat[len(lat)/2], created, want)
		if r := p99[m].Seconds() / want.Seconds(); r < 0.8 || r > 1.6 {
			t.Errorf("maxConnecting %d: p99 %s, not within [0.8, 1.6] of the construction %s", m, p99[m], want)
		}
	}
	if p99[2] < p99[n]*3/2 {
		t.Errorf("maxConnecting 2's p99 %s is not 1.5× maxConnecting %d's %s", p99[2], n, p99[n])
	}
}

// TestSetupLatencyReportsNothing: the setup latency is a wait, and a
// real server reports none of it, so hello and serverStatus carry the
// same fields with it as without it.
func TestSetupLatencyReportsNothing(t *testing.T) {
	paths := func(spec string) []string {
		d := startSim(t, spec)
		c := connect(t, d.URI(), 2)
		var out []string
		for _, cmd := range []string{"hello", "serverStatus"} {
			raw, err := c.Database("admin").RunCommand(t.Context(), bson.D{{Key: cmd, Value: 1}}).Raw()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, keyPaths(cmd, raw)...)
		}
		slices.Sort(out)
		return out
	}
	without, with := paths("slots=4"), paths("slots=4,setup_latency=20ms")
	if !slices.Equal(without, with) {
		t.Errorf("setup_latency changes the replies' fields:\nwithout %s\nwith    %s", strings.Join(without, " "), strings.Join(with, " "))
	}
}

func keyPaths(prefix string, doc bson.Raw) []string {
	elems, _ := doc.Elements()
	var out []string
	for _, e := range elems {
		p := prefix + "." + e.Key()
		out = append(out, p)
		if sub, ok := e.Value().DocumentOK(); ok {
			out = append(out, keyPaths(p, sub)...)
		}
	}
	return out
}

func TestSetupLatencySpec(t *testing.T) {
	s, err := ParseSpec("slots=4,accept_cost=1ms,setup_latency=50ms")
	if err != nil {
		t.Fatal(err)
	}
	if s.SetupLatency != 50*time.Millisecond || !strings.Contains(s.String(), "setup_latency=50ms") {
		t.Errorf("spec %+v prints %q", s, s.String())
	}
	if again, err := ParseSpec(s.String()); err != nil || again != s {
		t.Errorf("round trip: %v %+v", err, again)
	}
	if strings.Contains(DefaultSpec().String(), "setup_latency") {
		t.Error("the default spec prints setup_latency")
	}
	for _, bad := range []string{"setup_latency=-1ms", "setup_latency=11s", "setup_latency=1h", "setup_latency=soon"} {
		if _, err := ParseSpec(bad); err == nil || !strings.Contains(err.Error(), "setup_latency") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
