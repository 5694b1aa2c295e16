package sweep

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/poolsweep/poolsweep/analysis/timeline"
	"github.com/poolsweep/poolsweep/internal/textfmt"
	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// profileLoop is a profile step's arrivals: the open loop's dispatchers,
// slots and calls (openLoop), fed by the profile's schedule instead of a
// constant rate, and each call also filed in the timeline.
type profileLoop struct {
	*openLoop
	tl *timelineRecorder
	// abandon: the step was interrupted, so arrivals not issued are not
	// worth counting (the step is measured again).
	abandon atomic.Bool
}

// dispatch issues client k's arrivals from s until the profile ends or
// halt. As in the open loop, a dispatcher that wakes late issues every
// arrival that fell due meanwhile, each keeping its intended time; on
// halt the arrivals it did not issue are counted as such.
func (l *profileLoop) dispatch(k int, s loadprofile.Schedule, base time.Duration, done <-chan struct{}) {
	rec := l.rec.rec
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	defer l.pending[k].Store(0) // done: behind nothing
	for {
		d, ok := s.Next()
		if !ok {
			return
		}
		at := base + d
		l.pending[k].Store(int64(at) + 1)
		if l.halt.Load() {
			l.notIssued(s, base, at)
			return
		}
		if wait := at - rec.now(); wait > 0 {
			timer.Reset(wait)
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
			l.tl.arrival(at, false)
			l.calls.Add(1)
			go l.call(l.workers[id], at, l.free[k])
		default:
			l.rec.arrival(at, true, false)
			l.tl.arrival(at, true)
		}
	}
}

// notIssued counts the arrivals from at to the profile's end as offered
// and not issued: the dispatcher is halted only once the profile has
// ended, so every one of them was due. base is the profile's start.
func (l *profileLoop) notIssued(s loadprofile.Schedule, base, at time.Duration) {
	for !l.abandon.Load() {
		l.rec.arrival(at, false, true)
		l.tl.arrival(at, false)
		d, ok := s.Next()
		if !ok {
			return
		}
		at = base + d
	}
}

// call runs one arrival on worker w's slot and files it in the timeline.
func (l *profileLoop) call(w *worker, intended time.Duration, free chan<- int) {
	defer l.calls.Done()
	l.rec.start(w.id, intended)
	w.ops()
	// An interrupted call's outcome says nothing about the server.
	if d, ok := l.rec.end(w.id, intended, w.parent.Err() == nil); ok {
		l.tl.call(intended, d)
	}
	free <- w.id
}

// runProfile measures a profile step: open-loop arrivals that follow
// spec.Profile over all clients, each one workload call on a client whose
// pool is spec.MaxPoolSize, with at most spec.Concurrency calls in flight
// per client. There is no warm-up and no steady window: the whole profile
// is measured, from its first moment until its last arrival's call has
// returned (bounded as the open loop bounds it), and recorded interval by
// interval (timeline.go) beside the step's usual totals.
func (r *runner) runProfile(ctx context.Context, spec plan.StepSpec) (results.StepResult, error) {
	step := r.newStep(spec)
	step.Mode, step.Rate = results.ModeProfile, spec.Rate
	p := spec.Profile
	if spec.Clients < 1 || spec.Concurrency < 1 || spec.MaxPoolSize < 1 {
		return step, fmt.Errorf("profile step: clients %d, max in flight %d and pool %d must be positive", spec.Clients, spec.Concurrency, spec.MaxPoolSize)
	}
	length := p.Duration()
	if length <= 0 || p.Peak() <= 0 {
		return step, fmt.Errorf("profile step: the profile %s never loads", textfmt.Token(p.Spec))
	}
	pool := newPoolRecorder()
	rec := newTypedRecorder(r.OpTimeout, spec.Concurrency*spec.Clients, r.Workload.OpTypes())
	// After the profile: up to an op timeout for the dispatchers to catch
	// up, then the drain's grace (drain).
	tl := newTimelineRecorder(rec, length, r.OpTimeout+r.OpTimeout*5/4+time.Second)
	rec.tl, pool.tl = tl, tl
	orec := newOpenRecorder(rec, length)
	cm := orec.commandMonitor()
	if len(r.Events) > 0 {
		// What an event does is read per host and per retry.
		tl.hosts = newTLHosts(len(tl.iv))
		pool.conns = newConnLog(tl)
		cm = newRetryWatch(rec, tl).monitor(cm)
	}
	// A cold series' pools start empty and grow as the driver grows
	// them: connect and prewarmStep keep that rule (stepClientOptions).
	want := min(spec.Concurrency, spec.MaxPoolSize)
	clients, err := r.connect(spec, want, pool, cm)
	if err != nil {
		return step, err
	}
	defer disconnect(clients)
	if err := r.prewarmStep(ctx, spec, &step, clients, pool, want); err != nil {
		return step, err
	}

	// Slots: max-in-flight per client, as in the open loop.
	wctx, cancelWorkers := context.WithCancel(ctx)
	defer cancelWorkers()
	m := spec.Concurrency
	l := &profileLoop{openLoop: &openLoop{rec: orec, workers: make([]*worker, m*spec.Clients), free: make([]chan int, spec.Clients), pending: make([]atomic.Int64, spec.Clients)}, tl: tl}
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
	go rec.watch(wctx, r.OpTimeout)

	// In agent mode every agent's profile starts at the moment they
	// agreed on (the target's clock), so that their timelines share one
	// clock and the leader's events fall at the same time in each.
	barrierS, agreed, err := r.waitStart(ctx, spec)
	if err != nil {
		return step, err
	}

	// The window is the whole profile: it opens at the profile's start
	// and closes at the seal, once the calls have drained.
	r.windowStart(ctx)
	host0 := sampleHost()
	openWindow(&step, rec, pool)
	base := rec.now()
	if !agreed.IsZero() {
		// The observers' first samples took some of the time since the
		// agreed start; the profile's clock is the agreed one.
		base -= max(time.Since(agreed), 0)
	}
	tl.start(base)
	// The events fire on their own goroutine, from the profile's start
	// until the step's calls have drained.
	ectx, endEvents := context.WithCancel(ctx)
	defer endEvents()
	var events *eventFire
	if len(r.Events) > 0 && !r.Follower {
		events = r.fireEvents(ectx, r.Events, rec, base, pool.watch, func() time.Duration {
			if n := rec.liveCalls(); n > 0 {
				return time.Duration(orec.liveLatNS.Load() / n)
			}
			return 0
		})
	}
	done := make(chan struct{})
	var dispatchers sync.WaitGroup
	fleet, first := spec.Clients, 0
	if r.FleetClients > 0 {
		fleet, first = r.FleetClients, r.FleetFirst
	}
	for k := range clients {
		// Client k is client first+k of the fleet's: together the fleet's
		// clients make the profile's one stream of arrivals.
		f := first + k
		s := p.Arrivals(spec.Arrivals, f, fleet, uint64(spec.Index)<<20+uint64(spec.Trial)<<8+uint64(f))
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

	completed := r.phase(ctx, spec, PhaseMeasure, length-(rec.now()-base), rec, pool)
	// The arrivals due before the profile's end are still issued: a
	// dispatcher that fell behind catches up for at most one op timeout,
	// after which what it has not issued is counted as such.
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
	} else {
		l.abandon.Store(true)
	}
	stopAll()
	behind := l.behind(base + length)
	callsDone := make(chan struct{})
	go func() { l.calls.Wait(); close(callsDone) }()
	if !completed {
		rec.closeWindow()
	}
	r.drain(ctx, &step, completed, callsDone, func() { rec.closeWindow(); orec.seal(); rec.seal() }, cancelWorkers, rec, "calls")
	if rec.close.Load() == 0 { // interrupted as the calls drained
		rec.closeWindow()
	}
	pool.closeWindow()
	host1 := sampleHost()
	r.windowEnd()
	window := time.Duration(rec.close.Load() - rec.open.Load())

	rec.summary(&step, window)
	orec.summary(&step, window, spec, behind, host0, host1)
	step.Phases = &results.StepPhases{Prewarm: step.Pool.PrewarmS, Window: window.Seconds(), Barrier: barrierS}
	last := time.Duration(rec.close.Load()-1) - base
	ps := &results.ProfileStats{Spec: p.Spec, PeakRate: p.Peak(), Phases: p.Marks(),
		Timeline: tl.timeline(last)}
	if r.Follower {
		// The leader fired the events; this agent knows them as planned.
		ps.Events = followerEvents(r.Events, last.Seconds())
	}
	if events != nil {
		endEvents()
		ps.Events = events.events(last.Seconds())
	}
	if len(ps.Events) > 0 {
		ps.Events = timeline.SummarizeEvents(ps, timeline.Need{MaxPoolSize: spec.MaxPoolSize, Clients: spec.Clients, Hosts: max(r.Hosts, 1)})
		if !pool.conns.setStorms(ps.Events, ps.Timeline) {
			step.Warnings = append(step.Warnings, fmt.Sprintf("the step's pools logged more than %d connection events: its events' reconnect storms are not recorded", maxConnLog))
		}
	}
	ps.Summary = timeline.Summarize(ps, timeline.Need{MaxPoolSize: spec.MaxPoolSize, Clients: spec.Clients, Hosts: max(r.Hosts, 1)})
	step.Profile = ps
	// The step's pool churn is the timeline's, so that the two agree.
	var created int64
	for _, iv := range ps.Timeline.Intervals {
		created += iv.Created
	}
	if step.Histograms != nil {
		// Merging agents' steps merges their checkout waits too.
		step.Histograms.CheckoutWait = results.EncodeHistogram(pool.histogram())
	}
	st, err := r.finish(ctx, step, rec, pool, created, completed)
	if len(ps.Events) > 0 {
		// The server's own count of connections, its limit and its
		// connection-establishment limiter, per host, known once the
		// observers have filled the step.
		timeline.SetServerTelemetry(st.Profile.Events, st.Server)
	}
	return st, err
}
