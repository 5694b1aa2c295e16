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

// closedLoop runs n workers, each issuing FindOne by a random _id back to
// back through one client with maxPoolSize=n, and returns ops/s over window
// after a warm-up that fills the pool. Any op error fails the test. The
// client is closed before it returns, so levels do not add up connections.
func closedLoop(t testing.TB, uri string, n int, warmup, window time.Duration) float64 {
	t.Helper()
	client := connectNoCleanup(t, uri, uint64(n))
	defer disconnect(client)
	coll := client.Database("cal").Collection("c")
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
	measuring.Store(true)
	start := time.Now()
	time.Sleep(window)
	got := ops.Load()
	elapsed := time.Since(start)
	close(stop)
	wg.Wait()
	if err, _ := firstErr.Load().(error); err != nil {
		t.Fatalf("closed loop at %d: %v", n, err)
	}
	return float64(got) / elapsed.Seconds()
}

// sweep measures each concurrency level against d.
func sweep(t *testing.T, d *Deployment, levels []int, window time.Duration) map[int]float64 {
	t.Helper()
	out := map[int]float64{}
	for _, n := range levels {
		out[n] = closedLoop(t, d.URI(), n, 300*time.Millisecond, window)
		t.Logf("%s N=%d: %.0f ops/s (model %.0f)", d.Spec(), n, out[n], d.Spec().Throughput(n))
	}
	return out
}

func peakOf(x map[int]float64, levels []int) (float64, int) {
	best, at := 0.0, 0
	for _, n := range levels {
		if x[n] > best {
			best, at = x[n], n
		}
	}
	return best, at
}

func TestCalibrationKneeAndPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration runs closed loops for ~12 s")
	}
	d := startSim(t, "slots=8,service=2ms")
	loadKeys(t, d.URI())
	levels := []int{1, 2, 4, 8, 16, 32, 64}
	x := sweep(t, d, levels, 1500*time.Millisecond)

	want := d.Spec().ShardPeak() // 4000
	peak, _ := peakOf(x, levels)
	if peak < 0.85*want || peak > 1.15*want {
		t.Errorf("peak %.0f ops/s, want within 15%% of %.0f", peak, want)
	}
	if x[4] > 0.7*peak {
		t.Errorf("N=4 gives %.0f ops/s, want well below the peak %.0f (model: half)", x[4], peak)
	}
	knee := 0
	for _, n := range levels {
		if x[n] >= 0.95*peak {
			knee = n
			break
		}
	}
	if knee < 4 || knee > 32 {
		t.Errorf("knee (first N at 95%% of peak) = %d, want 8 or 16, one step either side at most", knee)
	}
	t.Logf("expected peak %.0f at N=8; measured peak %.0f, knee %d", want, peak, knee)
}

func TestCalibrationConnCostRetrograde(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration runs closed loops for ~5 s")
	}
	d := startSim(t, "slots=8,service=2ms,conn_cost=50us")
	loadKeys(t, d.URI())
	levels := []int{8, 16, 64}
	x := sweep(t, d, levels, 1500*time.Millisecond)
	peak, at := peakOf(x, levels)
	// Model: 8/(2ms+50us·8) = 3333 at 8, 8/(2ms+50us·64) = 1538 at 64.
	if x[64] > 0.9*peak {
		t.Errorf("N=64 gives %.0f ops/s, want at least 10%% below the peak %.0f (at N=%d)", x[64], peak, at)
	}
	t.Logf("model: %.0f at 8, %.0f at 64; measured peak %.0f at N=%d, %.0f at 64",
		d.Spec().Throughput(8), d.Spec().Throughput(64), peak, at, x[64])
}

func TestCalibrationShardedScaling(t *testing.T) {
	if testing.Short() {
		t.Skip("calibration runs closed loops for ~6 s")
	}
	const n = 96
	single := startSim(t, "slots=8,service=2ms")
	loadKeys(t, single.URI())
	singlePeak := closedLoop(t, single.URI(), 32, 300*time.Millisecond, 1500*time.Millisecond)

	wide := startSim(t, "shards=3,slots=8,service=2ms,router_slots=64,router_cost=50us")
	loadKeys(t, wide.URI())
	x3 := closedLoop(t, wide.URI(), n, 300*time.Millisecond, 1500*time.Millisecond)

	slow := startSim(t, "shards=3,slots=8,service=2ms,router_slots=4,router_cost=1ms")
	loadKeys(t, slow.URI())
	xs := closedLoop(t, slow.URI(), n, 300*time.Millisecond, 1500*time.Millisecond)

	t.Logf("single shard N=32: %.0f ops/s (model %.0f)", singlePeak, single.Spec().Throughput(32))
	t.Logf("3 shards, fast router, N=%d: %.0f ops/s (model %.0f) = %.2f× single", n, x3, wide.Spec().Throughput(n), x3/singlePeak)
	t.Logf("3 shards, slow router, N=%d: %.0f ops/s (model %.0f)", n, xs, slow.Spec().Throughput(n))
	if x3 < 2.5*singlePeak {
		t.Errorf("3 shards give %.0f ops/s, want ≥ 2.5× the single shard's %.0f", x3, singlePeak)
	}
	capacity := slow.Spec().RouterCapacity() // 4000
	if xs > 1.15*capacity {
		t.Errorf("slow router passes %.0f ops/s, above its capacity %.0f", xs, capacity)
	}
	if xs > 0.6*x3 {
		t.Errorf("slow router %.0f ops/s is not clearly capped below the fast router's %.0f", xs, x3)
	}
}
