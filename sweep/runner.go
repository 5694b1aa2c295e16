package sweep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/internal/beat"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep/failpoint"
	"github.com/poolsweep/poolsweep/workload"
)

// Phases of a step, reported through Progress.
const (
	PhasePrewarm = "prewarm"
	PhaseWarmup  = "warmup"
	PhaseMeasure = "measure"
)

// Progress is a live view of the running step, sent about twice a second.
type Progress struct {
	Step      plan.StepSpec
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
	WindowStart(ctx context.Context)
	WindowEnd()
	Fill(step *results.StepResult)
}

// StepJudge labels a measured step from its numbers and its telemetry
// (what bound it, Little's law). The runner calls it once every observer
// has filled the step. The engine knows none of its rules: the caller
// wires one in (analysis/bound's Judge).
type StepJudge interface {
	Judge(step *results.StepResult)
}

// ClientFactory builds the driver options for one measured client; the
// runner adds pool size, pool monitor and timeout. It lets the caller keep
// the real URI (with credentials) out of this package's state.
type ClientFactory func() *options.ClientOptions

// DefaultMaxConnecting is how many connections a measured pool opens at
// once unless the URI or the series' maxConnecting (--max-connecting)
// says otherwise, or the pool starts cold. The driver's own
// default of 2 takes about a minute to open 2,000 connections; the pools
// are full before each window, so this changes how fast a step starts,
// not what it measures.
const DefaultMaxConnecting = 64

// runner measures steps against one target with one workload.
type runner struct {
	Target    string
	NewClient ClientFactory
	Workload  workload.Workload
	Keys      *workload.KeySpace
	Warmup    time.Duration
	Duration  time.Duration
	// Auto, when set, ends warm-ups and windows from the data
	// (steadywindow.go); nil: Warmup and Duration exactly.
	Auto *results.AutoPlan
	// OpTimeout bounds every workload op, server selection and checkout
	// included (the step's clients have no timeout of their own); RunStep
	// refuses one below MinOpTimeout.
	OpTimeout time.Duration
	// PrewarmTimeout bounds waiting for the pool to open its connections.
	PrewarmTimeout time.Duration
	// Hosts is how many servers each client keeps a pool to and spreads
	// operations over: the mongos routers of a sharded target; 1 for a
	// standalone or a replica set (primary). 0 means 1.
	Hosts     int
	Progress  func(Progress)
	Observers []WindowObserver
	// Judge, when set, labels each step after the observers (nil: the
	// step carries no judgement).
	Judge StepJudge
	// StartAt, when set, is asked once the pools are warm when to start
	// the warm-up (agent mode: the moment every agent agreed on).
	StartAt func(ctx context.Context, spec plan.StepSpec) (time.Time, error)
	// Fleet, when set with auto lengths, is the current step's link to
	// the other agents of the run, asked once the agreed start is known:
	// the leader then ends every agent's warm-up and window together.
	Fleet func() Fleet
	// Events are fired into every profile step (eventfire.go), on the
	// target Header describes; none without --event.
	Events []results.EventSpec
	Header results.TargetHeader
	// Seed varies the workers' random streams (agent mode: the agent's
	// index, so that agents do not all read the same keys in turn).
	Seed uint64
	// Fleet of several agents (agent mode): a profile's arrivals are
	// offered over every agent's clients, FleetClients in all, this
	// agent's being clients FleetFirst onward; and only the leader fires
	// the events, once for the fleet (Follower: this agent does not).
	// FleetClients 0: the step's own clients are all there are.
	FleetClients, FleetFirst int
	Follower                 bool
	// FailPoints sets the target's fail points for the step's events
	// (failpoint.Performer), recorded in poolsweep_meta first; the
	// session switches off whatever is still on when it ends.
	FailPoints *failpoint.Guard
}

// RunStep measures one step. The step's clients and pools exist only for
// this step. When ctx is cancelled mid-window the partial step is returned
// with Interrupted set, along with ctx's error.
func (r *runner) RunStep(ctx context.Context, spec plan.StepSpec) (results.StepResult, error) {
	if r.OpTimeout < plan.MinOpTimeout {
		return r.newStep(spec), fmt.Errorf("sweep: Runner.OpTimeout is %s; every op needs a bound of at least %s", r.OpTimeout, plan.MinOpTimeout)
	}
	if spec.Profile != nil {
		return r.runProfile(ctx, spec) // load that changes: profilerunner.go
	}
	if spec.Rate > 0 {
		return r.runOpen(ctx, spec) // open loop: openrunner.go
	}
	step := r.newStep(spec)
	pool := newPoolRecorder()
	want := min(spec.Concurrency, spec.MaxPoolSize)
	clients, err := r.connect(spec, want, pool, nil)
	if err != nil {
		return step, err
	}
	defer disconnect(clients)

	rec := newTypedRecorder(r.OpTimeout, spec.Concurrency*spec.Clients, r.Workload.OpTypes())
	stop := &atomic.Bool{}
	var wg sync.WaitGroup

	// Pre-warm: open the connections the step will use before any workload
	// call, by pinging from as many goroutines as the pool will hold.
	if err := r.prewarmStep(ctx, spec, &step, clients, pool, want); err != nil {
		return step, err
	}

	barrierS, agreed, err := r.waitStart(ctx, spec)
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
					keys: r.Keys, rec: rec, parent: wctx, timeout: r.OpTimeout}
				defer w.release()
				for !stop.Load() && wctx.Err() == nil {
					w.call()
				}
			}()
		}
	}

	go rec.watch(wctx, r.OpTimeout)

	interrupted := func() (results.StepResult, error) {
		stop.Store(true)
		cancelWorkers()
		wg.Wait()
		return step, ctx.Err()
	}
	// In agent mode with auto lengths the leader ends the phases for
	// every agent (fleetwindow.go).
	var fleet Fleet
	if r.Fleet != nil && r.Auto != nil {
		fleet = r.Fleet()
		defer fleet.Close()
	}
	warmupStart := time.Now()
	var (
		warm   warmupOutcome
		origin time.Time
		lost   error
		ok     bool
	)
	if fleet != nil {
		warm, origin, ok, lost = r.fleetWarmUp(ctx, spec, fleet, rec, pool)
	} else {
		warm, ok = r.warmUp(ctx, spec, agreed, rec, pool) // steadywindow.go
	}
	if w := r.lateStart(agreed, warmupStart); w != "" {
		step.Warnings = append(step.Warnings, w)
	}
	if !ok {
		return interrupted()
	}
	if lost != nil {
		step, _ = interrupted()
		return step, lost
	}
	warmupS := warm.elapsed.Seconds()

	// Measured window.
	r.windowStart(ctx)
	if fleet != nil {
		_ = beat.Until(ctx, origin)
	} else {
		r.awaitWindow(ctx, agreed)
	}
	created0 := openWindow(&step, rec, pool)
	t0 := time.Now()
	var win windowOutcome
	completed := false
	if fleet != nil {
		win, completed, lost = r.fleetWindow(ctx, spec, fleet, origin, rec, pool)
	} else {
		win, completed = r.measureWindow(ctx, spec, rec, pool)
	}
	win.start = t0.Sub(warmupStart)
	rec.closeWindow()
	pool.closeWindow()
	window := time.Since(t0)
	created := pool.created.Load() - created0
	r.windowEnd()

	// Workers finish the call they are in (drain).
	stop.Store(true)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	r.drain(ctx, &step, completed, done, rec.seal, cancelWorkers, rec, "workers")

	rec.summary(&step, window)
	step.Phases = &results.StepPhases{Prewarm: step.Pool.PrewarmS, Warmup: warmupS, Window: window.Seconds(), Barrier: barrierS}
	if lost != nil {
		return step, lost
	}
	step.Steady = steadyRecord(warm, win)
	if fleet != nil && completed {
		s, w, wi, err := r.fleetSteady(ctx, fleet, warm, win)
		if err != nil {
			return step, err
		}
		step.Steady, warm, win = s, w, wi
	}
	step.Warnings = append(step.Warnings, steadyWarnings(warm, win, r.Auto)...)
	if step.Histograms != nil {
		step.Histograms.CheckoutWait = results.EncodeHistogram(pool.histogram())
	}
	return r.finish(ctx, step, rec, pool, created, completed)
}

// phase waits d while reporting progress; false when ctx ended first.
func (r *runner) phase(ctx context.Context, spec plan.StepSpec, name string, d time.Duration, rec *recorder, pool *poolRecorder) bool {
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
