package sim

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The simulator's own administrative command, poolsweepSimEvent: events
// a load can be put through on purpose (a slowdown, a freeze, every
// connection reset, a router restart). No real server has this command;
// a real one answers CommandNotFound, so a caller can never mistake a
// real deployment for the simulator by it. What the simulator reports
// while an event runs is only what a real server would show: connections
// closed and opened, late replies, refused connects; the event itself is
// in no reply but the command's own.

// simEventCommand is the name of the simulator's administrative command:
//
//	{poolsweepSimEvent: ACTION, factor: F, durationMS: D, all: BOOL}
//
// run on the admin database. ACTION is "slow" (service time × F, F ≥ 1,
// for D ms), "freeze" (no reply and no request read for D ms), "reset"
// (every client connection closed) or "routerRestart" (a router closes
// its connections and refuses connects for the spec's router_restart).
// all:true applies slow, freeze and reset to every server of the
// deployment instead of the one that receives the command. The reply is
// {action, hosts: [host:port…], endsAt: date, ok: 1}.
const simEventCommand = "poolsweepSimEvent"

// The actions of simEventCommand.
const (
	simEventSlow          = "slow"
	simEventFreeze        = "freeze"
	simEventReset         = "reset"
	simEventRouterRestart = "routerRestart"
)

// Bounds on an event's arguments, so that a typo does not make a
// deployment look hung for hours.
const (
	maxEventDuration = time.Hour
	maxSlowFactor    = 1000
	// maxMemberFreeze is a replica set's electionTimeoutMillis default:
	// a real primary silent for longer is replaced by an election, which
	// the simulator does not model for a freeze.
	maxMemberFreeze = 10 * time.Second
)

// slowState is a slowdown in force on a server until a time: its data
// ops' service time is multiplied by factor.
type slowState struct {
	mu     sync.Mutex
	until  time.Time
	factor float64
}

func (s *slowState) set(factor float64, until time.Time) {
	s.mu.Lock()
	s.factor, s.until = factor, until
	s.mu.Unlock()
}

// at is the factor in force at now: 1 when no slowdown is.
func (s *slowState) at(now time.Time) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if now.Before(s.until) {
		return s.factor
	}
	return 1
}

// slowed multiplies a drawn service time by the factors in force.
func slowed(d time.Duration, factor float64) time.Duration {
	if factor == 1 {
		return d
	}
	return time.Duration(float64(d) * factor)
}

// waitThaw blocks while the server is frozen (the freeze event): a frozen
// server neither reads a request nor sends a reply, as a process stopped
// by the operating system.
func (f *frontend) waitThaw() error {
	for {
		until := f.frozenUntil.Load()
		if until == 0 || time.Now().UnixNano() >= until {
			return nil
		}
		if err := f.d.sleeper.until(f.d.ctx, time.Unix(0, until)); err != nil {
			return err
		}
	}
}

func init() { handlers[simEventCommand] = handler{fn: cmdSimEvent} }

// cmdSimEvent answers SimEventCommand (see its documentation).
func cmdSimEvent(f *frontend, _ context.Context, cs *connState, c *cmd) (bson.D, error) {
	if c.db != "admin" {
		return nil, errAdminOnly(c.name)
	}
	action, err := c.str(c.name)
	if err != nil {
		return nil, err
	}
	factor, err := c.number("factor")
	if err != nil {
		return nil, err
	}
	ms, _, err := c.int("durationMS")
	if err != nil {
		return nil, err
	}
	dur := time.Duration(ms) * time.Millisecond
	targets := []*frontend{f}
	if c.bool("all", false) {
		if action == simEventRouterRestart {
			return nil, errBadValue("routerRestart restarts the router that receives it; all is not allowed")
		}
		targets = f.d.listening()
	}
	now := time.Now()
	end := now.Add(dur)
	needDuration := func() error {
		if dur <= 0 || dur > maxEventDuration {
			return errBadValue(fmt.Sprintf("%s needs durationMS between 1 and %d", action, maxEventDuration.Milliseconds()))
		}
		return nil
	}
	switch action {
	case simEventSlow:
		if err := needDuration(); err != nil {
			return nil, err
		}
		if factor < 1 || factor > maxSlowFactor {
			return nil, errBadValue(fmt.Sprintf("slow needs a factor between 1 and %d", maxSlowFactor))
		}
		all := c.bool("all", false)
		for _, t := range targets {
			switch {
			case t.router:
				t.slow.set(factor, end)
				if !all {
					// Alone, a router slows the shard work of what it
					// routes; with all, the shards' own slowdown does,
					// once.
					t.slowRouted.set(factor, end)
				}
			default:
				t.shard.slow.set(factor, end)
			}
		}
	case simEventFreeze:
		if err := needDuration(); err != nil {
			return nil, err
		}
		for _, t := range targets {
			if t.member != nil && dur > maxMemberFreeze {
				return nil, errBadValue(fmt.Sprintf("a replica-set member frozen past electionTimeoutMillis (%s) would be replaced by an election, which the simulator does not model", maxMemberFreeze))
			}
		}
		for _, t := range targets {
			t.frozenUntil.Store(end.UnixNano())
		}
		// This reply leaves at once: the freeze starts as it is sent.
		cs.unheld = true
	case simEventReset:
		end = now
		for _, t := range targets {
			t.closeConns(cs.conn)
		}
		cs.closeAfterReply = slices.Contains(targets, f)
	case simEventRouterRestart:
		if !f.router {
			return nil, &cmdError{Code: 20, Name: "IllegalOperation", Msg: "routerRestart needs a router (mongos)"}
		}
		dur = cmp0(f.d.spec.RouterRestart, DefaultRouterRestart)
		end = now.Add(dur)
		f.restart(dur, cs.conn)
		cs.closeAfterReply = true
	default:
		return nil, errBadValue(fmt.Sprintf("unknown %s action %q (known: slow, freeze, reset, routerRestart)", c.name, action))
	}
	hosts := make(bson.A, len(targets))
	for i, t := range targets {
		hosts[i] = t.host
	}
	return bson.D{
		{Key: "action", Value: action},
		{Key: "hosts", Value: hosts},
		{Key: "endsAt", Value: bson.NewDateTimeFromTime(end)},
	}, nil
}

// cmp0 is d, or def when d is 0.
func cmp0(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// closeConns closes every client connection of f but keep (the one the
// event came on, closed after its reply).
func (f *frontend) closeConns(keep net.Conn) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.conns {
		if c != keep {
			c.Close()
		}
	}
}

// restart takes router f down for down, as a mongos process restarting:
// its listener closes (connects are refused), its connections close, and
// it comes back on the same port with the state of a new process: fresh
// counters, uptime from its return, no cursors, no idle connections to
// the shards.
func (f *frontend) restart(down time.Duration, keep net.Conn) {
	f.mu.Lock()
	f.ln.Close()
	f.mu.Unlock()
	f.closeConns(keep)
	f.tel.reset()
	f.cursors.clear()
	f.rpools.drop()
	back := time.Now().Add(down)
	f.upSince.Store(back.UnixNano())
	d := f.d
	d.wg.Add(1)
	go func() {
		defer d.wg.Done()
		t := time.NewTimer(down)
		defer t.Stop()
		select {
		case <-d.ctx.Done():
			return
		case <-t.C:
		}
		for {
			ln, err := net.Listen("tcp", f.host)
			if err == nil {
				f.mu.Lock()
				defer f.mu.Unlock()
				if d.ctx.Err() != nil {
					ln.Close()
					return
				}
				f.ln = ln
				// A 4.4+ mongos opens its pools to MinSize as it starts.
				f.rpools.warm()
				d.wg.Add(1)
				go f.acceptLoop(ln)
				return
			}
			// The port may be held a moment longer (a connection in
			// TIME_WAIT does not block a listener, another process might):
			// try again until it is free or the deployment closes.
			select {
			case <-d.ctx.Done():
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
}

// clear drops every cursor, as a restarted process has none.
func (t *cursorTable) clear() {
	t.mu.Lock()
	clear(t.cursors)
	t.mu.Unlock()
}

// since is when this server's process started, for uptime: the
// deployment's start, or a restarted router's return.
func (f *frontend) since() time.Time {
	if ns := f.upSince.Load(); ns != 0 {
		return time.Unix(0, ns)
	}
	return f.d.started
}

// errAdminOnly is a real server's refusal of an admin-only command on
// another database.
func errAdminOnly(name string) *cmdError {
	return &cmdError{Code: 13, Name: "Unauthorized", Msg: name + " may only be run against the admin database."}
}

// number reads a numeric field as a float64 (0 when absent).
func (c *cmd) number(key string) (float64, error) {
	v, err := c.body.LookupErr(key)
	if err != nil {
		return 0, nil
	}
	if f, ok := v.AsFloat64OK(); ok {
		return f, nil
	}
	return 0, errTypeMismatch(fmt.Sprintf("%s.%s must be a number, not %s", c.name, key, v.Type))
}
