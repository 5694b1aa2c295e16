package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A router's own connection pools to its shards, as a mongos has them
// (mongodb/mongo src/mongo/executor/connection_pool.cpp and
// src/mongo/s/sharding_task_executor_pool.idl): taskExecutorPoolSize
// executors, each with one pool per shard host of at most
// ShardingTaskExecutorPoolMaxSize connections, opening at most
// ShardingTaskExecutorPoolMaxConnecting at once, keeping
// ShardingTaskExecutorPoolMinSize open while the pool exists, and dropped
// whole, every connection closed, once ShardingTaskExecutorPoolHostTimeoutMS
// passes without a request to that host. An op takes the next executor in
// turn, as a mongos hands each operation an arbitrary executor, and waits
// in that executor's pool for a connection to its shard; so a router
// carries at most MaxSize · taskExecutorPoolSize ops at once to a shard host.

// Defaults of the routers' pool parameters on a real mongos.
const (
	// DefaultRouterPools is taskExecutorPoolSize's default (1 since the
	// transport-layer network interface; a startup parameter).
	DefaultRouterPools = 1
	// DefaultRouterPoolMax is ShardingTaskExecutorPoolMaxSize's default
	// from 4.2 (the IDL's 32767); 4.0's is -1, unlimited.
	DefaultRouterPoolMax = 32767
	// DefaultRouterPoolMin is ShardingTaskExecutorPoolMinSize's default.
	DefaultRouterPoolMin = 1
	// DefaultRouterMaxConnecting is ShardingTaskExecutorPoolMaxConnecting's.
	DefaultRouterMaxConnecting = 2
	// DefaultRouterHostTimeout is ShardingTaskExecutorPoolHostTimeoutMS's.
	DefaultRouterHostTimeout = 5 * time.Minute
	// maxRouterPools bounds router_pools: each executor is a pool per
	// shard host, and more than a machine's cores buys a real mongos
	// nothing.
	maxRouterPools = 64
	// refreshFloorMS is ShardingTaskExecutorPoolRefreshRequirementMS plus
	// ShardingTaskExecutorPoolRefreshTimeoutMS at their defaults (60000 +
	// 20000): a real mongos refuses a host timeout below their sum. The
	// simulator does not model refreshing, so these two stay at their
	// defaults and setParameter holds a new host timeout to their sum.
	refreshFloorMS = 60000 + 20000
)

// routerPoolVersion says how a version's mongos has the pool parameters:
// runtime (setParameter may change them; 4.2+, when they moved to the
// IDL; 4.0 exports them as startup parameters), unlimitedMax (4.0's
// MaxSize default -1) and warm (4.4+: the pools to every shard host are
// opened to MinSize as the router starts,
// warmMinConnectionsInShardingTaskExecutorPoolOnStartup).
func routerPoolVersion(v serverVersion) (runtime, unlimitedMax, warm bool) {
	return v.wire >= 8, v.wire < 8, v.wire >= 9
}

// routerPools is one router's pools: executors × shard hosts, and the
// parameters that size them. t is fixed for the router's life, as
// taskExecutorPoolSize is a startup parameter; the rest may change while
// it runs (setParameter, 4.2+).
type routerPools struct {
	f     *frontend
	t     int
	execs [][]*hostPool // [executor][shard]
	next  atomic.Uint32
	// maxSize ≤ 0 is unlimited (4.0's -1).
	maxSize, minSize, maxConnecting atomic.Int32
	hostTimeoutMS                   atomic.Int32
}

// hostPool is one executor's pool to one shard host (a SpecificPool).
// created counts the connections this pool has opened since it was made;
// a pool dropped at its host timeout starts again from nothing, and one
// that never opened a connection is not reported, as on a real mongos.
//
// A connection is held in model time, as slots are (slotPool): an op
// that has booked its shard work gives its connection back as of that
// work's booked finish, so the next op's work is booked from that instant
// and the host's scheduling delays make replies late without lowering
// what the pool carries. idle holds each returned connection's free-from
// time, earliest first; one not free yet is in use in connPoolStats.
type hostPool struct {
	rp    *routerPools
	shard int
	mu    sync.Mutex
	// live: the pool exists (a request made it, or the router warmed it)
	// and keeps minSize connections.
	live bool
	// held: connections taken and not yet given back (an op before its
	// booking); idle: the others' free-from times.
	held, connecting, created int
	idle                      []time.Time
	// opening is when each connection being opened will be ready.
	opening []time.Time
	waiters []*poolWaiter
	// gen changes when the pool is dropped, so that a host-timeout timer
	// or an open begun before knows it is stale.
	gen   int
	timer *time.Timer
}

// poolWaiter is an op waiting for a connection; at is when the one it
// was granted is free.
type poolWaiter struct {
	ready   chan struct{}
	granted bool
	at      time.Time
}

// newRouterPools builds a router's pools from its spec and version.
func newRouterPools(f *frontend) *routerPools {
	s, v := f.d.spec, f.d.version
	_, unlimited, _ := routerPoolVersion(v)
	rp := &routerPools{f: f, t: s.RouterPools}
	if rp.t == 0 {
		rp.t = DefaultRouterPools
	}
	maxSize := int32(s.RouterPoolMax)
	if maxSize == 0 {
		maxSize = DefaultRouterPoolMax
		if unlimited {
			maxSize = -1
		}
	}
	rp.maxSize.Store(maxSize)
	minSize := int32(DefaultRouterPoolMin)
	if s.RouterPoolMinSet {
		minSize = int32(s.RouterPoolMin)
	}
	rp.minSize.Store(minSize)
	mc := int32(s.RouterMaxConnecting)
	if mc == 0 {
		mc = DefaultRouterMaxConnecting
	}
	rp.maxConnecting.Store(mc)
	ht := s.RouterHostTimeout
	if ht == 0 {
		ht = DefaultRouterHostTimeout
	}
	rp.hostTimeoutMS.Store(int32(ht / time.Millisecond))
	for range rp.t {
		row := make([]*hostPool, len(f.shards))
		for j := range f.shards {
			row[j] = &hostPool{rp: rp, shard: j}
		}
		rp.execs = append(rp.execs, row)
	}
	return rp
}

// pick is the executor's pool an op to shard i waits in: executors in
// turn.
func (rp *routerPools) pick(i int) *hostPool {
	e := int(rp.next.Add(1)-1) % rp.t
	return rp.execs[e][i]
}

// each calls fn on every pool.
func (rp *routerPools) each(fn func(p *hostPool)) {
	for _, row := range rp.execs {
		for _, p := range row {
			fn(p)
		}
	}
}

// warm opens every pool to MinSize, as a 4.4+ mongos does as it starts.
func (rp *routerPools) warm() {
	if _, _, warm := routerPoolVersion(rp.f.d.version); !warm {
		return
	}
	rp.each(func(p *hostPool) {
		p.mu.Lock()
		p.live = true
		p.spawnLocked()
		p.armLocked()
		p.mu.Unlock()
	})
}

// drop ends every pool, as a restarting router's process does: its idle
// connections close, and those in use come back to the pools that
// follow.
func (rp *routerPools) drop() {
	rp.each(func(p *hostPool) {
		p.mu.Lock()
		p.dropLocked()
		p.mu.Unlock()
	})
}

// stop stops the host-timeout timers of a closed deployment.
func (rp *routerPools) stop() {
	rp.each(func(p *hostPool) {
		p.mu.Lock()
		p.stopTimerLocked()
		p.gen++
		p.mu.Unlock()
	})
}

// resize applies changed parameters to the live pools: a raised MinSize
// or MaxConnecting opens connections now, a lowered MaxSize closes
// connections as they come back (release).
func (rp *routerPools) resize() {
	rp.each(func(p *hostPool) {
		p.mu.Lock()
		if p.live {
			p.spawnLocked()
		}
		p.mu.Unlock()
	})
}

// openCost says whether opening a connection to a shard takes time: the
// shard's acceptor (accept_cost) and the setup's round trips
// (setup_latency), which a router's connection pays as a client's does.
func (rp *routerPools) openCost() bool {
	s := rp.f.d.spec
	return s.AcceptCost > 0 || s.SetupLatency > 0
}

// acquire waits for a connection of this pool, opening one when none is
// free and the pool may grow, and returns when (model time) it is free.
func (p *hostPool) acquire(ctx context.Context) (time.Time, error) {
	p.mu.Lock()
	p.live = true
	p.stopTimerLocked()
	if len(p.idle) > 0 && p.freeLocked(time.Now()) > 0 {
		at := p.idle[0]
		p.idle = p.idle[1:]
		p.held++
		p.mu.Unlock()
		return at, nil
	}
	w := &poolWaiter{ready: make(chan struct{})}
	p.waiters = append(p.waiters, w)
	p.spawnLocked()
	p.matchLocked()
	p.mu.Unlock()
	select {
	case <-w.ready:
		return w.at, nil
	case <-ctx.Done():
		p.mu.Lock()
		if w.granted {
			p.mu.Unlock()
			p.release(w.at)
			return time.Time{}, ctx.Err()
		}
		p.waiters = slices.DeleteFunc(p.waiters, func(x *poolWaiter) bool { return x == w })
		p.armLocked()
		p.mu.Unlock()
		return time.Time{}, ctx.Err()
	}
}

// release gives a connection back as of at: to a waiter, else idle; one
// beyond a MaxSize lowered meanwhile is closed instead.
func (p *hostPool) release(at time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.held--
	if m := p.rp.maxSize.Load(); m > 0 && len(p.waiters) == 0 && p.held+len(p.idle)+p.connecting+1 > int(m) {
		p.rp.f.shards[p.shard].openConns.Add(-1)
		p.armLocked()
		return
	}
	p.addIdleLocked(at)
	p.matchLocked()
	p.armLocked()
}

func (p *hostPool) addIdleLocked(at time.Time) {
	i, _ := slices.BinarySearchFunc(p.idle, at, time.Time.Compare)
	p.idle = slices.Insert(p.idle, i, at)
}

// matchLocked hands idle connections to waiters in model time: the
// waiters in turn take whichever is free first, an idle connection (free
// from a time that may be still to come) or a new one (ready at a time
// known when its opening began, and each opening followed by another as
// long as the pool may grow). Those new connections will serve first wait
// for them; the others get an idle connection now, free from its time.
func (p *hostPool) matchLocked() {
	for len(p.waiters) > 0 && len(p.idle) > 0 {
		at := p.idle[0]
		sooner := p.soonerLocked(at)
		if len(p.waiters) <= sooner {
			return
		}
		p.idle = p.idle[1:]
		p.grantLocked(sooner, at)
	}
}

// soonerLocked is how many new connections will be ready no later than
// at: each one opening, and those the pool opens after it, one per
// connection's setup (accept_cost + setup_latency; an acceptor busy with
// others makes them later), while it may grow.
func (p *hostPool) soonerLocked(at time.Time) int {
	d := p.rp.f.d
	c := d.spec.AcceptCost + d.spec.SetupLatency
	growth := math.MaxInt
	if m := p.rp.maxSize.Load(); m > 0 {
		growth = int(m) - (p.held + len(p.idle) + p.connecting)
	}
	n := 0
	for _, r := range p.opening {
		if r.After(at) {
			continue
		}
		n++
		if c > 0 && growth > 0 {
			more := min(int(at.Sub(r)/c), growth)
			n += more
			growth -= more
		}
	}
	return n
}

// grantLocked hands a connection free from at to waiter i.
func (p *hostPool) grantLocked(i int, at time.Time) {
	w := p.waiters[i]
	p.waiters = slices.Delete(p.waiters, i, i+1)
	w.granted, w.at = true, at
	p.held++
	close(w.ready)
}

// spawnLocked opens connections while the pool is below its target (its
// requests, at least MinSize, at most MaxSize) and fewer than
// MaxConnecting are opening. Each waits its turn at the shard's acceptor
// (accept_cost) and then setup_latency, both booked now, so when it will
// be ready is known from the start.
func (p *hostPool) spawnLocked() {
	rp := p.rp
	d := rp.f.d
	for p.spawnable(time.Now()) {
		now := time.Now()
		if !rp.openCost() {
			p.openedLocked(now)
			continue
		}
		ready := now
		if a := d.shardFronts[p.shard].acceptor; a != nil {
			ready = a.bookAt(now, kindCommand, d.spec.AcceptCost)
		}
		ready = ready.Add(d.spec.SetupLatency)
		p.connecting++
		p.opening = append(p.opening, ready)
		d.wg.Add(1)
		go func(gen int) {
			defer d.wg.Done()
			p.open(gen, ready)
		}(p.gen)
	}
}

// spawnable says whether the pool opens another connection now: it is
// below its target (the connections taken or not free yet, and the
// requests waiting; at least MinSize, at most MaxSize) and fewer than
// MaxConnecting are opening.
func (p *hostPool) spawnable(now time.Time) bool {
	rp := p.rp
	free := p.freeLocked(now)
	target := max(p.held+len(p.idle)-free+len(p.waiters), int(rp.minSize.Load()))
	if m := rp.maxSize.Load(); m > 0 {
		target = min(target, int(m))
	}
	return p.held+len(p.idle)+p.connecting < target && p.connecting < int(rp.maxConnecting.Load())
}

// freeLocked is how many idle connections are free at now (idle is
// earliest first).
func (p *hostPool) freeLocked(now time.Time) int {
	n, _ := slices.BinarySearchFunc(p.idle, now, func(at, now time.Time) int {
		if at.After(now) {
			return 1
		}
		return -1
	})
	return n
}

// open waits until a connection being opened is ready and adds it.
func (p *hostPool) open(gen int, ready time.Time) {
	d := p.rp.f.d
	err := d.sleeper.until(d.ctx, ready)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gen != gen {
		return // the pool was dropped meanwhile; its count started again
	}
	p.connecting--
	if i := slices.IndexFunc(p.opening, ready.Equal); i >= 0 {
		p.opening = slices.Delete(p.opening, i, i+1)
	}
	if err == nil {
		p.openedLocked(ready)
		p.spawnLocked()
	}
	p.matchLocked()
}

// openedLocked adds a connection set up as of at: to the first waiter,
// else idle.
func (p *hostPool) openedLocked(at time.Time) {
	p.created++
	sh := p.rp.f.shards[p.shard]
	sh.openConns.Add(1)
	sh.routerCreated.Add(1)
	if len(p.waiters) > 0 {
		p.grantLocked(0, at)
		return
	}
	p.addIdleLocked(at)
	p.armLocked()
}

// armLocked starts the host timeout when the pool has nothing to do: no
// connection taken, no request waiting, none opening; it counts from when
// the last connection is free.
func (p *hostPool) armLocked() {
	if !p.live || p.held > 0 || len(p.waiters) > 0 || p.connecting > 0 || p.timer != nil {
		return
	}
	gen := p.gen
	wait := time.Duration(p.rp.hostTimeoutMS.Load()) * time.Millisecond
	if n := len(p.idle); n > 0 {
		wait += max(time.Until(p.idle[n-1]), 0)
	}
	p.timer = time.AfterFunc(wait, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.gen != gen || p.held > 0 || len(p.waiters) > 0 || p.connecting > 0 {
			return
		}
		p.timer = nil
		p.dropLocked()
	})
}

func (p *hostPool) stopTimerLocked() {
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
}

// dropLocked ends the pool: its idle connections close and its counts
// start again, as a mongos drops a host it has not talked to for the
// host timeout (or a restarted process has no pools). Connections in use
// come back to the pool that follows.
func (p *hostPool) dropLocked() {
	p.stopTimerLocked()
	p.rp.f.shards[p.shard].openConns.Add(-int64(len(p.idle)))
	p.idle = nil
	p.created = p.held
	p.connecting = 0
	p.opening = nil
	p.gen++
	p.live = p.held > 0 || len(p.waiters) > 0
	if p.live {
		p.spawnLocked()
	}
}

// poolCounts is one pool's (or a sum's) counts as connPoolStats has them.
type poolCounts struct{ inUse, available, created, refreshing int }

func (c *poolCounts) add(o poolCounts) {
	c.inUse += o.inUse
	c.available += o.available
	c.created += o.created
	c.refreshing += o.refreshing
}

// counts are the pool's counts now: a connection given back as of a time
// still to come is in use until then.
func (p *hostPool) counts() poolCounts {
	p.mu.Lock()
	defer p.mu.Unlock()
	free := p.freeLocked(time.Now())
	return poolCounts{inUse: p.held + len(p.idle) - free, available: free, created: p.created}
}

// totals sums every pool of the router (the simulator's own Stats).
func (rp *routerPools) totals() poolCounts {
	var c poolCounts
	rp.each(func(p *hostPool) { c.add(p.counts()) })
	return c
}

// connPoolStats is a router's connPoolStats as a mongos of its version
// reports it (mongodb/mongo src/mongo/executor/connection_pool_stats.cpp,
// ConnectionPoolStats::appendToBSON): the totals, then per pool
// (NetworkInterfaceTL-TaskExecutorPool-N) its totals and its hosts, then
// per host the sums over the pools. A pool to a host that has never
// opened a connection is left out, as the server leaves it out; leased
// fields exist from 5.0, always 0 (the simulator leases no connection
// outside its pools). Numbers are int32, as appendNumber writes a count
// that fits. The DBClient pools (numClientConnections) and the config
// servers' and ShardRegistry's pools are not modeled.
func (f *frontend) connPoolStats() bson.D {
	leased := f.d.version.leased
	counts := func(prefix string, c poolCounts) bson.D {
		name := func(s string) string {
			if prefix == "" {
				return s
			}
			return prefix + string(s[0]-'a'+'A') + s[1:]
		}
		d := bson.D{{Key: name("inUse"), Value: int32(c.inUse)}, {Key: name("available"), Value: int32(c.available)}}
		if leased {
			d = append(d, bson.E{Key: name("leased"), Value: int32(0)})
		}
		return append(d, bson.E{Key: name("created"), Value: int32(c.created)}, bson.E{Key: name("refreshing"), Value: int32(c.refreshing)})
	}
	var total poolCounts
	pools := bson.D{}
	hosts := bson.D{}
	if rp := f.rpools; rp != nil {
		byHost := make([]poolCounts, len(f.shards))
		listed := make([]bool, len(f.shards))
		for e, row := range rp.execs {
			var pool poolCounts
			var hostDocs bson.D
			for i, p := range row {
				c := p.counts()
				if c.created == 0 {
					continue
				}
				pool.add(c)
				byHost[i].add(c)
				listed[i] = true
				hostDocs = append(hostDocs, bson.E{Key: f.shards[i].host, Value: counts("", c)})
			}
			if hostDocs == nil {
				continue
			}
			total.add(pool)
			doc := append(counts("pool", pool), hostDocs...)
			pools = append(pools, bson.E{Key: fmt.Sprintf("NetworkInterfaceTL-TaskExecutorPool-%d", e), Value: doc})
		}
		for i, c := range byHost {
			if listed[i] {
				hosts = append(hosts, bson.E{Key: f.shards[i].host, Value: counts("", c)})
			}
		}
	}
	d := bson.D{
		{Key: "numClientConnections", Value: int32(f.tel.connCurrent.Load())},
		{Key: "numAScopedConnections", Value: int32(0)},
	}
	d = append(d, counts("total", total)...)
	return append(d, bson.E{Key: "pools", Value: pools}, bson.E{Key: "hosts", Value: hosts})
}

// The routers' pool parameters in the server's parameter table, so
// getParameter and setParameter read and set them as on a mongos.
func init() {
	registerParam(&serverParam{
		name: "taskExecutorPoolSize", routers: true,
		get: func(f *frontend) any { return int32(f.rpools.t) },
	})
	intParam := func(name string, least int32, at func(rp *routerPools) *atomic.Int32, check func(f *frontend, n int32) error) {
		registerParam(&serverParam{
			name: name, routers: true, runtime: true,
			get: func(f *frontend) any { return at(f.rpools).Load() },
			set: func(f *frontend, v bson.RawValue) error {
				if runtime, _, _ := routerPoolVersion(f.d.version); !runtime {
					return &cmdError{Code: 2, Name: "BadValue", Msg: fmt.Sprintf("not allowed to change [%s] at runtime", name)}
				}
				n, err := paramInt(name, v)
				if err != nil {
					return err
				}
				if n < least {
					return errBadValue(fmt.Sprintf("Invalid value for parameter %s: %d is not greater than or equal to %d", name, n, least))
				}
				if check != nil {
					if err := check(f, n); err != nil {
						return err
					}
				}
				at(f.rpools).Store(n)
				f.rpools.resize()
				return nil
			},
		})
	}
	intParam("ShardingTaskExecutorPoolMaxSize", 1, func(rp *routerPools) *atomic.Int32 { return &rp.maxSize }, nil)
	intParam("ShardingTaskExecutorPoolMinSize", 0, func(rp *routerPools) *atomic.Int32 { return &rp.minSize }, nil)
	intParam("ShardingTaskExecutorPoolMaxConnecting", 1, func(rp *routerPools) *atomic.Int32 { return &rp.maxConnecting }, nil)
	intParam("ShardingTaskExecutorPoolHostTimeoutMS", 1, func(rp *routerPools) *atomic.Int32 { return &rp.hostTimeoutMS },
		func(_ *frontend, n int32) error {
			if n < refreshFloorMS {
				return errBadValue(fmt.Sprintf("ShardingTaskExecutorPoolHostTimeoutMS (%d) set below ShardingTaskExecutorPoolRefreshRequirementMS (60000) + ShardingTaskExecutorPoolRefreshTimeoutMS (20000).", n))
			}
			return nil
		})
}

// paramInt reads a setParameter value as an int parameter takes it: any
// number whose value fits an int (a double is truncated, as the server's
// coercion does); anything else is refused.
func paramInt(name string, v bson.RawValue) (int32, error) {
	var f float64
	switch v.Type {
	case bson.TypeInt32:
		return v.Int32(), nil
	case bson.TypeInt64:
		f = float64(v.Int64())
	case bson.TypeDouble:
		f = math.Trunc(v.Double())
	default:
		return 0, errBadValue(fmt.Sprintf("Invalid value for parameter %s: a number is required, not %s", name, v.Type))
	}
	if math.IsNaN(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, errBadValue(fmt.Sprintf("Invalid value for parameter %s: out of range for an int", name))
	}
	return int32(f), nil
}
