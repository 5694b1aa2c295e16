package sim

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"time"
)

// Routing a data op to the data it touches: a router's step and its
// connections to the shards, and the data op itself on one shard (or the
// standalone's or a replica-set member's own data), with its slot.

// routerStep charges a router's per-op cost: one router slot for
// router_cost. It is a no-op on a standalone. The slot is released before
// the op is forwarded, as a mongos does not hold a thread while shards work.
func (f *frontend) routerStep(ctx context.Context, kind opKind) error {
	if !f.router {
		return nil
	}
	service := serviceTime(f.d.spec.RouterCost, 0, 0, f.d.spec.Jitter, rand.Float64)
	return f.exec.run(ctx, f.d.sleeper, kind, slowed(service, f.slow.at(time.Now())))
}

// onShard runs fn as one data op on shard i (the only one of a standalone
// or a replica-set member): through a router connection when routed, then
// a slot booked for the modeled service time, at the end of which fn reads
// or writes the shard's store.
//
// A routed op is also one operation of the shard's own server, which counts
// it in its serverStatus as a mongod counts what its routers send: one
// opLatencies entry for the slot wait and service, and its opcounters (see
// shardOp).
func (f *frontend) onShard(ctx context.Context, i int, kind opKind, fn func(*store)) error {
	sh := f.shards[i]
	var start time.Time
	var conn *hostPool
	arrival := time.Now()
	if f.router {
		// The op waits for a connection of its executor's pool to the
		// shard (routerpool.go) before the shard's slot, and arrives at
		// the shard when the connection is free (model time).
		conn = f.rpools.pick(i)
		at, err := conn.acquire(ctx)
		if err != nil {
			return err
		}
		start = time.Now()
		arrival = start
		if at.After(start) {
			arrival = at
		}
	}
	spec := f.d.spec
	service := serviceTime(f.baseService(ctx, sh), spec.ConnCost, sh.openConns.Load(), spec.Jitter, rand.Float64)
	// A slow event multiplies the service time of an op that starts while
	// it lasts: the data's own, and a router's for the ops it routes.
	now := time.Now()
	factor := sh.slow.at(now)
	if f.router {
		factor *= f.slowRouted.at(now)
	}
	service = slowed(service, factor)
	finish := sh.pool(kind).bookAt(arrival, kind, service)
	if conn != nil {
		// The connection is the next op's from the booked finish on.
		conn.release(finish)
	}
	if err := f.d.sleeper.until(ctx, finish); err != nil {
		return err
	}
	// The data op takes effect at the end of its modeled service time: on
	// a replica-set member, a write through the set (logged for the
	// secondaries) and a read on the data the member has applied.
	switch {
	case f.member != nil && kind == kindWrite:
		if err := f.member.write(ctx, fn); err != nil {
			return err
		}
	case f.member != nil:
		f.member.catchUp()
		fn(sh.store)
	default:
		fn(sh.store)
	}
	if f.router {
		sf := f.d.shardFronts[i]
		op := shardOpOf(ctx)
		op.count(&sf.tel)
		elapsed := time.Since(start)
		sf.tel.record(kind, elapsed)
		sf.tel.top.record(op.ns, op.command, 1, elapsed)
	}
	return nil
}

// scatter runs fn on every shard in parallel, one data op each.
func (f *frontend) scatter(ctx context.Context, kind opKind, fn func(i int, st *store)) error {
	if len(f.shards) == 1 {
		return f.onShard(ctx, 0, kind, func(st *store) { fn(0, st) })
	}
	errs := make([]error, len(f.shards))
	var wg sync.WaitGroup
	for i := range f.shards {
		wg.Go(func() {
			errs[i] = f.onShard(ctx, i, kind, func(st *store) { fn(i, st) })
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
