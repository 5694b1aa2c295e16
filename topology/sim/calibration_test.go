package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"

	psbound "github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/results"
	pstel "github.com/poolsweep/poolsweep/telemetry"
)

// calibrationKeys is the number of documents the closed loops read from.
const calibrationKeys = 1000

// loadKeys inserts calibrationKeys documents with string _ids, through a
// client it closes so that its connections do not count for conn_cost.
func loadKeys(t testing.TB, uri string) {
	t.Helper()
	c := connectNoCleanup(t, uri, 2)
	defer disconnect(c)
	coll := c.Database("cal").Collection("c")
	docs := make([]any, calibrationKeys)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: fmt.Sprintf("user%06d", i)}, {Key: "f", Value: int32(i)}}
	}
	if _, err := coll.InsertMany(t.Context(), docs); err != nil {
		t.Fatal(err)
	}
}

// level is one closed loop's throughput and what the load host did during
// its window: whether this machine, not the simulator, set the number.
type level struct {
	n         int
	opsPerS   float64
	client    *results.ClientTelemetry
	contended bool   // telemetry's verdict on the load host
	why       string // its evidence
}

// excused says whether a level that missed the simulator's truth is
// explained by the tool's own evidence: the load host was contended (or
// this process was CPU-bound) during its window. A calibration assertion
// may fail only on levels whose host was healthy; a regression that moves
// the knee on a quiet host still fails.
func (l level) excused(t *testing.T, what string) bool {
	t.Helper()
	if l.contended {
		t.Logf("N=%d: %s, but the load host was starved: %s", l.n, what, l.why)
	}
	return l.contended
}

// closedLoop runs n workers, each issuing FindOne by a random _id back to
// back through one client with maxPoolSize=n, and returns ops/s over window
// after a warm-up that fills the pool, with the load host's health over
// the same window (telemetry.ClientSampler, judged by the default
// classifier). Any op error fails the test. The client is closed before it
// returns, so levels do not add up connections.
func closedLoop(t testing.TB, uri string, n int, warmup, window time.Duration) level {
	t.Helper()
	return closedLoopReading(t, uri, n, warmup, window, readpref.Primary())
}

// closedLoopReading is closedLoop with the reads' read preference.
func closedLoopReading(t testing.TB, uri string, n int, warmup, window time.Duration, mode *readpref.ReadPref) level {
	t.Helper()
	client := connectNoCleanup(t, uri, uint64(n))
	defer disconnect(client)
	coll := client.Database("cal").Collection("c", options.Collection().SetReadPreference(mode))
	ctx, cancel := context.WithTimeout(t.Context(), warmup+window+10*time.Second)
	defer cancel()
	var measuring atomic.Bool
	var ops atomic.Int64
	var firstErr atomic.Value
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			rnd := rand.New(rand.NewPCG(rand.Uint64(), 0))
			for {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("user%06d", rnd.IntN(calibrationKeys))
				if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Err(); err != nil {
					firstErr.CompareAndSwap(nil, err)
					return
				}
				if measuring.Load() {
					ops.Add(1)
				}
			}
		})
	}
	time.Sleep(warmup)
	host := pstel.NewClientSampler()
	host.Start()
	measuring.Store(true)
	start := time.Now()
	time.Sleep(window)
	got := ops.Load()
	elapsed := time.Since(start)
	ct := host.Stop()
	close(stop)
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		t.Fatalf("closed loop at %d: %v", n, err)
	}
	l := level{n: n, opsPerS: float64(got) / elapsed.Seconds(), client: ct}
	l.contended, l.why = psbound.ClientLimited(&results.StepResult{Client: ct})
	if !l.contended {
		l.contended, l.why = machineFull(ct)
	}
	return l
}

// machineFull is the classifier's full-machine rule for a simulator that
// runs inside the test process: poolsweep's classifier says "client" when
// the client and the server it runs on the same machine together fill its
// cores (≥ ClientCPUFrac). Here both are this process, so the machine was
// full when the host's busy share reached that mark while this process
// held a real share of it. Seen in CI: 3 shards at N=96 gave 2.49× one
// shard with this process at 68% of the cores and others at 25%.
func machineFull(ct *results.ClientTelemetry) (bool, string) {
	c := psbound.DefaultClassifier()
	if ct == nil || ct.HostCPUPct == nil || ct.HostCPUs == nil || *ct.HostCPUs <= 0 {
		return false, ""
	}
	own := ct.CPUPct / (float64(*ct.HostCPUs) * 100)
	if *ct.HostCPUPct < c.ClientCPUFrac*100 || own < c.ClientMachineFrac {
		return false, ""
	}
	return true, fmt.Sprintf("this machine is full: host CPU %.0f%% of its %d cores, %.0f%% of them this process (client and simulator)",
		*ct.HostCPUPct, *ct.HostCPUs, own*100)
}

// sweepLevels measures each concurrency level against d.
func sweepLevels(t *testing.T, d *Deployment, levels []int, window time.Duration) map[int]level {
	t.Helper()
	out := map[int]level{}
	for _, n := range levels {
		l := closedLoop(t, d.URI(), n, 300*time.Millisecond, window)
		out[n] = l
		t.Logf("%s N=%d: %.0f ops/s (model %.0f); load host: %s", d.Spec(), n, l.opsPerS, d.Spec().Throughput(n, 1), hostSummary(l))
	}
	return out
}

// hostSummary is one line of load-host evidence for the log.
func hostSummary(l level) string {
	ct := l.client
	f := func(v *float64) string {
		if v == nil {
			return "n/a"
		}
		return fmt.Sprintf("%.1f", *v)
	}
	s := fmt.Sprintf("cpu %.0f%%, host %s%%, run-queue wait %s%%, sched p99 %s ms, PSI %s%%, others %s%%",
		ct.CPUPct, f(ct.HostCPUPct), f(ct.RunQueueWaitPct), f(ct.SchedLatencyP99MS), f(ct.CPUPressurePct), f(ct.OthersCPUPct))
	if l.contended {
		s += " → starved"
	}
	return s
}

func peakOf(x map[int]level, levels []int) (float64, int) {
	best, at := 0.0, 0
	for _, n := range levels {
		if x[n].opsPerS > best {
			best, at = x[n].opsPerS, n
		}
	}
	return best, at
}

// TestCalibrationKneeAndPeak: slots=8 × 2 ms saturates at N=8 and 4000
// ops/s. Each claim may miss only on levels whose load host was starved.
func TestCalibrationKneeAndPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration runs closed loops for ~8 s")
	}
	d := startSim(t, "slots=8,service=2ms")
	loadKeys(t, d.URI())
	// N=1 adds nothing the knee or the peak needs; 1-s windows hold 4000
	// calls at the plateau (500-ms windows failed now and then beside one
	// busy loop: a level judged healthy short of the plateau).
	levels := []int{2, 4, 8, 16, 32, 64}
	x := sweepLevels(t, d, levels, time.Second)

	want := d.Spec().ShardPeak() // 4000
	peak, at := peakOf(x, levels)
	if peak > 1.15*want {
		t.Errorf("peak %.0f ops/s, more than 15%% above the capacity %.0f", peak, want)
	}
	// On the plateau (N ≥ 16) every healthy level reaches 85% of the truth.
	for _, n := range []int{16, 32, 64} {
		if x[n].opsPerS < 0.85*want && !x[n].excused(t, fmt.Sprintf("%.0f ops/s is below 85%% of %.0f", x[n].opsPerS, want)) {
			t.Errorf("N=%d gives %.0f ops/s on a healthy load host, want within 15%% of %.0f", n, x[n].opsPerS, want)
		}
	}
	if x[4].opsPerS > 0.7*peak && !x[at].excused(t, "the peak is depressed") {
		t.Errorf("N=4 gives %.0f ops/s, want well below the peak %.0f (model: half)", x[4].opsPerS, peak)
	}
	knee := 0
	for _, n := range levels {
		if x[n].opsPerS >= 0.95*peak {
			knee = n
			break
		}
	}
	switch {
	case knee < 4:
		if !x[at].excused(t, fmt.Sprintf("knee %d: the peak is depressed", knee)) {
			t.Errorf("knee (first N at 95%% of peak) = %d, want 8 or 16, one step either side at most", knee)
		}
	case knee > 32:
		// Every plateau level before the knee found fell short; each must
		// have been starved. (Not N=8: a knee of 16 is the truth's, with
		// N=8 short of 95% of the peak by the client's own time per call
		// on a healthy host, so its shortfall explains nothing either way.)
		for _, n := range levels {
			if n >= 16 && n < knee && !x[n].excused(t, fmt.Sprintf("short of 95%% of the peak (knee found at %d)", knee)) {
				t.Errorf("knee (first N at 95%% of peak) = %d, want 8 or 16; N=%d ran on a healthy load host", knee, n)
			}
		}
	}
	t.Logf("expected peak %.0f at N=8; measured peak %.0f at N=%d, knee %d", want, peak, at, knee)
}

func TestCalibrationConnCostRetrograde(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration runs closed loops for ~3 s")
	}
	d := startSim(t, "slots=8,service=2ms,conn_cost=50us")
	loadKeys(t, d.URI())
	levels := []int{8, 16, 64}
	x := sweepLevels(t, d, levels, 700*time.Millisecond)
	peak, at := peakOf(x, levels)
	// Model: 8/(2ms+50us·8) = 3333 at 8, 8/(2ms+50us·64) = 1538 at 64. A
	// starved peak level can sink to the level of N=64.
	if x[64].opsPerS > 0.9*peak && !x[at].excused(t, "the peak is depressed") {
		t.Errorf("N=64 gives %.0f ops/s, want at least 10%% below the peak %.0f (at N=%d)", x[64].opsPerS, peak, at)
	}
	t.Logf("model: %.0f at 8, %.0f at 64; measured peak %.0f at N=%d, %.0f at 64",
		d.Spec().Throughput(8, 1), d.Spec().Throughput(64, 1), peak, at, x[64].opsPerS)
}

func TestCalibrationShardedScaling(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration runs closed loops for ~3 s")
	}
	const n = 96
	single := startSim(t, "slots=8,service=2ms")
	loadKeys(t, single.URI())
	one := closedLoop(t, single.URI(), 32, 300*time.Millisecond, 700*time.Millisecond)

	wide := startSim(t, "shards=3,slots=8,service=2ms,router_slots=64,router_cost=50us")
	loadKeys(t, wide.URI())
	x3 := closedLoop(t, wide.URI(), n, 300*time.Millisecond, 700*time.Millisecond)

	slow := startSim(t, "shards=3,slots=8,service=2ms,router_slots=4,router_cost=1ms")
	loadKeys(t, slow.URI())
	xs := closedLoop(t, slow.URI(), n, 300*time.Millisecond, 700*time.Millisecond)

	t.Logf("single shard N=32: %.0f ops/s (model %.0f); load host: %s", one.opsPerS, single.Spec().Throughput(32, 1), hostSummary(one))
	t.Logf("3 shards, fast router, N=%d: %.0f ops/s (model %.0f) = %.2f× single; load host: %s", n, x3.opsPerS, wide.Spec().Throughput(n, 1), x3.opsPerS/one.opsPerS, hostSummary(x3))
	t.Logf("3 shards, slow router, N=%d: %.0f ops/s (model %.0f); load host: %s", n, xs.opsPerS, slow.Spec().Throughput(n, 1), hostSummary(xs))
	// A starved load host caps what 96 callers can push through three
	// shards; it cannot raise the single shard above its capacity.
	if x3.opsPerS < 2.5*one.opsPerS && !x3.excused(t, fmt.Sprintf("3 shards gave only %.2f× one", x3.opsPerS/one.opsPerS)) {
		t.Errorf("3 shards give %.0f ops/s, want ≥ 2.5× the single shard's %.0f", x3.opsPerS, one.opsPerS)
	}
	capacity := slow.Spec().RouterCapacity() // 4000
	if xs.opsPerS > 1.15*capacity {
		t.Errorf("slow router passes %.0f ops/s, above its capacity %.0f", xs.opsPerS, capacity)
	}
	if xs.opsPerS > 0.6*x3.opsPerS && !x3.excused(t, "the fast router's level is depressed") {
		t.Errorf("slow router %.0f ops/s is not clearly capped below the fast router's %.0f", xs.opsPerS, x3.opsPerS)
	}
}
