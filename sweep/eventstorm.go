package sweep

import (
	"cmp"
	"math"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/event"

	"github.com/poolsweep/poolsweep/results"
)

// The reconnect storm an event sets off (results.ReconnectStorm): the
// connections each of the step's clients opens to a host after the
// event, and when each became ready. The timeline counts connections per
// interval; a storm's length is read from the pool events' own times,
// since the time K pools take to refill is the figure a fleet is sized
// by, and one interval (100 ms) would be most of a small fleet's.

// stormGap ends a storm on a host: a second with no connection created
// to it.
const stormGap = time.Second

// maxConnLog bounds the connection events a step keeps for its storms
// (24 bytes each): a churn that outgrows it ends the log, and the step's
// storms are left out with a warning, never counted from part of it.
const maxConnLog = 1 << 20

// connEntry is one pool event of one client's connection.
type connEntry struct {
	at     time.Duration // on the recorder's clock
	id     int64         // the driver's connection ID, unique in one client's pool of one host
	host   uint16
	client uint16
	ready  bool // ConnectionReady (else ConnectionCreated)
}

// connLog keeps the ConnectionCreated and ConnectionReady events of a
// profile step with events, from the profile's start. The events come
// from the driver's connection goroutines, never a call's path.
type connLog struct {
	tl    *timelineRecorder
	mu    sync.Mutex
	hosts []string
	index map[string]uint16
	log   []connEntry
	full  bool
}

func newConnLog(tl *timelineRecorder) *connLog {
	return &connLog{tl: tl, index: map[string]uint16{}}
}

// event notes client k's pool event e.
func (c *connLog) event(k int, e *event.PoolEvent) {
	if e.Type != event.ConnectionCreated && e.Type != event.ConnectionReady {
		return
	}
	now := c.tl.rec.now()
	if _, ok := c.tl.index(now); !ok {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.log) >= maxConnLog {
		c.full = true
		return
	}
	h, ok := c.index[e.Address]
	if !ok {
		if len(c.hosts) >= math.MaxUint16 {
			c.full = true
			return
		}
		h = uint16(len(c.hosts))
		c.hosts = append(c.hosts, e.Address)
		c.index[e.Address] = h
	}
	c.log = append(c.log, connEntry{at: now, id: int64(e.ConnectionID), host: h, client: uint16(min(k, math.MaxUint16)), ready: e.Type == event.ConnectionReady})
}

// storms are the reconnect storms after an event fired at firedS and
// before untilS (the next event's firing, +Inf for none), on the
// timeline's clock, busiest host first; each storm's peak rate is read
// from tl's per-host intervals. ok is false when the log outgrew its
// bound.
func (c *connLog) storms(firedS, untilS float64, tl results.Timeline) (out []results.ReconnectStorm, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.full {
		return nil, false
	}
	base := time.Duration(c.tl.base.Load() - 1)
	clock := func(at time.Duration) float64 { return (at - base).Seconds() }
	type key struct {
		client uint16
		id     int64
	}
	for h, host := range c.hosts {
		var created []connEntry
		ready := map[key]time.Duration{}
		for _, e := range c.log {
			if int(e.host) != h {
				continue
			}
			if e.ready {
				ready[key{e.client, e.id}] = e.at
				continue
			}
			if t := clock(e.at); t >= firedS && t < untilS {
				created = append(created, e)
			}
		}
		if len(created) == 0 {
			continue
		}
		slices.SortFunc(created, func(a, b connEntry) int { return cmp.Compare(a.at, b.at) })
		n := 1
		for n < len(created) && created[n].at-created[n-1].at < stormGap {
			n++
		}
		created = created[:n]
		s := results.ReconnectStorm{Host: host, StartS: round3(clock(created[0].at)), LastCreatedS: round3(clock(created[n-1].at)), Created: int64(n)}
		clients := map[uint16]bool{}
		var last time.Duration
		for _, e := range created {
			clients[e.client] = true
			r, ok := ready[key{e.client, e.id}]
			if !ok || r < e.at {
				s.NotReady++
				continue
			}
			last = max(last, r)
		}
		s.Clients = len(clients)
		if s.NotReady == 0 {
			refill := round3((last - created[0].at).Seconds())
			s.RefillS = &refill
			if refill > 0 {
				s.SetupPerS = new(math.Round(float64(n)/refill*10) / 10)
			}
		}
		s.PeakCreatedPerS = results.StormPeakCreatedPerS(tl, host, s.StartS, s.LastCreatedS)
		out = append(out, s)
	}
	slices.SortStableFunc(out, func(a, b results.ReconnectStorm) int { return cmp.Compare(b.Created, a.Created) })
	return out, true
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// monitorOf is p's pool monitor for client k: also the connection log's,
// in a step that keeps one.
func (p *poolRecorder) monitorOf(k int) *event.PoolMonitor {
	m := p.monitor()
	if p.conns == nil {
		return m
	}
	inner := m.Event
	m.Event = func(e *event.PoolEvent) {
		p.conns.event(k, e)
		inner(e)
	}
	return m
}

// setStorms records each performed event's reconnect storms in evs (the
// step's events, in firing order) from the log; false when the log
// outgrew its bound and none could be.
func (c *connLog) setStorms(evs []results.StepEvent, tl results.Timeline) bool {
	for i := range evs {
		if evs[i].Error != "" {
			continue
		}
		until := math.Inf(1)
		if i+1 < len(evs) {
			until = evs[i+1].FiredS
		}
		s, ok := c.storms(evs[i].FiredS, until, tl)
		if !ok {
			for j := range evs {
				evs[j].Storms = nil
			}
			return false
		}
		evs[i].Storms = s
	}
	return true
}

// followerEvents are the events of a step whose leader fired them (agent
// mode), as this agent knows them: each at its planned time, by the
// leader; those past the step's last moment (seconds on the timeline's
// clock) are left out, as the leader leaves out those it never reached.
func followerEvents(evs []results.EventSpec, last float64) []results.StepEvent {
	var out []results.StepEvent
	for _, ev := range evs {
		if ev.AtS <= last {
			out = append(out, results.StepEvent{EventSpec: ev, FiredS: ev.AtS, Via: results.EventViaLeader})
		}
	}
	return out
}
