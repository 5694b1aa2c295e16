package sweep

import (
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/poolsweep/poolsweep/results"
)

// poolRecorder turns the driver's pool events into the step's pool
// numbers: open connections (created − closed), and checkout wait during
// the measured window.
type poolRecorder struct {
	open      atomic.Int64
	maxOpen   atomic.Int64
	created   atomic.Int64
	failed    atomic.Int64
	lost      atomic.Int64 // closed by an error during the window
	cleared   atomic.Int64 // pools the driver cleared once the window opened
	measuring atomic.Bool
	// onFail, once set, is told of a connection closed by an error and
	// (hard) of a pool the driver cleared: the step's stalls (outage.go).
	onFail atomic.Pointer[func(hard bool)]
	// hosts are the same numbers per server (hostpools.go), watch the
	// servers' roles; what the window saw of them is set when it opens
	// (hostOpen, hostRoles) and closes (change).
	hosts     hostPools
	watch     *primaryWatch
	hostOpen  map[string]int
	hostRoles map[string]string
	change    *results.PrimaryChange
	// tl, set before the step's clients connect in a profile step, is
	// also given every pool event, window or not (timeline.go).
	tl *timelineRecorder
	// conns, set with tl in a profile step with events, logs each
	// client's connections for the events' reconnect storms
	// (eventstorm.go).
	conns *connLog
}

func newPoolRecorder() *poolRecorder {
	p := &poolRecorder{watch: newPrimaryWatch()}
	p.hosts.measuring = &p.measuring
	return p
}

func (p *poolRecorder) created1() {
	p.created.Add(1)
	n := p.open.Add(1)
	if p.measuring.Load() {
		raise(&p.maxOpen, n)
	}
}

// closed counts a connection closed; one closed because it failed (a
// reset, a dead server) during the window is lost: the driver's retry may
// have hidden the failure from the op, but not from the pool.
func (p *poolRecorder) closed(reason string) {
	p.open.Add(-1)
	if p.measuring.Load() && (reason == event.ReasonError || reason == event.ReasonStale || reason == event.ReasonConnectionErrored) {
		p.lost.Add(1)
		p.failed1(false)
	}
}

// poolCleared counts a pool the driver cleared: it saw the server fail
// (a network error that was not a timeout, or a failed heartbeat).
func (p *poolRecorder) poolCleared() {
	if f := p.onFail.Load(); f != nil {
		p.cleared.Add(1)
		(*f)(true)
	}
}

func (p *poolRecorder) failed1(hard bool) {
	if f := p.onFail.Load(); f != nil {
		(*f)(hard)
	}
}

// openHostWindow notes, as the window opens, what is open to each server
// and what each server is.
func (p *poolRecorder) openHostWindow() {
	p.hosts.openWindow()
	p.hostOpen = p.hosts.openNow()
	p.hostRoles = p.watch.openWindow(time.Now())
}

// closeWindow ends the window's pool numbers, and notes whether the
// primary changed during it.
func (p *poolRecorder) closeWindow() {
	p.measuring.Store(false)
	p.change = p.watch.closeWindow(time.Now())
}

// fill adds the window's numbers per server and any change of primary to
// step.
func (p *poolRecorder) fill(step *results.StepResult) {
	step.Pool.Hosts = p.hosts.summary(p.hostOpen, p.hostRoles)
	step.Pool.HeartbeatsPerS = p.watch.beatsS
	if p.change != nil {
		step.PrimaryChange = p.change
		if !step.SteppedDown() {
			// An election the step did not fire is not what it measured.
			step.Warnings = append(step.Warnings, primaryChangeWarning(p.change))
		}
	}
}

// summary is the window's checkout waits in milliseconds.
func (p *poolRecorder) summary() results.Quantiles { return results.NewQuantiles(p.histogram()) }
