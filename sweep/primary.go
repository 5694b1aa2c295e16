package sweep

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/poolsweep/poolsweep/results"
)

// primaryWatch follows what the step's clients learn of each server's
// role from their monitors (hello replies, failed heartbeats): which host
// is the primary, and whether it changed during the window (a step-down,
// an election). Every client reports the same changes; a change already
// seen is a no-op, so one watch serves them all.
type primaryWatch struct {
	mu        sync.Mutex
	roles     map[string]string
	primary   string
	measuring bool
	// During the window: the primary when it opened, the changes seen,
	// and how long no primary was known.
	before     string
	changes    int
	noPrimary  time.Duration
	lostAt     time.Time // when the primary was lost, while none is known
	windowOpen time.Time
	// bell is closed, and made anew, when a primary is seen that was not
	// the primary before (await); since is when.
	bell  chan struct{}
	since time.Time
	// beats counts the hellos the clients' monitors sent (their
	// heartbeats), window or not; beatsOpen and beatsS are the count when
	// the window opened and the window's rate: the monitoring traffic
	// the clients cost the servers, which grows with the clients and not
	// with the load.
	beats     atomic.Int64
	beatsOpen int64
	beatsS    *float64
}

func newPrimaryWatch() *primaryWatch {
	return &primaryWatch{roles: map[string]string{}, bell: make(chan struct{})}
}

// current is the primary as the clients see it now ("" when none is
// known).
func (w *primaryWatch) current() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.primary
}

// await waits until a primary other than old is known, and returns when
// the clients first saw it; false when ctx ended first.
func (w *primaryWatch) await(ctx context.Context, old string) (time.Time, bool) {
	for {
		w.mu.Lock()
		p, at, bell := w.primary, w.since, w.bell
		w.mu.Unlock()
		if p != "" && p != old {
			return at, true
		}
		select {
		case <-bell:
		case <-ctx.Done():
			return time.Time{}, false
		}
	}
}

// roleOf maps the driver's server kinds to the words of results.HostPool.
func roleOf(kind string) string {
	switch kind {
	case "RSPrimary":
		return "primary"
	case "RSSecondary":
		return "secondary"
	case "Mongos":
		return "mongos"
	case "Standalone":
		return "standalone"
	case "", "Unknown":
		return ""
	}
	return "other"
}

// monitor is the server monitor to give every client of the step.
func (w *primaryWatch) monitor() *event.ServerMonitor {
	return &event.ServerMonitor{ServerDescriptionChanged: func(e *event.ServerDescriptionChangedEvent) {
		w.changed(e.Address.String(), roleOf(e.NewDescription.Kind), time.Now())
	}, ServerHeartbeatStarted: func(*event.ServerHeartbeatStartedEvent) { w.beats.Add(1) }}
}

func (w *primaryWatch) changed(addr, role string, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.roles[addr] = role
	switch {
	case role == "primary" && w.primary != addr:
		if w.measuring {
			w.changes++
			if !w.lostAt.IsZero() {
				w.noPrimary += now.Sub(w.lostAt)
			}
		}
		w.primary, w.lostAt, w.since = addr, time.Time{}, now
		close(w.bell)
		w.bell = make(chan struct{})
	case role != "primary" && w.primary == addr:
		w.primary = ""
		if w.measuring {
			w.lostAt = now
		}
	}
}

// openWindow starts the window; roles is every server's role then.
func (w *primaryWatch) openWindow(now time.Time) map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.measuring, w.before, w.changes, w.noPrimary, w.windowOpen = true, w.primary, 0, 0, now
	w.beatsOpen, w.beatsS = w.beats.Load(), nil
	w.lostAt = time.Time{}
	if w.primary == "" {
		w.lostAt = now
	}
	return maps.Clone(w.roles)
}

// closeWindow ends the window: a primary that changed, or was not known
// for part of it, is the step's PrimaryChange (nil when it held).
func (w *primaryWatch) closeWindow(now time.Time) *results.PrimaryChange {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.measuring = false
	if secs := now.Sub(w.windowOpen).Seconds(); secs > 0 {
		r := float64(w.beats.Load()-w.beatsOpen) / secs
		w.beatsS = &r
	}
	none := w.noPrimary
	if !w.lostAt.IsZero() {
		none += now.Sub(w.lostAt)
	}
	if !w.anyPrimary() || w.changes == 0 && none == 0 {
		return nil // a deployment without a primary (mongos, standalone), or it held
	}
	return &results.PrimaryChange{Before: w.before, After: w.primary, Changes: w.changes, NoPrimaryMS: float64(none) / float64(time.Millisecond)}
}

// anyPrimary says whether a primary was ever seen (a replica set).
func (w *primaryWatch) anyPrimary() bool {
	for _, r := range w.roles {
		if r == "primary" {
			return true
		}
	}
	return w.before != ""
}

// primaryChangeWarning says what a step's PrimaryChange means.
func primaryChangeWarning(c *results.PrimaryChange) string {
	before, after := c.Before, c.After
	if before == "" {
		before = "none"
	}
	if after == "" {
		after = "none"
	}
	return fmt.Sprintf("the primary changed during the window (%s → %s, %d change(s), %.0f ms without a primary): this step measured an election, not the deployment's steady state", before, after, c.Changes, c.NoPrimaryMS)
}
