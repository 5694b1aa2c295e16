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
// routers in front of shards, each shard a one-member replica set on a
// port of its own, as a real cluster's shards are reachable on theirs.
type Deployment struct {
	spec    Spec
	version serverVersion // the spec's version row
	alone   bool          // AloneInProcess
	started time.Time
	shards  []*shard
	fronts  []*frontend // the standalone, or the routers: what the URI lists
	// shardFronts are the shards' own listening servers (sharded only),
	// in shard order.
	shardFronts []*frontend
	sleeper     *sleeper

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
	name string // the shard's _id and its replica set's name
	// host is the shard's own listening host:port (sharded only; listShards
	// gives it as name/host, connPoolStats keys its pools by it).
	host          string
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

// frontend is one listening server: the standalone mongod, one router, or
// one shard's mongod.
type frontend struct {
	d      *Deployment
	router bool
	// shard is the data this server holds and reports tickets for: the
	// standalone's only shard, or the shard a shard server is; nil on a
	// router.
	shard *shard
	// shardServer marks a shard's own mongod: it answers hello as the
	// primary of its one-member replica set and serves monitoring
	// commands; data goes through the routers.
	shardServer bool
	ln          net.Listener
	host        string
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
			reads:  newSlotPool(spec.readSlots()),
			writes: newSlotPool(spec.writeSlots()),
			store:  newStore(),
		})
	}
	var lc net.ListenConfig
	listen := func(addr string) (*frontend, error) {
		ln, err := lc.Listen(ctx, "tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("sim: listen: %w", err)
		}
		return &frontend{d: d, ln: ln, host: ln.Addr().String(), cursors: newCursorTable(), conns: map[net.Conn]struct{}{}}, nil
	}
	fail := func(err error) (*Deployment, error) {
		for _, f := range d.listening() {
			f.ln.Close()
		}
		d.cancel()
		return nil, err
	}
	if spec.Sharded() {
		// Each shard listens on a free loopback port: a cluster's shards
		// are reachable hosts, which listShards names.
		for _, sh := range d.shards {
			f, err := listen("127.0.0.1:0")
			if err != nil {
				return fail(err)
			}
			f.shard, f.shardServer, sh.host = sh, true, f.host
			d.shardFronts = append(d.shardFronts, f)
		}
	}
	for _, addr := range addrs {
		f, err := listen(addr)
		if err != nil {
			return fail(err)
		}
		if spec.Sharded() {
			f.router = true
			f.exec = newSlotPool(spec.RouterSlots)
			for _, sh := range d.shards {
				f.pools = append(f.pools, &connPool{shard: sh})
			}
		} else {
			f.shard = d.shards[0]
		}
		d.fronts = append(d.fronts, f)
	}
	for _, f := range d.listening() {
		d.wg.Add(1)
		go f.acceptLoop()
	}
	return d, nil
}

// listening is every listening server: the URI's, then the shards'.
func (d *Deployment) listening() []*frontend {
	return append(slices.Clone(d.fronts), d.shardFronts...)
}

// reportsProcess says whether serverStatus may describe this process
// (extra_info, mem) as the server's own: only when the deployment is alone
// in the process and is one server. A sharded deployment runs routers and
// shards in one process, whose CPU time no one of them could claim.
func (d *Deployment) reportsProcess() bool {
	return d.alone && !d.spec.Sharded()
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

// ShardHosts returns each shard's own listening host:port, in shard order
// (none for a standalone). listShards names them as shardN/host.
func (d *Deployment) ShardHosts() []string {
	hosts := make([]string, len(d.shardFronts))
	for i, f := range d.shardFronts {
		hosts[i] = f.host
	}
	return hosts
}

// CloseShardListener stops shard i's own server from listening and drops
// its connections, as if a firewall stood between the load host and that
// shard: the routers still reach it (their connections are the
// simulator's own), a client of its host:port no longer does.
func (d *Deployment) CloseShardListener(i int) error {
	if i < 0 || i >= len(d.shardFronts) {
		return fmt.Errorf("sim: no shard %d (%d shards)", i, len(d.shardFronts))
	}
	f := d.shardFronts[i]
	err := f.ln.Close()
	f.mu.Lock()
	for c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// Hosts returns the listening host:port of each server the URI lists: the
// standalone, or the routers in order.
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
		for _, f := range d.listening() {
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
	// A standalone's client connections are what conn_cost charges for; a
	// shard is charged for its routers' connections (connPool), not for a
	// monitor's.
	charged := f.shard != nil && !f.shardServer
	if charged {
		f.shard.openConns.Add(1)
	}
	defer func() {
		c.Close()
		f.mu.Lock()
		delete(f.conns, c)
		f.mu.Unlock()
		f.tel.connCurrent.Add(-1)
		if charged {
			f.shard.openConns.Add(-1)
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
//
// A routed op is also one operation of the shard's own server, which counts
// it in its serverStatus as a mongod counts what its routers send: one
// opLatencies entry for the slot wait and service, and its opcounters (see
// shardOp).
func (f *frontend) onShard(ctx context.Context, i int, kind opKind, fn func(*store)) error {
	sh := f.d.shards[i]
	var start time.Time
	if f.router {
		p := f.pools[i]
		p.checkout()
		defer p.checkin()
		start = time.Now()
	}
	spec := f.d.spec
	service := serviceTime(spec.Service, spec.ConnCost, sh.openConns.Load(), spec.Jitter, rand.Float64)
	if err := sh.pool(kind).run(ctx, f.d.sleeper, kind, service); err != nil {
		return err
	}
	// The data op takes effect at the end of its modeled service time.
	fn(sh.store)
	if f.router {
		sf := f.d.shardFronts[i]
		shardOpOf(ctx).count(&sf.tel)
		sf.tel.record(kind, time.Since(start))
	}
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

func (f *frontend) process() string {
	if f.router {
		return "mongos"
	}
	return "mongod"
}
