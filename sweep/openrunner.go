package sweep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// openLoop is one open-loop step's arrivals: a dispatcher per client
// issues each arrival at its scheduled time on a free slot of that
// client, or drops it when all its max-in-flight slots are busy. Every
// call runs in its own goroutine, so a slow server never delays the next
// arrival: that is the point of an open loop.
type openLoop struct {
	rec     *openRecorder
	workers []*worker // one per slot; slot k*M+i belongs to client k
	free    []chan int
	halt    atomic.Bool // stop issuing, even arrivals due in the window
	calls   sync.WaitGroup
	pending []atomic.Int64 // each dispatcher's next arrival, recorder clock + 1
}

// dispatch issues client k's arrivals until the one due after the window
// closes, or until halt. Arrivals are never skipped: a dispatcher that
// wakes late issues every arrival that fell due meanwhile, each keeping
// its intended time, so its lateness shows in the corrected latency and
// in start_lag_ms. On halt the arrivals due in the window are still
// counted, as not issued.
func (l *openLoop) dispatch(k int, s *schedule, base time.Duration, done <-chan struct{}) {
	rec := l.rec.rec
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		at := base + s.Next()
		l.pending[k].Store(int64(at) + 1)
		if c := rec.close.Load(); c != 0 && at >= time.Duration(c-1) {
			return
		}
		if l.halt.Load() {
			l.notIssued(s, base, at)
			return
		}
		if d := at - rec.now(); d > 0 {
			timer.Reset(d)
			select {
			case <-timer.C:
			case <-done:
				timer.Stop()
				l.notIssued(s, base, at)
				return
			}
		}
		select {
		case id := <-l.free[k]:
			l.rec.arrival(at, false, false)
			l.calls.Add(1)
			go l.call(l.workers[id], at, l.free[k])
		default:
			l.rec.arrival(at, true, false)
		}
	}
}

// notIssued counts the arrivals from at on that were due in the window
// but will not be issued.
func (l *openLoop) notIssued(s *schedule, base, at time.Duration) {
	rec := l.rec.rec
	for {
		c := rec.close.Load()
		if rec.open.Load() == 0 || (c != 0 && at >= time.Duration(c-1)) || (c == 0 && at >= rec.now()) {
			return
		}
		l.rec.arrival(at, false, true)
		at = base + s.Next()
	}
}

// call runs one arrival on worker w's slot.
func (l *openLoop) call(w *worker, intended time.Duration, free chan<- int) {
	defer l.calls.Done()
	l.rec.start(w.id, intended)
	w.ops()
	// An interrupted call's outcome says nothing about the server.
	l.rec.end(w.id, intended, w.parent.Err() == nil)
	free <- w.id
}

// behind is how far the slowest dispatcher's next arrival lies before t.
func (l *openLoop) behind(t time.Duration) time.Duration {
	var d time.Duration
	for i := range l.pending {
		if p := l.pending[i].Load(); p != 0 {
			d = max(d, t-time.Duration(p-1))
		}
	}
	return d
}

// runOpen measures an open-loop step: arrivals at spec.Rate calls/s over
// all clients, from spec.Arrivals, each one workload call on a client
// whose pool is spec.MaxPoolSize, with at most spec.Concurrency calls in
// flight per client. The clients, pre-warm, warm-up, window, seal and
// teardown are the closed loop's (RunStep); only the source of calls
// differs.
func (r *runner) runOpen(ctx context.Context, spec plan.StepSpec) (results.StepResult, error) {
	step := r.newStep(spec)
	step.Mode, step.Rate = results.ModeOpen, spec.Rate
	if spec.Clients < 1 || spec.Concurrency < 1 || spec.MaxPoolSize < 1 {
		return step, fmt.Errorf("open-loop step: clients %d, max in flight %d and pool %d must be positive", spec.Clients, spec.Concurrency, spec.MaxPoolSize)
	}
	pool := newPoolRecorder()
	rec := newTypedRecorder(r.OpTimeout, spec.Concurrency*spec.Clients, r.Workload.OpTypes())
	planned := r.Duration
	if r.Auto != nil && r.Auto.Window {
		planned = seconds(r.Auto.MaxDurationS)
	}
	orec := newOpenRecorder(rec, planned)
	want := min(spec.Concurrency, spec.MaxPoolSize)
	clients, err := r.connect(spec, want, pool, orec.commandMonitor())
	if err != nil {
		return step, err
	}
	defer disconnect(clients)

	if err := r.prewarmStep(ctx, spec, &step, clients, pool, want); err != nil {
		return step, err
	}

	// Slots: max-in-flight per client, each with a worker whose
	// operations carry the slot to the command monitor.
	wctx, cancelWorkers := context.WithCancel(ctx)
	defer cancelWorkers()
	m := spec.Concurrency
	l := &openLoop{rec: orec, workers: make([]*worker, m*spec.Clients), free: make([]chan int, spec.Clients), pending: make([]atomic.Int64, spec.Clients)}
	for k, c := range clients {
		coll := c.Database(r.Workload.Database).Collection(r.Workload.Collection)
		l.free[k] = make(chan int, m)
		for i := 0; i < m; i++ {
			id := k*m + i
			l.workers[id] = &worker{id: id, rng: rand.New(rand.NewPCG(uint64(id)+1, uint64(spec.Index)*7919+uint64(spec.Trial))), coll: coll, wl: &r.Workload,
				keys: r.Keys, rec: rec, parent: context.WithValue(wctx, slotKey{}, id), timeout: r.OpTimeout}
			l.free[k] <- id
		}
	}
	// The slots' op contexts end with wctx (cancelWorkers), which a slot's
	// successive calls share; the watchdog cancels one whose op outlives
	// the op timeout.
	go rec.watch(wctx, r.OpTimeout)

	// Dispatchers: one per client, each carrying rate/K; uniform streams
	// interleave, poisson streams add up to one poisson stream.
	done := make(chan struct{})
	var dispatchers sync.WaitGroup
	phases := arrivalPhases(spec.Arrivals, float64(spec.Rate), spec.Clients)
	base := rec.now()
	for k := range clients {
		s, err := newSchedule(spec.Arrivals, float64(spec.Rate)/float64(spec.Clients), phases[k], uint64(spec.Index)<<20+uint64(spec.Trial)<<8+uint64(k))
		if err != nil {
			close(done)
			dispatchers.Wait()
			return step, fmt.Errorf("open-loop step: %w", err)
		}
		dispatchers.Add(1)
		go func() { defer dispatchers.Done(); l.dispatch(k, s, base, done) }()
	}
	stopAll := func() {
		l.halt.Store(true)
		select {
		case <-done:
		default:
			close(done)
		}
		dispatchers.Wait()
	}
	interrupted := func() (results.StepResult, error) {
		stopAll()
		cancelWorkers()
		l.calls.Wait()
		return step, ctx.Err()
	}

	warmupStart := time.Now()
	warm, ok := r.openWarmUp(ctx, spec, orec, pool) // openwindow.go
	if !ok {
		return interrupted()
	}
	warmupS := warm.elapsed.Seconds()

	r.windowStart(ctx)
	host0 := sampleHost()
	created0 := openWindow(&step, rec, pool)
	t0 := time.Now()
	win, completed := r.openMeasureWindow(ctx, spec, orec, pool, warm)
	win.start = t0.Sub(warmupStart)
	rec.closeWindow()
	host1 := sampleHost()
	behind := l.behind(time.Duration(rec.close.Load() - 1))
	pool.closeWindow()
	// The window is the recorder's own, the one arrivals were counted in.
	window := time.Duration(rec.close.Load() - rec.open.Load())
	created := pool.created.Load() - created0
	r.windowEnd()

	// The arrivals due before the close are still issued: a dispatcher
	// that fell behind catches up, for at most one op timeout, after
	// which what it has not issued is counted as such. Then the calls
	// finish as in the closed loop: the seal records what is stuck.
	if completed {
		caught := make(chan struct{})
		go func() { dispatchers.Wait(); close(caught) }()
		catchUp := time.NewTimer(r.OpTimeout)
		select {
		case <-caught:
		case <-catchUp.C:
		case <-ctx.Done():
		}
		catchUp.Stop()
	}
	stopAll()
	callsDone := make(chan struct{})
	go func() { l.calls.Wait(); close(callsDone) }()
	r.drain(ctx, &step, completed, callsDone, func() { orec.seal(); rec.seal() }, cancelWorkers, rec, "calls")

	rec.summary(&step, window)
	orec.summary(&step, window, spec, behind, host0, host1)
	step.Phases = &results.StepPhases{Prewarm: step.Pool.PrewarmS, Warmup: warmupS, Window: window.Seconds()}
	step.Steady = openSteadyRecord(warm, win)
	step.Warnings = append(step.Warnings, openSteadyWarnings(warm, win, r.Auto)...)
	return r.finish(ctx, step, rec, pool, created, completed)
}
