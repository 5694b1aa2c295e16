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
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
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

func (c *cpuWindow) WindowStart(context.Context) {
	c.start, c.allocs0 = processCPU(), heapAllocs()
}
func (c *cpuWindow) WindowEnd() {
	c.used, c.allocsUsed = processCPU()-c.start, heapAllocs()-c.allocs0
}
func (c *cpuWindow) Fill(*results.StepResult) {}

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
// lean also turns off the driver's server-selection timeout, as poolsweep
// does for its step clients (connect): the leanest loop this driver runs.
func bareLoop(tb testing.TB, uri string, c int, warmup, window time.Duration, records int64, lean bool) overheadRound {
	o := options.Client().ApplyURI(uri).SetMaxPoolSize(uint64(c)).SetMinPoolSize(uint64(c)).SetMaxConnecting(uint64(c))
	if lean {
		o.SetServerSelectionTimeout(0)
	}
	client, err := mongo.Connect(o)
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
				coll.FindOne(ctx, bson.D{{Key: "_id", Value: workload.Key(rng.Int64N(records))}}).Err()
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
func poolsweepLoop(tb testing.TB, uri string, c int, warmup, window time.Duration, w workload.Workload, keys *workload.KeySpace) overheadRound {
	cw := &cpuWindow{}
	r := &runner{Target: "sim", NewClient: func() *options.ClientOptions { return options.Client().ApplyURI(uri) }, Workload: w, Keys: keys,
		Warmup: warmup, Duration: window, OpTimeout: 5 * time.Second, Observers: []WindowObserver{cw}}
	step, err := r.RunStep(context.Background(), plan.StepSpec{Target: "sim", Workload: w.Label, Concurrency: c, MaxPoolSize: c, PoolSetting: "match", Clients: 1, Trial: 1})
	if err != nil {
		tb.Fatal(err)
	}
	return overheadRound{opsPerS: step.OpsPerS, cpuPerOp: cw.used / time.Duration(max(step.Ops, 1)), allocsPerOp: float64(cw.allocsUsed) / float64(max(step.Ops, 1))}
}

// BenchmarkOverhead measures what poolsweep's worker loop costs against
// bare driver loops, against the same simulator (in a child process, so
// the CPU measured is the client's alone), interleaved over several rounds
// in a rotating order so that drift of the machine hits all three. Run it
// with
//
//	go test -run '^$' -bench Overhead -benchtime 1x ./sweep
//
// It reports, per concurrency, the medians of each loop and poolsweep's
// ratios (ops/s ratio ≥ 0.97 and CPU/op ratio ≤ 1.03 is the target)
// against two bare loops: "bare", the driver's defaults (the issue's
// baseline, a 30-s server-selection timer per op), and "lean", the same
// without that timer, as poolsweep's step clients run; and the heap
// allocations per op of each. poolsweep's own per-op path allocates
// nothing (TestWorkerOwnPathAllocatesNothing): its cost over the lean loop
// is the driver's pool events (three per op, for checkout wait), the
// cancellable op context (--op-timeout) and the recording.
func BenchmarkOverhead(b *testing.B) {
	uri := startSimChild(b, "slots=256,service=1us").URI
	w := workload.DefaultWorkload()
	w.Records, w.Database = 10000, "ps_overhead"
	client, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		b.Fatal(err)
	}
	lr, err := workload.Prepare(context.Background(), client, w, workload.PrepareOptions{})
	client.Disconnect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	keys := workload.NewKeySpace(w.Distribution, int64(w.Records), lr.NextInsert)
	const rounds = 6
	warmup, window := 500*time.Millisecond, 2*time.Second
	loops := []struct {
		name string
		run  func(c int) overheadRound
	}{
		{"bare", func(c int) overheadRound { return bareLoop(b, uri, c, warmup, window, int64(w.Records), false) }},
		{"lean", func(c int) overheadRound { return bareLoop(b, uri, c, warmup, window, int64(w.Records), true) }},
		{"poolsweep", func(c int) overheadRound { return poolsweepLoop(b, uri, c, warmup, window, w, keys) }},
	}
	for _, c := range []int{16, 256} {
		b.Run(fmt.Sprintf("C=%d", c), func(b *testing.B) {
			for range b.N {
				got := make([][]overheadRound, len(loops))
				for i := range rounds {
					// Rotate which goes first, so a trend favours none.
					for k := range loops {
						j := (i + k) % len(loops)
						got[j] = append(got[j], loops[j].run(c))
					}
				}
				for i := range rounds {
					line := fmt.Sprintf("round %d:", i+1)
					for j, l := range loops {
						line += fmt.Sprintf(" | %s %.0f ops/s %.1f µs/op %.1f allocs/op", l.name, got[j][i].opsPerS, us(got[j][i].cpuPerOp), got[j][i].allocsPerOp)
					}
					b.Log(line)
				}
				for j, l := range loops {
					ops, cpu, allocs := medianRound(got[j])
					b.ReportMetric(allocs, l.name+"-allocs/op")
					b.ReportMetric(ops, l.name+"-ops/s")
					b.ReportMetric(us(cpu), l.name+"-cpu-µs/op")
					if j < 2 {
						opsRatio, cpuRatio := pairedRatios(got[2], got[j])
						b.ReportMetric(opsRatio, "ops/s-ratio-vs-"+l.name)
						b.ReportMetric(cpuRatio, "cpu/op-ratio-vs-"+l.name)
					}
				}
			}
		})
	}
}

// pairedRatios is the median over rounds of poolsweep's ops/s and CPU per
// op over the other loop's in the same round: loops of one round ran
// seconds apart, so the machine's drift between rounds (this VM's CPU per
// op moves by ±15% over a minute) cancels out of each ratio.
func pairedRatios(ps, other []overheadRound) (ops, cpu float64) {
	o := make([]float64, len(ps))
	c := make([]float64, len(ps))
	for i := range ps {
		o[i] = ps[i].opsPerS / max(other[i].opsPerS, 1e-9)
		c[i] = float64(ps[i].cpuPerOp) / float64(max(other[i].cpuPerOp, 1))
	}
	return stats.Median(o), stats.Median(c)
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
	uri := startSimChild(b, "slots=256,service=1us").URI
	w := workload.DefaultWorkload()
	w.Records, w.Database = 10000, "ps_overhead"
	client, _ := mongo.Connect(options.Client().ApplyURI(uri))
	lr, err := workload.Prepare(context.Background(), client, w, workload.PrepareOptions{})
	client.Disconnect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	keys := workload.NewKeySpace(w.Distribution, int64(w.Records), lr.NextInsert)
	for range b.N {
		r := poolsweepLoop(b, uri, 64, 200*time.Millisecond, 5*time.Second, w, keys)
		b.ReportMetric(r.opsPerS, "ops/s")
		b.ReportMetric(us(r.cpuPerOp), "cpu-µs/op")
	}
}
