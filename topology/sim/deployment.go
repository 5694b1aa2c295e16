package sim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// maxIncomingConnections is the connection limit each listening server
// enforces and from which serverStatus.connections.available is computed,
// like mongod's net.maxIncomingConnections.
const maxIncomingConnections = 1_000_000

// Deployment is a running simulated deployment: one standalone server, or
// routers in front of in-process shards.
type Deployment struct {
	spec    Spec
	version serverVersion // the spec's version row
	alone   bool          // AloneInProcess
	started time.Time
	shards  []*shard
	fronts  []*frontend
	sleeper *sleeper

	ctx       context.Context
	cancel    context.CancelFunc
	wg        sync.WaitGroup
	closeOnce sync.Once
	closeErr  error
	connIDs   atomic.Int32
}

// shard is one simulated data-bearing server: a read and a write slot pool
// (its read and write tickets) and a store. A standalone deployment has
// exactly one, served directly.
type shard struct {
	name          string
	host          string // fake, for listShards and connPoolStats
	reads, writes *slotPool
	store         *store
	// openConns is the connection count conn_cost multiplies: client
	// connections for a standalone, router→shard connections for a shard.
	openConns atomic.Int64
}

// pool returns the slot pool a data op of kind takes: reads queue for read
// slots, writes (and anything else) for write slots.
func (sh *shard) pool(kind opKind) *slotPool {
	if kind == kindRead {
		return sh.reads
	}
	return sh.writes
}

// frontend is one listening server: the standalone mongod or one router.
type frontend struct {
	d      *Deployment
	router bool
	ln     net.Listener
	host   string
	// exec is a router's own pool (its threads, modeled as router_slots),
	// nil on a standalone. A mongos reports no tickets, so serverStatus
	// never shows it.
	exec    *slotPool
	pools   []*connPool // router→shard connection pools, routers only
	cursors *cursorTable
	tel     telemetry

	mu    sync.Mutex
	conns map[net.Conn]struct{}
}

// connState is what a server knows about one client connection.
type connState struct {
	id int32
}

// Start validates spec, listens on 127.0.0.1 (one ephemeral port for a
// standalone, one per router; see Listen for fixed addresses) and serves
// until Close is called.
//
// ctx bounds starting only: a deployment outlives it, because callers
// start with a timeout and then sweep for as long as the plan takes (a
// deployment tied to a 60-s start context silently stopped answering a
// minute into every longer sweep). Call Close to stop it.
func Start(ctx context.Context, spec Spec, opts ...Option) (*Deployment, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("sim: start: %w", err)
	}
	var o startOptions
	for _, opt := range opts {
		opt(&o)
	}
	nFronts := 1
	if spec.Sharded() {
		nFronts = spec.Routers
	}
	addrs := o.listen
	if addrs == nil {
		addrs = slices.Repeat([]string{"127.0.0.1:0"}, nFronts)
	} else if len(addrs) != nFronts {
		return nil, fmt.Errorf("sim: %d listen addresses for %d listening servers (one per router)", len(addrs), nFronts)
	}
	version, _ := versionOf(spec.Version) // Validate checked it
	d := &Deployment{spec: spec, version: version, alone: o.alone, started: time.Now(), sleeper: newSleeper()}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	nShards := max(spec.Shards, 1)
	for i := range nShards {
		d.shards = append(d.shards, &shard{
			name:   fmt.Sprintf("shard%d", i),
			host:   fmt.Sprintf("shard%d/shard%d.poolsweep-sim.invalid:27018", i, i),
			reads:  newSlotPool(spec.readSlots()),
			writes: newSlotPool(spec.writeSlots()),
			store:  newStore(),
		})
	}
	var lc net.ListenConfig
	for _, addr := range addrs {
		ln, err := lc.Listen(ctx, "tcp", addr)
		if err != nil {
			for _, f := range d.fronts {
				f.ln.Close()
			}
			d.cancel()
			return nil, fmt.Errorf("sim: listen: %w", err)
		}
		f := &frontend{d: d, router: spec.Sharded(), ln: ln, host: ln.Addr().String(),
			cursors: newCursorTable(), conns: map[net.Conn]struct{}{}}
		if f.router {
			f.exec = newSlotPool(spec.RouterSlots)
			for _, sh := range d.shards {
				f.pools = append(f.pools, &connPool{shard: sh})
			}
		}
		d.fronts = append(d.fronts, f)
	}
	for _, f := range d.fronts {
		d.wg.Add(1)
		go f.acceptLoop()
	}
	return d, nil
}

// Option configures Start.
type Option func(*startOptions)

type startOptions struct {
	listen []string
	alone  bool
}

// Listen makes Start listen on the given host:port addresses, one per
// listening server (the standalone, or each router in order), instead of
// a free port on 127.0.0.1 for each. A fixed port lets a test stop a
// deployment and start another where clients expect it.
func Listen(addrs ...string) Option {
	return func(o *startOptions) { o.listen = slices.Clone(addrs) }
}

// Spec returns the spec the deployment runs.
func (d *Deployment) Spec() Spec { return d.spec }

// Hosts returns the listening host:port of each server, routers in order.
func (d *Deployment) Hosts() []string {
	hosts := make([]string, len(d.fronts))
	for i, f := range d.fronts {
		hosts[i] = f.host
	}
	return hosts
}

// URI returns a connection string listing every listening server. No
// directConnection option is needed: with one seed answering as a
// standalone the driver picks a single topology, and routers answering
// msg:"isdbgrid" make it a sharded one.
func (d *Deployment) URI() string {
	uri := "mongodb://"
	for i, h := range d.Hosts() {
		if i > 0 {
			uri += ","
		}
		uri += h
	}
	return uri + "/"
}

// Close stops listening, closes every client connection, cancels queued
// operations and waits for all goroutines. It is safe to call more than once.
func (d *Deployment) Close() error {
	d.closeOnce.Do(func() {
		d.cancel()
		var errs []error
		for _, f := range d.fronts {
			if err := f.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
				errs = append(errs, err)
			}
			f.mu.Lock()
			for c := range f.conns {
				c.Close()
			}
			f.mu.Unlock()
		}
		d.wg.Wait()
		d.closeErr = errors.Join(errs...)
	})
	return d.closeErr
}

func (f *frontend) acceptLoop() {
	defer f.d.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || f.d.ctx.Err() != nil {
				return
			}
			// Temporary errors (EMFILE) must not spin the CPU.
			select {
			case <-time.After(10 * time.Millisecond):
				continue
			case <-f.d.ctx.Done():
				return
			}
		}
		f.mu.Lock()
		closing := f.d.ctx.Err() != nil
		full := len(f.conns) >= maxIncomingConnections
		if !closing && !full {
			f.conns[c] = struct{}{}
			f.d.wg.Add(1)
		}
		f.mu.Unlock()
		if closing || full {
			c.Close()
			continue
		}
		go f.serveConn(c)
	}
}

// serveConn answers one connection's requests in order until it closes or
// sends something the server cannot parse (then it is closed, as mongod
// does, rather than answered with a guess).
func (f *frontend) serveConn(c net.Conn) {
	defer f.d.wg.Done()
	cs := &connState{id: f.d.connIDs.Add(1)}
	f.tel.connCurrent.Add(1)
	f.tel.connCreated.Add(1)
	if !f.router {
		f.d.shards[0].openConns.Add(1)
	}
	defer func() {
		c.Close()
		f.mu.Lock()
		delete(f.conns, c)
		f.mu.Unlock()
		f.tel.connCurrent.Add(-1)
		if !f.router {
			f.d.shards[0].openConns.Add(-1)
		}
	}()
	br := bufio.NewReaderSize(c, 32<<10)
	var out []byte
	for {
		msg, err := readMessage(br)
		if err != nil {
			return
		}
		f.tel.bytesIn.Add(int64(len(msg)))
		f.tel.numRequests.Add(1)
		req, err := parseRequest(msg)
		if err != nil {
			return
		}
		reply := f.handle(f.d.ctx, cs, req)
		if req.moreToCome {
			continue
		}
		out = appendReply(out[:0], req, reply)
		if _, err := c.Write(out); err != nil {
			return
		}
		f.tel.bytesOut.Add(int64(len(out)))
	}
}

// connPool models one router's connections to one shard honestly: an op in
// flight to the shard holds a connection; a finished op returns it idle; a
// new one is created only when none is idle. Connections are never closed
// while the deployment runs, so created = in use + available.
type connPool struct {
	shard                *shard
	mu                   sync.Mutex
	inUse, idle, created int
}

func (p *connPool) checkout() {
	p.mu.Lock()
	if p.idle > 0 {
		p.idle--
	} else {
		p.created++
		p.shard.openConns.Add(1)
	}
	p.inUse++
	p.mu.Unlock()
}

func (p *connPool) checkin() {
	p.mu.Lock()
	p.inUse--
	p.idle++
	p.mu.Unlock()
}

func (p *connPool) counts() (inUse, idle, created int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inUse, p.idle, p.created
}

// routerStep charges a router's per-op cost: one router slot for
// router_cost. It is a no-op on a standalone. The slot is released before
// the op is forwarded, as a mongos does not hold a thread while shards work.
func (f *frontend) routerStep(ctx context.Context, kind opKind) error {
	if !f.router {
		return nil
	}
	return f.exec.run(ctx, f.d.sleeper, kind, serviceTime(f.d.spec.RouterCost, 0, 0, f.d.spec.Jitter, rand.Float64))
}

// onShard runs fn as one data op on shard i: through a router connection
// when routed, then a slot booked for the modeled service time, at the end
// of which fn reads or writes the shard's store.
func (f *frontend) onShard(ctx context.Context, i int, kind opKind, fn func(*store)) error {
	sh := f.d.shards[i]
	if f.router {
		p := f.pools[i]
		p.checkout()
		defer p.checkin()
	}
	spec := f.d.spec
	service := serviceTime(spec.Service, spec.ConnCost, sh.openConns.Load(), spec.Jitter, rand.Float64)
	if err := sh.pool(kind).run(ctx, f.d.sleeper, kind, service); err != nil {
		return err
	}
	// The data op takes effect at the end of its modeled service time.
	fn(sh.store)
	return nil
}

// scatter runs fn on every shard in parallel, one data op each.
func (f *frontend) scatter(ctx context.Context, kind opKind, fn func(i int, st *store)) error {
	if len(f.d.shards) == 1 {
		return f.onShard(ctx, 0, kind, func(st *store) { fn(0, st) })
	}
	errs := make([]error, len(f.d.shards))
	var wg sync.WaitGroup
	for i := range f.d.shards {
		wg.Go(func() {
			errs[i] = f.onShard(ctx, i, kind, func(st *store) { fn(i, st) })
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// SlotStats are the counted totals of one slot pool.
type SlotStats struct {
	Total    int           // slots
	Acquired int64         // ops that held a slot
	MaxQueue int           // longest wait queue seen
	Wait     time.Duration // total time ops waited for a slot
	Held     time.Duration // total time slots were held
}

// ServerStats are the counters of one listening server.
type ServerStats struct {
	Host                                            string
	Process                                         string // "mongod" or "mongos"
	ConnectionsCurrent                              int64
	ConnectionsCreated                              int64
	Requests                                        int64
	Insert, Query, Update, Delete, GetMore, Command int64
	BytesIn, BytesOut                               int64
	// Slots is the router's own pool; zero on a standalone (see Shards[0]).
	Slots SlotStats
	// Router→shard connections (routers only).
	PoolInUse, PoolAvailable, PoolCreated int
}

// ShardStats are the counters of one shard (or of the standalone's data).
type ShardStats struct {
	Name      string
	Reads     SlotStats // the read pool
	Writes    SlotStats // the write pool
	OpenConns int64     // connections conn_cost is charged for
	Documents int
}

// Stats is a snapshot of every counter, for tests and diagnostics.
type Stats struct {
	Servers []ServerStats
	Shards  []ShardStats
}

// Stats returns a snapshot of the deployment's counters.
func (d *Deployment) Stats() Stats {
	var st Stats
	for _, f := range d.fronts {
		s := ServerStats{
			Host: f.host, Process: f.process(),
			ConnectionsCurrent: f.tel.connCurrent.Load(), ConnectionsCreated: f.tel.connCreated.Load(),
			Requests: f.tel.numRequests.Load(),
			Insert:   f.tel.insert.Load(), Query: f.tel.query.Load(), Update: f.tel.update.Load(),
			Delete: f.tel.delete.Load(), GetMore: f.tel.getmore.Load(), Command: f.tel.command.Load(),
			BytesIn: f.tel.bytesIn.Load(), BytesOut: f.tel.bytesOut.Load(),
		}
		if f.exec != nil {
			s.Slots = slotStats(f.exec.snapshot())
		}
		for _, p := range f.pools {
			u, a, c := p.counts()
			s.PoolInUse += u
			s.PoolAvailable += a
			s.PoolCreated += c
		}
		st.Servers = append(st.Servers, s)
	}
	for _, sh := range d.shards {
		sh.store.mu.Lock()
		docs := 0
		for _, colls := range sh.store.dbs {
			for _, c := range colls {
				docs += len(c.docs)
			}
		}
		sh.store.mu.Unlock()
		st.Shards = append(st.Shards, ShardStats{Name: sh.name, Reads: slotStats(sh.reads.snapshot()), Writes: slotStats(sh.writes.snapshot()),
			OpenConns: sh.openConns.Load(), Documents: docs})
	}
	return st
}

func slotStats(s slotSnapshot) SlotStats {
	return SlotStats{Total: s.Total, Acquired: s.Acquired, MaxQueue: s.MaxQueued, Wait: s.WaitTotal, Held: s.HoldTotal}
}

func (f *frontend) process() string {
	if f.router {
		return "mongos"
	}
	return "mongod"
}
