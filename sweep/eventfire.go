package sweep

import (
	"context"
	"math"
	"sync"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// eventFire fires a profile step's events at their times, each on the
// timeline's clock, and keeps what happened: when each was sent, how, on
// which host, and when its trigger was gone.
type eventFire struct {
	rec   *recorder
	base  time.Duration // the profile's start on rec's clock
	watch *primaryWatch
	wg    sync.WaitGroup
	mu    sync.Mutex
	out   []results.StepEvent
}

// fireEvents starts firing evs into the step whose profile started at
// base on rec's clock; ctx ends the firing and the waits for the events'
// ends (the step is over). events returns what happened once ctx ended.
// service is the step's mean call latency so far (EventTarget.ServiceTime).
func (r *runner) fireEvents(ctx context.Context, evs []results.EventSpec, rec *recorder, base time.Duration, watch *primaryWatch, service func() time.Duration) *eventFire {
	f := &eventFire{rec: rec, base: base, watch: watch, out: make([]results.StepEvent, len(evs))}
	t := r.eventTarget()
	t.ServiceTime = service
	f.wg.Add(1)
	go func() {
		defer f.wg.Done()
		timer := time.NewTimer(time.Hour)
		defer timer.Stop()
		// Each event's way is found once, as the profile starts, so that
		// a check that asks the server costs nothing at the event's time.
		ps := make([]EventPerformer, len(evs))
		errs := make([]error, len(evs))
		for i, ev := range evs {
			f.set(i, results.StepEvent{EventSpec: ev, FiredS: -1})
			ps[i], errs[i] = performerFor(ctx, t, ev)
		}
		for i, ev := range evs {
			timer.Reset(base + time.Duration(ev.AtS*float64(time.Second)) - rec.now())
			select {
			case <-timer.C:
			case <-ctx.Done():
				return
			}
			f.fire(ctx, i, t, ev, ps[i], errs[i])
		}
	}()
	return f
}

// fire performs event i now with p (or records why it has none: err)
// and, on a goroutine, waits for its end.
func (f *eventFire) fire(ctx context.Context, i int, t EventTarget, ev results.EventSpec, p EventPerformer, err error) {
	t.Primary = f.watch.current()
	old := t.Primary
	firedAt := f.rec.now()
	se := results.StepEvent{EventSpec: ev, FiredS: f.clock(firedAt)}
	var fired Fired
	if err == nil {
		se.Via = p.Via()
		fired, err = p.Fire(ctx, t, ev)
	}
	se.Host = fired.Host
	if err != nil {
		se.Error = err.Error()
		f.set(i, se)
		return
	}
	f.set(i, se)
	switch {
	case ev.Action == results.EventStepDown:
		// Over once the clients know a new primary: the election and
		// their discovery of it.
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			if at, ok := f.watch.await(ctx, old); ok {
				f.end(i, f.rec.now()-time.Since(at))
			}
		}()
	default:
		f.end(i, firedAt+fired.For)
		if e, ok := p.(EventEnder); ok {
			f.wg.Add(1)
			go func() {
				defer f.wg.Done()
				f.endAfter(ctx, i, e, t, ev, fired)
			}()
		}
	}
}

// endAfter ends event i's action once its length has passed, or at once
// when the step ends first, bounded as an event's command is. An action
// that could not be ended is the event's error: what followed it was not
// the event the plan asked for.
func (f *eventFire) endAfter(ctx context.Context, i int, e EventEnder, t EventTarget, ev results.EventSpec, fired Fired) {
	timer := time.NewTimer(fired.For)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
	ectx, cancel := context.WithTimeout(context.WithoutCancel(ctx), eventCommandTimeout)
	defer cancel()
	if err := e.End(ectx, t, ev, fired); err != nil {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.out[i].Error = "ending it: " + err.Error()
	}
}

// clock is rec's time at on the timeline's clock, in seconds.
func (f *eventFire) clock(at time.Duration) float64 { return (at - f.base).Seconds() }

func (f *eventFire) set(i int, se results.StepEvent) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out[i] = se
}

func (f *eventFire) end(i int, at time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.out[i].EndS = new(max(f.clock(at), f.out[i].FiredS))
}

// events are the step's events once ctx ended (wait for it): those that
// fired, each with its end when it came before last (the step's last
// moment on the timeline's clock, seconds); an event whose time the step
// never reached is left out.
func (f *eventFire) events(last float64) []results.StepEvent {
	f.wg.Wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []results.StepEvent
	for _, se := range f.out {
		if se.FiredS < 0 || se.Spec == "" {
			continue
		}
		if se.EndS != nil && *se.EndS > last {
			se.EndS = nil
		}
		out = append(out, se)
	}
	return out
}

// eventTarget is the runner's target as its events see it.
func (r *runner) eventTarget() EventTarget {
	return EventTarget{Header: r.Header, NewClient: r.NewClient, FailPoints: r.FailPoints}
}

// eventFailureGrace is how long after an event's trigger was gone a
// first failure is still the event's: the driver's retry and the pool's
// reconnection after a freeze or a reset.
const eventFailureGrace = time.Second

// eventFailure is the performed event of ps whose span holds the target's
// first failure f (from the window's opening, which is the profile's
// start), or nil: a failure that began while the step's own event lasted
// is the event's doing. One that began outside every event's span, or
// with no time, is the target's.
func eventFailure(ps *results.ProfileStats, f *results.TargetFailed) *results.StepEvent {
	if ps == nil || f == nil || f.FirstFailureS <= 0 {
		return nil
	}
	for i := range ps.Events {
		ev := &ps.Events[i]
		if ev.Error != "" {
			continue
		}
		end := math.Inf(1) // the trigger outlasted the step
		if ev.EndS != nil {
			end = *ev.EndS + eventFailureGrace.Seconds()
		}
		if f.FirstFailureS >= ev.FiredS-timelineInterval.Seconds() && f.FirstFailureS <= end {
			return ev
		}
	}
	return nil
}
