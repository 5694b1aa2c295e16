package sweep

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
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
}

// RunStep measures one step. The step's clients and pools exist only for
// this step. When ctx is cancelled mid-window the partial step is returned
// with Interrupted set, along with ctx's error.
func (r *Runner) RunStep(ctx context.Context, spec StepSpec) (StepResult, error) {
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
				w := worker{id: id, rng: rand.New(rand.NewPCG(uint64(id)+1, uint64(spec.Index)*7919+uint64(spec.Trial))), coll: coll, wl: &r.Workload,
					api: r.Workload.Name == "api", keys: r.Keys, rec: rec, parent: wctx, deadline: opDeadline{timeout: r.OpTimeout, base: rec.base}}
				defer w.deadline.release()
				for !stop.Load() && wctx.Err() == nil {
					w.call()
				}
			}()
		}
	}

	interrupted := func() (StepResult, error) {
		stop.Store(true)
		cancelWorkers()
		wg.Wait()
		return step, ctx.Err()
	}
	warmupStart := time.Now()
	if !r.phase(ctx, spec, PhaseWarmup, r.Warmup, rec, pool) {
		return interrupted()
	}
	warmupS := time.Since(warmupStart).Seconds()

	// Measured window.
	for _, o := range r.Observers {
		o.WindowStart(ctx, spec)
	}
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

	// Workers finish the call they are in. Every op ends within 1.25 op
	// timeouts (see opDeadline), so after that (and a second) whatever
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
	step.Phases = &StepPhases{Prewarm: step.Pool.PrewarmS, Warmup: warmupS, Window: window.Seconds()}
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

func (r *Runner) prewarmTimeout() time.Duration {
	if r.PrewarmTimeout > 0 {
		return r.PrewarmTimeout
	}
	return 60 * time.Second
}

// prewarm pings from want×hosts goroutines per client until the pools hold
// want connections per client per host, the count stops growing for 5 s,
// or the bound passes. Every host's pool is filled: the driver spreads the
// workers over all mongos, so each pool grows toward want during the run
// anyway, and filling them first keeps the connection count steady over
// the window (and comparable between steps). Pings use no workload data.
// The driver opens at most maxConnecting connections at a time per pool,
// so large pools take a while.
func (r *Runner) prewarm(ctx context.Context, spec StepSpec, clients []*mongo.Client, pool *poolRecorder, want, hosts int) error {
	need := int64(want * len(clients) * hosts)
	deadline := time.Now().Add(r.prewarmTimeout())
	pctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	var (
		wg       sync.WaitGroup
		firstErr atomic.Pointer[error]
		stop     atomic.Bool
	)
	ping := bson.D{{Key: "ping", Value: 1}}
	for _, c := range clients {
		admin := c.Database("admin")
		for i := 0; i < want*hosts; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() && pctx.Err() == nil {
					if err := admin.RunCommand(pctx, ping).Err(); err != nil && pctx.Err() == nil {
						// A slow or stuck server is what some steps measure:
						// note the error, back off, and let the step decide.
						firstErr.CompareAndSwap(nil, &err)
						time.Sleep(50 * time.Millisecond)
					}
				}
			}()
		}
	}
	// Let in-flight pings finish before cancelling: the driver closes a
	// connection whose operation is cancelled, which would undo the warm-up.
	defer func() { stop.Store(true); wg.Wait(); cancel() }()

	start := time.Now()
	lastGrowth, last := time.Now(), int64(-1)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		open := pool.open.Load()
		if open >= need {
			return nil
		}
		if open == 0 {
			// Not one connection, and a ping already failed: the server
			// cannot be reached (server selection gave up). Waiting out
			// the pre-warm bound would only delay saying so.
			if e := firstErr.Load(); e != nil {
				return fmt.Errorf("pre-warm: no connection could be opened: %w", *e)
			}
		}
		if open > last {
			last, lastGrowth = open, time.Now()
		}
		if time.Since(lastGrowth) > 5*time.Second && open > 0 {
			return nil
		}
		if r.Progress != nil {
			r.Progress(Progress{Step: spec, Phase: PhasePrewarm, Elapsed: time.Since(start), Open: int(open)})
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-pctx.Done():
			if open == 0 {
				if e := firstErr.Load(); e != nil {
					return fmt.Errorf("pre-warm: no connection could be opened within %s: %w", r.prewarmTimeout(), *e)
				}
				return fmt.Errorf("pre-warm: no connection could be opened within %s", r.prewarmTimeout())
			}
			return nil
		case <-tick.C:
		}
	}
}

// phase waits d while reporting progress; false when ctx ended first.
func (r *Runner) phase(ctx context.Context, spec StepSpec, name string, d time.Duration, rec *recorder, pool *poolRecorder) bool {
	start := time.Now()
	end := start.Add(d)
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	lastN, lastT := rec.live.Load(), start
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
				n := rec.live.Load()
				rate := float64(n-lastN) / now.Sub(lastT).Seconds()
				lastN, lastT = n, now
				r.Progress(Progress{Step: spec, Phase: name, Elapsed: now.Sub(start), Total: d, CallsPerS: rate, Open: int(pool.open.Load())})
			}
		}
	}
}

// worker issues one call at a time.
type worker struct {
	id       int
	rng      *rand.Rand
	coll     *mongo.Collection
	wl       *Workload
	api      bool // the seeds' API call instead of the mix
	keys     *KeySpace
	rec      *recorder
	parent   context.Context // cancelled when the step is interrupted
	deadline opDeadline
}

// opDeadline gives a worker's operations their timeout without making a
// context (and a timer) per operation, which the driver's own timeoutMS
// would: one context whose deadline is renewed whenever less than the op
// timeout T is left, so every operation gets between T and 1.25 T.
type opDeadline struct {
	timeout time.Duration
	base    time.Time     // the recorder's clock origin
	until   time.Duration // the current deadline on that clock
	ctx     context.Context
	cancel  context.CancelFunc
}

// at returns the context for an operation starting at now (recorder clock).
func (d *opDeadline) at(parent context.Context, now time.Duration) context.Context {
	if d.ctx == nil || d.until-now < d.timeout {
		d.release()
		d.until = now + d.timeout + d.timeout/4
		d.ctx, d.cancel = context.WithDeadline(parent, d.base.Add(d.until))
	}
	return d.ctx
}

func (d *opDeadline) release() {
	if d.cancel != nil {
		d.cancel()
	}
}

func (w *worker) pickOp() string {
	u := w.rng.Float64()
	for _, m := range w.wl.Mix {
		if u < m.Weight {
			return m.Op
		}
		u -= m.Weight
	}
	return w.wl.Mix[len(w.wl.Mix)-1].Op
}

// call runs one workload call and records its ops and its latency.
func (w *worker) call() {
	start := w.rec.callStart(w.id)
	if w.api {
		// The seeds' API call: 2 finds and 1 update by _id.
		w.find()
		w.find()
		w.update()
	} else {
		switch w.pickOp() {
		case OpRead:
			w.find()
		case OpUpdate:
			w.update()
		case OpInsert:
			w.insert()
		case OpScan:
			w.scan()
		case OpRMW:
			w.find()
			w.update()
		}
	}
	// An interrupted call's outcome says nothing about the server.
	w.rec.callEnd(w.id, start, w.parent.Err() == nil)
}

// begin marks an op of type typ starting and returns its context.
func (w *worker) begin(typ int) (context.Context, time.Duration) {
	start := w.rec.opStart(w.id, typ)
	return w.deadline.at(w.parent, start), start
}

func (w *worker) done(typ int, start time.Duration, err error) {
	w.rec.opEnd(w.id, typ, start, classify(err), err, w.parent.Err() == nil)
}

func (w *worker) find() {
	key := Key(w.keys.Pick(w.rng))
	ctx, start := w.begin(0)
	err := w.coll.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Err()
	if errors.Is(err, mongo.ErrNoDocuments) {
		err = nil // a key that is not there (yet) is an answer, not a failure
	}
	w.done(0, start, err)
}

func (w *worker) update() {
	key := Key(w.keys.Pick(w.rng))
	f := fieldName(w.rng.IntN(w.wl.FieldCount))
	val := randomString(w.rng, w.wl.FieldLength)
	ctx, start := w.begin(1)
	_, err := w.coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: bson.D{{Key: f, Value: val}}}})
	w.done(1, start, err)
}

func (w *worker) insert() {
	doc := NewDocument(w.rng, w.keys.NextInsert(), *w.wl)
	ctx, start := w.begin(2)
	_, err := w.coll.InsertOne(ctx, doc)
	w.done(2, start, err)
}

func (w *worker) scan() {
	key := Key(w.keys.Pick(w.rng))
	n := 1 + w.rng.IntN(w.wl.MaxScanLength)
	ctx, start := w.begin(3)
	cur, err := w.coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: key}}}},
		options.Find().SetLimit(int64(n)).SetSort(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(int32(n)))
	if err == nil {
		for cur.Next(ctx) {
		}
		err = cur.Err()
		cur.Close(context.WithoutCancel(ctx))
	}
	w.done(3, start, err)
}

// classify sorts an op error into the kinds results.jsonl counts.
func classify(err error) int {
	switch {
	case err == nil:
		return errNone
	case mongo.IsTimeout(err), errors.Is(err, context.DeadlineExceeded):
		return errTimeout
	case mongo.IsNetworkError(err):
		return errNetwork
	default:
		return errServer
	}
}
