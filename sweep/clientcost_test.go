package sweep

import (
	"fmt"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/fdlimit"
)

// What one light client costs the load host: a driver client with its
// monitor and a pool of one connection, idle, as each of a connection
// sweep's many clients is between its rare calls. The benchmarks hold
// poolsweep's client (the step's options, its pool, server and command
// monitors) beside a bare driver client of the same pool and heartbeat,
// against a simulator in a child process, so that the server's work is
// not this process's.

// heapBytes is the live heap after a full collection.
func heapBytes() uint64 {
	runtime.GC()
	m := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// idleRound is one round of idle clients: the heap and goroutines each
// holds, and this process's CPU per heartbeat while they idle.
type idleRound struct {
	bytesPerClient, goroutinesPerClient float64
	cpuPerBeat                          time.Duration
	beats                               int64
}

// perClient is what one more idle client of kind holds: the growth of
// the heap and goroutines from lo clients to hi, over hi−lo, so that what
// a step holds once (its recorder, its per-server books) is not shared
// out among its clients; the CPU per heartbeat is the hi round's.
func perClient(tb testing.TB, kind, uri string, lo, hi int, heartbeat, hold time.Duration) idleRound {
	a := measureIdle(tb, kind, uri, lo, heartbeat, 0)
	b := measureIdle(tb, kind, uri, hi, heartbeat, hold)
	n := float64(hi - lo)
	b.bytesPerClient = (b.bytesPerClient*float64(hi) - a.bytesPerClient*float64(lo)) / n
	b.goroutinesPerClient = (b.goroutinesPerClient*float64(hi) - a.goroutinesPerClient*float64(lo)) / n
	return b
}

// lightClients prepares k clients of kind ("bare" or "poolsweep") to
// uri, each with a pool of one connection kept open and heartbeat; the
// function it returns connects them and returns them once every pool
// holds its connection, with the counter of their heartbeats. What a
// step holds whatever its clients (its recorder's histograms) is made
// here, before the clients.
func lightClients(tb testing.TB, kind, uri string, k int, heartbeat time.Duration) func() ([]*mongo.Client, *atomic.Int64) {
	tb.Helper()
	beats := &atomic.Int64{}
	ready := &atomic.Int64{}
	newClient := func() *options.ClientOptions {
		return options.Client().ApplyURI(uri).SetHeartbeatInterval(heartbeat)
	}
	var connect func() []*mongo.Client
	switch kind {
	case "bare":
		connect = func() (clients []*mongo.Client) {
			for range k {
				o := newClient().SetMaxPoolSize(1).SetMinPoolSize(1).
					SetPoolMonitor(&event.PoolMonitor{Event: func(e *event.PoolEvent) {
						if e.Type == event.ConnectionReady {
							ready.Add(1)
						}
					}}).
					SetServerMonitor(&event.ServerMonitor{ServerHeartbeatStarted: func(*event.ServerHeartbeatStartedEvent) { beats.Add(1) }})
				c, err := mongo.Connect(o)
				if err != nil {
					tb.Fatal(err)
				}
				clients = append(clients, c)
			}
			return clients
		}
	case "poolsweep":
		r := openRunner(uri, 0, time.Second)
		r.NewClient = newClient
		spec := openSpec(k, 1, 1)
		spec.Clients = k
		pool := newPoolRecorder()
		orec := newOpenRecorder(newTypedRecorder(r.OpTimeout, k, r.Workload.OpTypes()), time.Second)
		cm := orec.commandMonitor()
		connect = func() []*mongo.Client {
			clients, err := r.connect(spec, 1, pool, cm)
			if err != nil {
				tb.Fatal(err)
			}
			return clients
		}
		go func() {
			for {
				ready.Store(pool.open.Load())
				beats.Store(pool.watch.beats.Load())
				time.Sleep(10 * time.Millisecond)
			}
		}()
	default:
		tb.Fatalf("kind %q", kind)
	}
	return func() ([]*mongo.Client, *atomic.Int64) {
		clients := connect()
		// A ping through each pool's one connection: every handshake
		// over, in both kinds alike, before anything is counted.
		for _, c := range clients {
			if err := c.Ping(tb.Context(), nil); err != nil {
				tb.Fatal(err)
			}
		}
		deadline := time.Now().Add(2 * time.Minute)
		for ready.Load() < int64(k) || beats.Load() < int64(k) {
			if time.Now().After(deadline) {
				tb.Fatalf("%d of %d pools filled, %d heartbeats, after 2 minutes", ready.Load(), k, beats.Load())
			}
			time.Sleep(20 * time.Millisecond)
		}
		return clients, beats
	}
}

// measureIdle connects k clients, measures what they hold and what their
// heartbeats cost over hold, and disconnects them.
func measureIdle(tb testing.TB, kind, uri string, k int, heartbeat, hold time.Duration) idleRound {
	connect := lightClients(tb, kind, uri, k, heartbeat)
	heap0, g0 := heapBytes(), runtime.NumGoroutine()
	clients, beats := connect()
	heap1, g1 := heapBytes(), runtime.NumGoroutine()
	b0, cpu0 := beats.Load(), processCPU()
	time.Sleep(hold)
	cpu, n := processCPU()-cpu0, beats.Load()-b0
	disconnect(clients)
	r := idleRound{bytesPerClient: float64(heap1-heap0) / float64(k), goroutinesPerClient: float64(g1-g0) / float64(k), beats: n}
	if n > 0 {
		r.cpuPerBeat = cpu / time.Duration(n)
	}
	return r
}

// BenchmarkIdleClient: the heap and goroutines one idle light client
// holds on the load host, and this process's CPU per monitoring
// heartbeat (the hello its monitor sends, and what the pool's
// maintenance does meanwhile), for a bare driver client and for
// poolsweep's; per client from 100 to 500 clients (perClient), the
// heartbeats every 500 ms (the drivers' least) for 3 s. Run with
// -benchtime 1x and -count N.
func BenchmarkIdleClient(b *testing.B) {
	sim := startSimChild(b, "service=0s")
	for _, kind := range []string{"bare", "poolsweep"} {
		b.Run(kind, func(b *testing.B) {
			var bytes, gor, cpu float64
			for range b.N {
				r := perClient(b, kind, sim.URI, 100, 500, 500*time.Millisecond, 3*time.Second)
				bytes += r.bytesPerClient
				gor += r.goroutinesPerClient
				cpu += float64(r.cpuPerBeat.Microseconds())
			}
			n := float64(b.N)
			b.ReportMetric(bytes/n, "heap-B/client")
			b.ReportMetric(gor/n, "goroutines/client")
			b.ReportMetric(cpu/n, "cpu-µs/heartbeat")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// TestIdleClientOverBare holds poolsweep's light client to the cost of a
// bare driver client: the heap one holds idle within 1.1 times the bare
// one's, and its goroutines no more (ratios, not speeds: they hold on a
// busy machine). Per client from 100 to 400 clients of each (perClient),
// the heartbeat at the drivers' default (10 s) so that none runs while
// they are counted, the median of 3 rounds taken in turn.
func TestIdleClientOverBare(t *testing.T) {
	if testing.Short() {
		t.Skip("connects 3,000 clients")
	}
	sim := startSimChild(t, "service=0s")
	var bare, ours []idleRound
	for range 3 {
		bare = append(bare, perClient(t, "bare", sim.URI, 100, 400, 10*time.Second, 0))
		ours = append(ours, perClient(t, "poolsweep", sim.URI, 100, 400, 10*time.Second, 0))
	}
	med := func(rs []idleRound, f func(idleRound) float64) float64 {
		v := []float64{f(rs[0]), f(rs[1]), f(rs[2])}
		slices.Sort(v)
		return v[1]
	}
	heap := func(r idleRound) float64 { return r.bytesPerClient }
	gor := func(r idleRound) float64 { return r.goroutinesPerClient }
	bh, oh, bg, og := med(bare, heap), med(ours, heap), med(bare, gor), med(ours, gor)
	t.Logf("per idle client (median of 3 rounds, 100 to 400 clients): bare %.0f B of heap, %.2f goroutines; poolsweep's %.0f B, %.2f goroutines", bh, bg, oh, og)
	if r := oh / bh; !(r <= 1.1) {
		t.Errorf("poolsweep's idle client holds %.0f B of heap, %.2f× a bare driver client's %.0f B (at most 1.1×)", oh, r, bh)
	}
	if og > bg+0.1 {
		t.Errorf("poolsweep's idle client runs %.2f goroutines, a bare one %.2f", og, bg)
	}
}

// BenchmarkLightClients runs one open-loop step of k light clients on
// this load host against a simulator in a child process: each client its
// own driver client with a monitor and a pool of one connection, at 0.1
// calls/s of its own (k/10 calls/s in all), a 5-s window after a 2-s
// warm-up. It reports what the load host spent (its CPU over the whole
// step, connecting and pre-warming included, in % of one core), the
// share of the offered calls carried, and how often this host fell
// behind the schedule (BenchmarkIdleClient has the heap per client). A step of k clients needs 2k descriptors here and in the
// simulator; a k this host's open-file limit cannot hold is skipped, and
// says so.
func BenchmarkLightClients(b *testing.B) {
	for _, k := range []int{1000, 5000, 10000} {
		b.Run(fmt.Sprintf("clients=%d", k), func(b *testing.B) {
			if lim, ok := fdlimit.Current(); ok && lim.Hard < uint64(2*k)+fdlimit.Reserve {
				b.Skipf("%d clients need %d open files (a pool connection and a monitor each, and %d reserved); the hard limit here is %d", k, 2*k+fdlimit.Reserve, fdlimit.Reserve, lim.Hard)
			}
			if err := fdlimit.Ensure(uint64(2*k) + fdlimit.Reserve); err != nil {
				b.Skip(err)
			}
			sim := startSimChild(b, "service=0s")
			r := openRunner(sim.URI, 2*time.Second, 5*time.Second)
			r.OpTimeout = 30 * time.Second
			spec := openSpec(k/10, 1, 1)
			spec.Clients = k
			var cpu, carried, behind float64
			for range b.N {
				cpu0, t0 := processCPU(), time.Now()
				st, err := r.RunStep(b.Context(), spec)
				if err != nil {
					b.Fatal(err)
				}
				wall := time.Since(t0)
				cpu += float64(processCPU()-cpu0) / float64(wall) * 100
				if st.Client != nil {
					b.Logf("%d clients: the step took %s; in the window this process used %.0f%% of a core", k, wall.Round(time.Millisecond), st.Client.CPUPct)
				}
				b.Logf("%d clients: offered %d, achieved %.1f/s of %.1f/s, behind %v, warnings %q", k, st.Open.Offered, st.Open.AchievedPerS, st.Open.OfferedPerS, st.Open.ClientBehind, st.Warnings)
				carried += st.Open.AchievedShare()
				if st.Open.ClientBehind {
					behind++
				}
			}
			n := float64(b.N)
			b.ReportMetric(cpu/n, "cpu-%/step")
			b.ReportMetric(carried/n, "carried-share")
			b.ReportMetric(behind/n, "behind-share")
			b.ReportMetric(0, "ns/op")
		})
	}
}
