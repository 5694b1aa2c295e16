package sweep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Phases of a step, reported through Progress.
const (
	PhasePrewarm = "prewarm"
	PhaseWarmup  = "warmup"
	PhaseMeasure = "measure"
)

// Progress is a live view of the running step, sent about twice a second.
type Progress struct {
	Step      StepSpec
	Phase     string
	Elapsed   time.Duration // in this phase
	Total     time.Duration // length of this phase (0 when unbounded)
	CallsPerS float64       // over the last interval
	Open      int           // open connections
}

// WindowObserver is told when a step's measured window starts and ends,
// so telemetry (server sampler, client CPU) covers exactly the window.
// WindowStart may block briefly (a first sample) before the window opens;
// WindowEnd is called the moment the window closes, while the workers are
// still running; Fill adds to the step once its numbers are computed.
type WindowObserver interface {
	WindowStart(ctx context.Context, spec StepSpec)
	WindowEnd()
	Fill(step *StepResult)
}

// ClientFactory builds the driver options for one measured client; the
// runner adds pool size, pool monitor and timeout. It lets the caller keep
// the real URI (with credentials) out of this package's state.
type ClientFactory func() *options.ClientOptions

// DefaultMaxConnecting is how many connections a measured pool opens at
// once unless the URI or --max-connecting says otherwise. The driver's own
// default of 2 takes about a minute to open 2,000 connections; the pools
// are full before each window, so this changes how fast a step starts,
// not what it measures.
const DefaultMaxConnecting = 64

// Runner measures steps against one target with one workload.
type Runner struct {
	Target    string
	NewClient ClientFactory
	Workload  Workload
	Keys      *KeySpace
	Warmup    time.Duration
	Duration  time.Duration
	OpTimeout time.Duration
	// PrewarmTimeout bounds waiting for the pool to open its connections.
	PrewarmTimeout time.Duration
	// MaxConnecting is the driver's maxConnecting for the step's clients:
	// how many connections each pool opens at once. 0 means the URI's, or
	// DefaultMaxConnecting when the URI does not say.
	MaxConnecting uint64
	// Hosts is how many servers each client keeps a pool to and spreads
	// operations over: the mongos routers of a sharded target; 1 for a
	// standalone or a replica set (primary). 0 means 1.
	Hosts     int
	Progress  func(Progress)
	Observers []WindowObserver
	// StartAt, when set, is asked once the pools are warm when to start
	// the warm-up (agent mode: the moment every agent agreed on).
	StartAt func(ctx context.Context, spec StepSpec) (time.Time, error)
	// Seed varies the workers' random streams (agent mode: the agent's
	// index, so that agents do not all read the same keys in turn).
	Seed uint64
}

// RunStep measures one step. The step's clients and pools exist only for
// this step. When ctx is cancelled mid-window the partial step is returned
// with Interrupted set, along with ctx's error.
func (r *Runner) RunStep(ctx context.Context, spec StepSpec) (StepResult, error) {
	if spec.Rate > 0 {
		return r.runOpen(ctx, spec) // open loop: openrunner.go
	}
	step := StepResult{Kind: KindStep, Target: spec.Target, Workload: spec.Workload, PoolSetting: spec.PoolSetting,
		Concurrency: spec.Concurrency, MaxPoolSize: spec.MaxPoolSize, Clients: spec.Clients, Trial: spec.Trial}

	pool := newPoolRecorder()
	monitor := &event.PoolMonitor{Event: func(e *event.PoolEvent) {
		switch e.Type {
		case event.ConnectionCreated:
			pool.created1()
		case event.ConnectionClosed:
			pool.closed(e.Reason)
		case event.ConnectionCheckedOut:
			pool.checkedOut(e.ConnectionID, e.Duration)
		case event.ConnectionCheckOutFailed:
			if pool.measuring.Load() {
				pool.failed.Add(1)
			}
		}
	}}
	want := min(spec.Concurrency, spec.MaxPoolSize)
	hosts := max(r.Hosts, 1)
	clients := make([]*mongo.Client, 0, spec.Clients)
	defer func() {
		// Disconnect in parallel: a thousand connections close faster so,
		// and the next step starts from a quiet server.
		var wg sync.WaitGroup
		for _, c := range clients {
			wg.Add(1)
			go func(c *mongo.Client) {
				defer wg.Done()
				dctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				c.Disconnect(dctx)
			}(c)
		}
		wg.Wait()
	}()
	for k := 0; k < spec.Clients; k++ {
		o := r.NewClient().
			SetMaxPoolSize(uint64(spec.MaxPoolSize)).
			SetMinPoolSize(uint64(want)).
			SetPoolMonitor(monitor)
		switch {
		case r.MaxConnecting > 0:
			o.SetMaxConnecting(r.MaxConnecting)
		case o.MaxConnecting == nil:
			o.SetMaxConnecting(DefaultMaxConnecting)
		}
		c, err := mongo.Connect(o)
		if err != nil {
			return step, fmt.Errorf("connect client %d: %w", k+1, err)
		}
		clients = append(clients, c)
	}

	rec := newRecorder(r.OpTimeout, spec.Concurrency*spec.Clients)
	stop := &atomic.Bool{}
	var wg sync.WaitGroup

	// Pre-warm: open the connections the step will use before any workload
	// call, by pinging from as many goroutines as the pool will hold.
	prewarmStart := time.Now()
	if err := r.prewarm(ctx, spec, clients, pool, want, hosts); err != nil {
		return step, err
	}
	step.Pool.PrewarmS = time.Since(prewarmStart).Seconds()
	if got, need := pool.open.Load(), int64(want*spec.Clients*hosts); got < need {
		step.Warnings = append(step.Warnings, fmt.Sprintf("pre-warm opened %d of %d connections within %s; the pool kept growing during warm-up", got, need, r.prewarmTimeout()))
	}

	barrierS, err := r.waitStart(ctx, spec)
	if err != nil {
		return step, err
	}

	// Workers: Concurrency per client, closed loop.
	wctx, cancelWorkers := context.WithCancel(ctx)
	defer cancelWorkers()
	for k, c := range clients {
		coll := c.Database(r.Workload.Database).Collection(r.Workload.Collection)
		for i := 0; i < spec.Concurrency; i++ {
			id := k*spec.Concurrency + i
			wg.Add(1)
			go func() {
				defer wg.Done()
				w := worker{id: id, rng: rand.New(rand.NewPCG(uint64(id)+1, uint64(spec.Index)*7919+uint64(spec.Trial)+r.Seed<<32)), coll: coll, wl: &r.Workload,
					api: r.Workload.Name == "api", keys: r.Keys, rec: rec, parent: wctx, timeout: r.OpTimeout}
				defer w.release()
				for !stop.Load() && wctx.Err() == nil {
					w.call()
				}
			}()
		}
	}

	go rec.watch(wctx, r.OpTimeout)

	interrupted := func() (StepResult, error) {
		stop.Store(true)
		cancelWorkers()
		wg.Wait()
		return step, ctx.Err()
	}
	warmupStart := time.Now()
	if !r.phase(ctx, spec, PhaseWarmup, r.Warmup-r.windowLead(), rec, pool) {
		return interrupted()
	}
	warmupS := time.Since(warmupStart).Seconds()

	// Measured window.
	for _, o := range r.Observers {
		o.WindowStart(ctx, spec)
	}
	r.awaitWindow(ctx, warmupStart)
	step.Connections = int(pool.open.Load())
	pool.maxOpen.Store(pool.open.Load())
	created0 := pool.created.Load()
	step.StartedAt = time.Now().UTC()
	rec.openWindow()
	pool.measuring.Store(true)
	t0 := time.Now()
	completed := r.phase(ctx, spec, PhaseMeasure, r.Duration, rec, pool)
	rec.closeWindow()
	pool.measuring.Store(false)
	window := time.Since(t0)
	created1 := pool.created.Load()
	for _, o := range r.Observers {
		o.WindowEnd()
	}

	// Workers finish the call they are in. The watchdog ends every op
	// within about a tenth of the op timeout past it (recorder.watch), so
	// after 1.25 timeouts (and a second) whatever
	// still runs is stuck: seal records it as a timeout of its age. An
	// interrupted step cancels its calls instead: their outcome says
	// nothing about the server, and they are not recorded.
	stop.Store(true)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	if completed {
		grace := time.NewTimer(r.OpTimeout*5/4 + time.Second)
		select {
		case <-done:
		case <-grace.C:
		case <-ctx.Done():
		}
		grace.Stop()
		if ctx.Err() == nil {
			rec.seal()
		}
	}
	cancelWorkers()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		step.Warnings = append(step.Warnings, "some workers had not returned 10 s after the step ended")
	}
	rec.discard()

	rec.summary(&step, window)
	step.Phases = &StepPhases{Prewarm: step.Pool.PrewarmS, Warmup: warmupS, Window: window.Seconds(), Barrier: barrierS}
	if step.Histograms != nil {
		step.Histograms.CheckoutWait = encodeHDR(pool.histogram())
	}
	step.Pool.CheckoutWait = pool.summary()
	step.Pool.CheckoutFailed = pool.failed.Load()
	step.Pool.ConnectionsOpen = step.Connections
	step.Pool.ConnectionsMax = int(pool.maxOpen.Load())
	step.Pool.ConnectionsCreated = created1 - created0
	step.Pool.ConnectionsLost = pool.lost.Load()
	for _, o := range r.Observers {
		o.Fill(&step)
	}
	if !completed {
		step.Interrupted = true
		return step, ctx.Err()
	}
	return step, nil
}

// phase waits d while reporting progress; false when ctx ended first.
func (r *Runner) phase(ctx context.Context, spec StepSpec, name string, d time.Duration, rec *recorder, pool *poolRecorder) bool {
	start := time.Now()
	end := start.Add(d)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	lastN, lastT := rec.liveCalls(), start
	for {
		left := time.Until(end)
		if left <= 0 {
			return true
		}
		timer := time.NewTimer(left)
		select {
		case <-ctx.Done():
			timer.Stop()
			return false
		case <-timer.C:
			return true
		case now := <-tick.C:
			timer.Stop()
			if r.Progress != nil {
				n := rec.liveCalls()
				rate := float64(n-lastN) / now.Sub(lastT).Seconds()
				lastN, lastT = n, now
				r.Progress(Progress{Step: spec, Phase: name, Elapsed: now.Sub(start), Total: d, CallsPerS: rate, Open: int(pool.open.Load())})
			}
		}
	}
}
