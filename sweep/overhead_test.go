package sweep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/stats"
)

// heapAllocs is the number of heap objects this process has allocated so far.
func heapAllocs() uint64 {
	m := []metrics.Sample{{Name: "/gc/heap/allocs:objects"}}
	metrics.Read(m)
	return m[0].Value.Uint64()
}

// processCPU is this process's user+system CPU time so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuWindow is a WindowObserver that measures this process's CPU and
// heap allocations over exactly the measured window.
type cpuWindow struct {
	start, used         time.Duration
	allocs0, allocsUsed uint64
}

func (c *cpuWindow) WindowStart(context.Context, StepSpec) {
	c.start, c.allocs0 = processCPU(), heapAllocs()
}
func (c *cpuWindow) WindowEnd() {
	c.used, c.allocsUsed = processCPU()-c.start, heapAllocs()-c.allocs0
}
func (c *cpuWindow) Fill(*StepResult) {}

// overheadRound is one measurement: ops/s, and the client's CPU and heap
// allocations per op.
type overheadRound struct {
	opsPerS     float64
	cpuPerOp    time.Duration
	allocsPerOp float64
}

// bareLoop is the physical limit of this stack: C goroutines calling
// FindOne by _id back to back on one client with a pool of C, no pool
// monitor and no operation timeout, in a process with the same live heap.
func bareLoop(tb testing.TB, uri string, c int, warmup, window time.Duration, records int64) overheadRound {
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetMaxPoolSize(uint64(c)).SetMinPoolSize(uint64(c)).SetMaxConnecting(uint64(c)))
	if err != nil {
		tb.Fatal(err)
	}
	defer client.Disconnect(context.Background())
	coll := client.Database("ps_overhead").Collection("usertable")
	var (
		measuring, stop atomic.Bool
		ops             atomic.Int64
		wg              sync.WaitGroup
	)
	ctx := context.Background()
	// The same live heap as poolsweep's step holds (its histograms, about
	// 11 MB): the garbage collector runs as often for both, which on a
	// small heap alone changes the CPU per op by 15–20%.
	ballast := newRecorder(5*time.Second, c)
	defer runtime.KeepAlive(ballast)
	for i := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(i), 1))
			n := int64(0)
			for !stop.Load() {
				coll.FindOne(ctx, bson.D{{Key: "_id", Value: Key(rng.Int64N(records))}}).Err()
				if measuring.Load() {
					n++
				}
			}
			ops.Add(n)
		}()
	}
	time.Sleep(warmup)
	cpu0, allocs0 := processCPU(), heapAllocs()
	t0 := time.Now()
	measuring.Store(true)
	time.Sleep(window)
	measuring.Store(false)
	cpu, allocs := processCPU()-cpu0, heapAllocs()-allocs0
	secs := time.Since(t0).Seconds()
	stop.Store(true)
	wg.Wait()
	n := ops.Load()
	return overheadRound{opsPerS: float64(n) / secs, cpuPerOp: cpu / time.Duration(max(n, 1)), allocsPerOp: float64(allocs) / float64(max(n, 1))}
}

// poolsweepLoop is one step of poolsweep's own runner: the same reads,
// with everything results.jsonl promises recorded.
func poolsweepLoop(tb testing.TB, uri string, c int, warmup, window time.Duration, w Workload, keys *KeySpace) overheadRound {
	cw := &cpuWindow{}
	r := &Runner{Target: "sim", NewClient: func() *options.ClientOptions { return options.Client().ApplyURI(uri) }, Workload: w, Keys: keys,
		Warmup: warmup, Duration: window, OpTimeout: 5 * time.Second, Observers: []WindowObserver{cw}}
	step, err := r.RunStep(context.Background(), StepSpec{Target: "sim", Workload: w.Label, Concurrency: c, MaxPoolSize: c, PoolSetting: "match", Clients: 1, Trial: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return overheadRound{opsPerS: step.OpsPerS, cpuPerOp: cw.used / time.Duration(max(step.Ops, 1)), allocsPerOp: float64(cw.allocsUsed) / float64(max(step.Ops, 1))}
}

// BenchmarkOverhead measures what poolsweep's worker loop costs against
// the bare driver loop, against the same simulator (in a child process,
// so the CPU measured is the client's alone), interleaved over several
// rounds so that drift of the machine hits both. Run it with
//
//	go test -run '^$' -bench Overhead -benchtime 1x ./sweep
//
// It reports, per concurrency, the medians of both and their ratios
// (ops/s ratio ≥ 0.97 and CPU/op ratio ≤ 1.03 is the target), and the
// heap allocations per op of each: poolsweep's own per-op path allocates
// nothing (TestWorkerOwnPathAllocatesNothing), so its count over the bare
// loop's is the driver's pool monitor and the step's fixed costs.
func BenchmarkOverhead(b *testing.B) {
	uri := startSimChild(b, "slots=256,service=1us").uri
	w := DefaultWorkload()
	w.Records, w.Database = 10000, "ps_overhead"
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		b.Fatal(err)
	}
	lr, err := Prepare(context.Background(), client, w, PrepareOptions{})
	client.Disconnect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	keys := NewKeySpace(w.Distribution, int64(w.Records), lr.NextInsert)
	const rounds = 4
	warmup, window := 500*time.Millisecond, 2*time.Second
	for _, c := range []int{16, 256} {
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) {
			for range b.N {
				var bare, ps []overheadRound
				for i := range rounds {
					// Alternate which goes first, so a trend favours neither.
					if i%2 == 0 {
						bare = append(bare, bareLoop(b, uri, c, warmup, window, int64(w.Records)))
						ps = append(ps, poolsweepLoop(b, uri, c, warmup, window, w, keys))
					} else {
						ps = append(ps, poolsweepLoop(b, uri, c, warmup, window, w, keys))
						bare = append(bare, bareLoop(b, uri, c, warmup, window, int64(w.Records)))
					}
				}
				bOps, bCPU, bAllocs := medianRound(bare)
				pOps, pCPU, pAllocs := medianRound(ps)
				for i := range bare {
					b.Logf("round %d: bare %.0f ops/s %.1f µs/op %.1f allocs/op | poolsweep %.0f ops/s %.1f µs/op %.1f allocs/op", i+1,
						bare[i].opsPerS, us(bare[i].cpuPerOp), bare[i].allocsPerOp, ps[i].opsPerS, us(ps[i].cpuPerOp), ps[i].allocsPerOp)
				}
				b.ReportMetric(bAllocs, "bare-allocs/op")
				b.ReportMetric(pAllocs, "poolsweep-allocs/op")
				b.ReportMetric(bOps, "bare-ops/s")
				b.ReportMetric(pOps, "poolsweep-ops/s")
				b.ReportMetric(pOps/bOps, "ops/s-ratio")
				b.ReportMetric(us(bCPU), "bare-cpu-µs/op")
				b.ReportMetric(us(pCPU), "poolsweep-cpu-µs/op")
				b.ReportMetric(float64(pCPU)/float64(bCPU), "cpu/op-ratio")
			}
		})
	}
}

func us(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// medianRound is the median ops/s, CPU per op and allocations per op
// over rounds.
func medianRound(rs []overheadRound) (float64, time.Duration, float64) {
	ops := make([]float64, len(rs))
	cpu := make([]float64, len(rs))
	allocs := make([]float64, len(rs))
	for i, r := range rs {
		ops[i], cpu[i], allocs[i] = r.opsPerS, float64(r.cpuPerOp), r.allocsPerOp
	}
	return stats.Median(ops), time.Duration(stats.Median(cpu)), stats.Median(allocs)
}

// BenchmarkWorkerLoop runs only poolsweep's loop, for profiling:
//
//	go test -run '^$' -bench WorkerLoop -benchtime 1x -cpuprofile cpu.out ./sweep
func BenchmarkWorkerLoop(b *testing.B) {
	uri := startSimChild(b, "slots=256,service=1us").uri
	w := DefaultWorkload()
	w.Records, w.Database = 10000, "ps_overhead"
	client, _ := mongo.Connect(options.Client().ApplyURI(uri))
	lr, err := Prepare(context.Background(), client, w, PrepareOptions{})
	client.Disconnect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	keys := NewKeySpace(w.Distribution, int64(w.Records), lr.NextInsert)
	for range b.N {
		r := poolsweepLoop(b, uri, 64, 200*time.Millisecond, 5*time.Second, w, keys)
		b.ReportMetric(r.opsPerS, "ops/s")
		b.ReportMetric(us(r.cpuPerOp), "cpu-µs/op")
	}
}
