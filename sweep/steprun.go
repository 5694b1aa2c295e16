package sweep

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/poolsweep/poolsweep/internal/teardown"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
)

// What the closed loop (RunStep) and the open loop (runOpen) share about a
// step: its clients, the pre-warm, the window's edges, the drain of the
// calls still running, and the pool's and observers' part of the result.
// Only the source of calls differs between the two.

// newStep is the result of spec before anything is measured; a series
// with pool options records those its clients run with.
func (r *runner) newStep(spec plan.StepSpec) results.StepResult {
	return results.StepResult{Kind: results.KindStep, Target: spec.Target, Workload: spec.Workload, PoolSetting: spec.PoolSetting,
		Concurrency: spec.Concurrency, MaxPoolSize: spec.MaxPoolSize, Clients: spec.Clients, Trial: spec.Trial,
		ReadPreference: r.Workload.ReadPreference, WriteConcern: r.Workload.WriteConcern, PoolOptions: r.poolOptionsInEffect(spec)}
}

// poolWant is the connections a step's pool holds open per host: its
// calls in flight at most, capped by the pool.
func poolWant(spec plan.StepSpec) int { return min(spec.Concurrency, spec.MaxPoolSize) }

// driverMaxConnecting is the driver's own maxConnecting, in effect when
// neither the URI nor poolsweep sets one (x/mongo/driver/topology's
// newPool; Java, Node, Python and C# default to 2 as well).
const driverMaxConnecting = 2

// poolOptionsInEffect is what the step's clients run with, read back from
// their options (stepClientOptions: the series' values, the URI's, or the
// driver's defaults); nil for a series without pool options, which keeps
// the steady sweep's settings and records none.
func (r *runner) poolOptionsInEffect(spec plan.StepSpec) *results.PoolOptions {
	po := r.Workload.PoolOptions
	if po == nil {
		return nil
	}
	o := r.stepClientOptions(spec, poolWant(spec), nil, nil)
	in := results.PoolOptions{MaxConnecting: driverMaxConnecting, Cold: po.Cold}
	if o.MinPoolSize != nil {
		in.MinPoolSize = int(*o.MinPoolSize)
	}
	if o.MaxConnecting != nil && *o.MaxConnecting > 0 {
		in.MaxConnecting = int(*o.MaxConnecting)
	}
	if o.MaxConnIdleTime != nil {
		in.MaxIdleMS = o.MaxConnIdleTime.Milliseconds()
	}
	if o.Timeout != nil {
		in.TimeoutMS = o.Timeout.Milliseconds()
	}
	in.RetryReads, in.RetryWrites = results.OnOff(orDefault(o.RetryReads, true)), results.OnOff(orDefault(o.RetryWrites, true))
	// A serverSelectionTimeout of 0 is none in the driver: each
	// operation's own bound, --op-timeout, is its wait for a server.
	if sst := orDefault(o.ServerSelectionTimeout, 0); sst > 0 {
		in.ServerSelectionTimeoutMS = sst.Milliseconds()
	} else {
		in.ServerSelectionTimeoutMS = r.OpTimeout.Milliseconds()
	}
	in.HeartbeatMS = orDefault(o.HeartbeatInterval, driverHeartbeat).Milliseconds()
	return &in
}

// driverHeartbeat is the driver's own heartbeatFrequencyMS, in effect
// where neither the URI nor the series sets one (retryReads and
// retryWrites default to on).
const driverHeartbeat = 10 * time.Second

// orDefault is *p, or def when p is nil.
func orDefault[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// monitor turns the driver's pool events into p's numbers.
func (p *poolRecorder) monitor() *event.PoolMonitor {
	return &event.PoolMonitor{Event: func(e *event.PoolEvent) {
		if p.tl != nil {
			p.tl.pool(e)
		}
		p.hosts.event(e)
		switch e.Type {
		case event.ConnectionCreated:
			p.created1()
		case event.ConnectionClosed:
			p.closed(e.Reason)
		case event.ConnectionPoolCleared:
			p.poolCleared()
		case event.ConnectionCheckOutFailed:
			if p.measuring.Load() {
				p.failed.Add(1)
			}
		}
	}}
}

// connect makes the step's clients, each with a pool of spec.MaxPoolSize
// per server kept at least want open, pool's monitors (pool events, and
// the servers' roles unless the URI's options set a server monitor) and
// the command monitor cm (pool and cm may be nil).
func (r *runner) connect(spec plan.StepSpec, want int, pool *poolRecorder, cm *event.CommandMonitor) ([]*mongo.Client, error) {
	var clients []*mongo.Client
	for k := 0; k < spec.Clients; k++ {
		o := r.stepClientOptions(spec, want, nil, cm)
		if pool != nil {
			o.SetPoolMonitor(pool.monitorOf(k))
			if o.ServerMonitor == nil {
				o.SetServerMonitor(pool.watch.monitor())
			}
		}
		c, err := mongo.Connect(o)
		if err != nil {
			disconnect(clients)
			return nil, fmt.Errorf("connect client %d: %w", k+1, err)
		}
		clients = append(clients, c)
	}
	return clients, nil
}

// stepClientOptions are the options of one of the step's clients: the
// user's (NewClient: the URI and the flags), the step's pool, the monitors,
// the series' pool options, and what poolsweep sets where the user did
// not. The pool is kept want connections open (minPoolSize), as the
// steady sweep's pre-warm fills it, unless the series sweeps minPoolSize
// or starts cold: a cold pool starts empty and holds what the series
// says (the URI's minPoolSize, else the driver's 0), which the driver
// opens in the background.
func (r *runner) stepClientOptions(spec plan.StepSpec, want int, pm *event.PoolMonitor, cm *event.CommandMonitor) *options.ClientOptions {
	po, swept := r.Workload.PoolOptions, r.Workload.PoolSwept
	cold := po != nil && po.Cold
	o := r.NewClient().SetMaxPoolSize(uint64(spec.MaxPoolSize)).SetPoolMonitor(pm)
	switch {
	case po != nil && swept.MinPool:
		o.SetMinPoolSize(uint64(po.MinPoolSize))
	case cold:
		if o.MinPoolSize == nil {
			o.SetMinPoolSize(0)
		}
	default:
		o.SetMinPoolSize(uint64(want))
	}
	if cm != nil {
		o.SetMonitor(cm)
	}
	applyAxes(o, r.Workload)
	if po != nil && swept.ServerSelectionTimeout {
		o.SetServerSelectionTimeout(time.Duration(po.ServerSelectionTimeoutMS) * time.Millisecond)
	}
	if o.ServerSelectionTimeout == nil {
		// Every workload op runs under the step's own bound, --op-timeout
		// (recorder.watch), which also bounds server selection and
		// checkout. The driver's 30-s default would wrap each op in one
		// more cancellable timer context, about 2–5% of the client's CPU
		// per op (BenchmarkOverhead). A URI that sets
		// serverSelectionTimeoutMS keeps it.
		o.SetServerSelectionTimeout(0)
	}
	switch {
	case po != nil && swept.MaxConnecting:
		o.SetMaxConnecting(uint64(po.MaxConnecting))
	case o.MaxConnecting == nil && !cold:
		// A cold pool grows as the driver grows it: at the driver's
		// own maxConnecting, unless the URI says otherwise. The driver
		// runs one goroutine per maxConnecting in every pool, idle or
		// not, and a pool never opens more than maxPoolSize at once: a
		// small pool gets its size, so that thousands of light clients
		// do not each hold 64 idle goroutines.
		o.SetMaxConnecting(uint64(min(DefaultMaxConnecting, max(spec.MaxPoolSize, 1))))
	}
	if po != nil && swept.MaxIdle {
		o.SetMaxConnIdleTime(time.Duration(po.MaxIdleMS) * time.Millisecond)
	}
	if po != nil && swept.Timeout {
		// The driver's timeoutMS: each operation's deadline, checkout
		// and server selection included (docs/sweep.md says what the
		// driver does with a connection whose reply is late).
		o.SetTimeout(time.Duration(po.TimeoutMS) * time.Millisecond)
	}
	if po != nil && swept.Retry {
		o.SetRetryReads(po.RetryReads == "on").SetRetryWrites(po.RetryWrites == "on")
	}
	if po != nil && swept.Heartbeat {
		o.SetHeartbeatInterval(time.Duration(po.HeartbeatMS) * time.Millisecond)
	}
	return o
}

// applyAxes sets the read preference and write concern of the workload's
// series (sweep --read-preference, --write-concern) over the URI's.
func applyAxes(o *options.ClientOptions, w workload.Workload) {
	if w.ReadPreference != "" {
		if mode, err := readpref.ModeFromString(w.ReadPreference); err == nil {
			if rp, err := readpref.New(mode); err == nil {
				o.SetReadPreference(rp)
			}
		}
	}
	switch w.WriteConcern {
	case "1":
		o.SetWriteConcern(writeconcern.W1())
	case "majority":
		o.SetWriteConcern(writeconcern.Majority())
	}
}

// disconnectTimeout bounds closing a step's clients: the driver first ends
// their sessions on the server, which a stopped server never answers.
const disconnectTimeout = 10 * time.Second

// disconnect closes clients in parallel: a thousand connections close
// faster so, and the next step starts from a quiet server. A client whose
// Disconnect outlives its deadline is left behind, not the sweep with it
// (teardown.Within).
func disconnect(clients []*mongo.Client) { disconnectWithin(clients, disconnectTimeout) }

// disconnectWithin is disconnect with its deadline d, which the teardown
// test shortens.
func disconnectWithin(clients []*mongo.Client, d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	teardown.Within(ctx, func(ctx context.Context) {
		var wg sync.WaitGroup
		for _, c := range clients {
			wg.Go(func() { c.Disconnect(ctx) })
		}
		wg.Wait()
	})
}

// prewarmStep opens the connections the step will use before any workload
// call (prewarm), noting its time in step and warning when the pools did
// not fill in time.
func (r *runner) prewarmStep(ctx context.Context, spec plan.StepSpec, step *results.StepResult, clients []*mongo.Client, pool *poolRecorder, want int) error {
	if po := r.Workload.PoolOptions; po != nil && po.Cold {
		// A cold series measures the pool growing under the load: it
		// starts empty.
		return nil
	}
	hosts := max(r.Hosts, 1)
	start := time.Now()
	if err := r.prewarm(ctx, spec, clients, pool, want, hosts); err != nil {
		return err
	}
	step.Pool.PrewarmS = time.Since(start).Seconds()
	if got, need := pool.open.Load(), int64(want*spec.Clients*hosts); got < need {
		step.Warnings = append(step.Warnings, fmt.Sprintf("pre-warm opened %d of %d connections within %s; the pool kept growing during warm-up", got, need, r.prewarmTimeout()))
	}
	return nil
}

// windowStart tells the observers the window is about to open, so that
// their first samples are taken before it.
func (r *runner) windowStart(ctx context.Context) {
	for _, o := range r.Observers {
		o.WindowStart(ctx)
	}
}

// openWindow opens the measured window on rec and pool, noting in step
// the connections open and the start time; it returns how many
// connections the pool had created so far.
func openWindow(step *results.StepResult, rec *recorder, pool *poolRecorder) (created int64) {
	step.Connections = int(pool.open.Load())
	pool.maxOpen.Store(pool.open.Load())
	created = pool.created.Load()
	pool.openHostWindow()
	step.StartedAt = time.Now().UTC()
	fail := rec.poolFailed
	pool.onFail.Store(&fail)
	rec.openWindow()
	pool.measuring.Store(true)
	return created
}

// windowEnd tells the observers the window has closed.
func (r *runner) windowEnd() {
	for _, o := range r.Observers {
		o.WindowEnd()
	}
}

// drain ends the step's calls; done closes once every one has returned.
// The watchdog ends every op within about a tenth of the op timeout past
// it (recorder.watch), so after 1.25 timeouts (and a second) whatever
// still runs in a completed step is stuck: seal records it as a timeout of
// its age. An interrupted step cancels its calls instead: their outcome
// says nothing about the server, and they are not recorded. Calls (of
// kind what) not back 10 s after the cancel are warned about.
func (r *runner) drain(ctx context.Context, step *results.StepResult, completed bool, done <-chan struct{}, seal func(), cancel context.CancelFunc, rec *recorder, what string) {
	if completed {
		grace := time.NewTimer(r.OpTimeout*5/4 + time.Second)
		select {
		case <-done:
		case <-grace.C:
		case <-ctx.Done():
		}
		grace.Stop()
		if ctx.Err() == nil {
			seal()
		}
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		step.Warnings = append(step.Warnings, "some "+what+" had not returned 10 s after the step ended")
	}
	rec.discard()
}

// finish adds the pool's numbers over the window (created counts the
// connections the pool had created when it opened), the observers' part,
// the target_failed mark when the target failed (outage.go) and the
// judge's labels to step, and returns it, marked interrupted with ctx's error when
// the window did not complete.
func (r *runner) finish(ctx context.Context, step results.StepResult, rec *recorder, pool *poolRecorder, created int64, completed bool) (results.StepResult, error) {
	step.Pool.CheckoutWait = pool.summary()
	step.Pool.CheckoutFailed = pool.failed.Load()
	step.Pool.ConnectionsOpen = step.Connections
	step.Pool.ConnectionsMax = int(pool.maxOpen.Load())
	step.Pool.ConnectionsCreated = created
	step.Pool.ConnectionsLost = pool.lost.Load()
	pool.fill(&step)
	for _, o := range r.Observers {
		o.Fill(&step)
	}
	if completed {
		// An interrupted step is measured again anyway; a completed one
		// whose target failed must say so before it is judged.
		if f := markTargetFailed(&step, rec.outageEvidence(pool.cleared.Load())); f != nil {
			if ev := eventFailure(step.Profile, f); ev != nil {
				// What the step's own event did to the target is what it
				// measured, not a failure of the deployment.
				step.Warnings = append(step.Warnings, fmt.Sprintf("the target stopped answering %.1f s into the step, as the event %s it fired would have it (%s): measured, not marked failed", f.FirstFailureS, ev.Spec, f.Reason))
			} else {
				step.TargetFailed = f
				step.Warnings = append(step.Warnings, "the target failed during the window: "+f.Reason+"; this step is not a measurement of the deployment, and --resume measures it again")
			}
		}
		if w := notFoundWarning(&step); w != "" {
			step.Warnings = append(step.Warnings, w)
		}
	}
	if r.Judge != nil {
		r.Judge.Judge(&step)
	}
	if !completed {
		step.Interrupted = true
		return step, ctx.Err()
	}
	return step, nil
}
