package sim

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// maxIncomingConnections is the connection limit each listening server
// enforces unless max_conns sets another (Spec.connLimit), and from which
// serverStatus.connections.available is computed, like mongod's
// net.maxIncomingConnections.
const maxIncomingConnections = 1_000_000

// Deployment is a running simulated deployment: one standalone server;
// routers in front of shards, each shard a one-member replica set on a
// port of its own, as a real cluster's shards are reachable on theirs; or
// a replica set, each member on a port of its own.
type Deployment struct {
	spec    Spec
	version serverVersion // the spec's version row
	alone   bool          // AloneInProcess
	started time.Time
	// shards are the data-bearing servers' data and slots: the
	// standalone's, the shards', or the replica set's members', in order.
	shards []*shard
	fronts []*frontend // the standalone, the routers or the members: what the URI lists
	rs     *replSet    // the replica set (rs=N), nil otherwise
	// shardFronts are the shards' own listening servers (sharded only),
	// in shard order.
	shardFronts []*frontend
	sleeper     *sleeper
	ledger      processLedger // the process's CPU time shared among the servers

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
	// name is the shard's _id and its replica set's name; a replica-set
	// member's is its host.
	name string
	// host is the shard's own listening host:port (sharded only; listShards
	// gives it as name/host, connPoolStats keys its pools by it).
	host          string
	reads, writes *slotPool
	store         *store
	// openConns is the connection count conn_cost multiplies: client
	// connections for a standalone, router→shard connections for a shard.
	openConns atomic.Int64
	// routerCreated counts the connections routers have opened to a
	// shard, for its connections.totalCreated.
	routerCreated atomic.Int64
	// slow is the slowdown in force on this data (the slow event).
	slow slowState
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
	// shards are the data this server's data ops reach: the standalone's
	// or a member's own, or every shard for a router.
	shards []*shard
	// shardServer marks a shard's own mongod: it answers hello as the
	// primary of its one-member replica set and serves monitoring
	// commands; data goes through the routers.
	shardServer bool
	// member is the replica-set member this server is (rs=N), nil otherwise.
	member *member
	ln     net.Listener
	host   string
	// exec is a router's own pool (its threads, modeled as router_slots),
	// nil on a standalone. A mongos reports no tickets, so serverStatus
	// never shows it.
	exec    *slotPool
	rpools  *routerPools // the router's pools to its shards, routers only
	cursors *cursorTable
	tel     telemetry
	// acceptor sets up new connections one at a time (accept_cost); nil
	// when setup is free.
	acceptor *slotPool
	// ingress is 8.2's connection-establishment rate limiter (ingress_*),
	// nil when off.
	ingress *ingressLimiter

	// slow is a router's slowdown of its own step (the slow event), and
	// slowRouted of the shard work of the ops it routes; a data server's
	// is its shard's.
	slow, slowRouted slowState
	// frozenUntil is when a freeze event ends, ns since the epoch; 0 or
	// past when not frozen.
	frozenUntil atomic.Int64
	// upSince is when a restarted router came back, ns since the epoch;
	// 0 when it never restarted (uptime counts from the deployment's
	// start).
	upSince atomic.Int64
	// fail is the failCommand fail point (test_commands only).
	fail failPoint

	mu    sync.Mutex // guards conns and ln, which a router restart replaces
	conns map[net.Conn]struct{}
}

// connState is what a server knows about one client connection.
type connState struct {
	id   int32
	conn net.Conn
	// appName is the client's application name from its first hello's
	// client metadata (failCommand's appName matches it).
	appName string
	// unheld: the reply being built leaves even while the server is
	// frozen (the freeze event's own reply).
	unheld bool
	// closeAfterReply closes the connection once the reply is sent (a
	// reset or restart event received on it); closeNow closes it without
	// a reply (failCommand's closeConnection).
	closeAfterReply, closeNow bool
}

// Start validates spec, listens on 127.0.0.1 (one ephemeral port for a
// standalone, one per router, member and shard; see Listen and
// ListenShards for fixed addresses) and serves until Close is called. It
// opens every listener before it serves any: when one fails (a
// *ListenError) nothing has answered a client.
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
	switch {
	case spec.Sharded():
		nFronts = spec.Routers
	case spec.ReplicaSet():
		nFronts = spec.Members
	}
	addrs := o.listen
	if addrs == nil {
		addrs = slices.Repeat([]string{"127.0.0.1:0"}, nFronts)
	} else if len(addrs) != nFronts {
		return nil, fmt.Errorf("sim: %d listen addresses for %d listening servers (one per router or member)", len(addrs), nFronts)
	}
	shardAddrs := o.shardListen
	if !spec.Sharded() && shardAddrs != nil {
		return nil, errors.New("sim: shard listen addresses for a deployment without shards")
	}
	if spec.Sharded() && shardAddrs == nil {
		shardAddrs = slices.Repeat([]string{"127.0.0.1:0"}, spec.Shards)
	} else if len(shardAddrs) != spec.Shards {
		return nil, fmt.Errorf("sim: %d shard listen addresses for %d shards", len(shardAddrs), spec.Shards)
	}
	version, _ := versionOf(spec.Version) // Validate checked it
	d := &Deployment{spec: spec, version: version, alone: o.alone, started: time.Now(), sleeper: newSleeper()}
	d.ctx, d.cancel = context.WithCancel(context.Background())
	nShards := max(spec.Shards, spec.Members, 1)
	for i := range nShards {
		d.shards = append(d.shards, &shard{
			name:   fmt.Sprintf("shard%d", i),
			reads:  newSlotPool(spec.readSlots()),
			writes: newSlotPool(spec.writeSlots()),
			store:  newStore(),
		})
	}
	var lc net.ListenConfig
	listen := func(addr, server string) (*frontend, error) {
		ln, err := lc.Listen(ctx, "tcp", addr)
		if err != nil {
			return nil, &ListenError{Addr: addr, Server: server, Err: err}
		}
		f := &frontend{d: d, ln: ln, host: ln.Addr().String(), cursors: newCursorTable(), conns: map[net.Conn]struct{}{}}
		if spec.AcceptCost > 0 {
			f.acceptor = newSlotPool(1)
		}
		f.ingress = newIngressLimiter(spec)
		return f, nil
	}
	fail := func(err error) (*Deployment, error) {
		for _, f := range d.listening() {
			f.ln.Close()
		}
		d.cancel()
		return nil, err
	}
	if spec.Sharded() {
		// Each shard listens on a port of its own (a free loopback one
		// unless ListenShards says): a cluster's shards are reachable
		// hosts, which listShards names.
		for i, sh := range d.shards {
			f, err := listen(shardAddrs[i], fmt.Sprintf("shard %d of %d", i+1, len(d.shards)))
			if err != nil {
				return fail(err)
			}
			f.shard, f.shardServer, sh.host = sh, true, f.host
			f.shards = []*shard{sh}
			d.shardFronts = append(d.shardFronts, f)
		}
	}
	for i, addr := range addrs {
		server := "the standalone"
		switch {
		case spec.Sharded():
			server = fmt.Sprintf("router %d of %d", i+1, len(addrs))
		case spec.ReplicaSet():
			server = fmt.Sprintf("member %d of %d", i+1, len(addrs))
		}
		f, err := listen(addr, server)
		if err != nil {
			return fail(err)
		}
		switch i := len(d.fronts); {
		case spec.Sharded():
			f.router = true
			f.exec = newSlotPool(spec.RouterSlots)
			f.shards = d.shards
		default:
			// The standalone, or member i of the replica set.
			f.shard = d.shards[i]
			f.shards = d.shards[i : i+1]
		}
		d.fronts = append(d.fronts, f)
	}
	if spec.ReplicaSet() {
		d.rs = newReplSet(d)
	}
	for _, f := range d.fronts {
		if f.router {
			f.rpools = newRouterPools(f)
			f.rpools.warm()
		}
	}
	for _, f := range d.listening() {
		d.wg.Add(1)
		go f.acceptLoop(f.ln)
	}
	return d, nil
}

// listening is every listening server: the URI's, then the shards'.
func (d *Deployment) listening() []*frontend {
	return append(slices.Clone(d.fronts), d.shardFronts...)
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
	f.mu.Lock()
	err := f.ln.Close()
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
// standalone, the routers, or the replica set's members, in order.
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
// msg:"isdbgrid" make it a sharded one. A replica set's URI names the set
// (replicaSet=rs0), as one for a real set does.
func (d *Deployment) URI() string {
	uri := "mongodb://"
	for i, h := range d.Hosts() {
		if i > 0 {
			uri += ","
		}
		uri += h
	}
	if d.rs != nil {
		// The set's name makes the driver discover a replica set from
		// any member, and refuse a member of another set.
		return uri + "/?replicaSet=" + d.rs.name
	}
	return uri + "/"
}

// Close stops listening, closes every client connection, cancels queued
// operations and waits for all goroutines. It is safe to call more than once.
func (d *Deployment) Close() error {
	d.closeOnce.Do(func() {
		d.cancel()
		if d.rs != nil {
			d.rs.stop()
		}
		var errs []error
		for _, f := range d.listening() {
			f.mu.Lock()
			if err := f.ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
				errs = append(errs, err)
			}
			for c := range f.conns {
				c.Close()
			}
			f.mu.Unlock()
		}
		d.wg.Wait()
		for _, f := range d.fronts {
			if f.rpools != nil {
				f.rpools.stop()
			}
		}
		d.closeErr = errors.Join(errs...)
	})
	return d.closeErr
}

// acceptLoop serves ln until it closes: the server's listener, or a
// restarted router's new one.
func (f *frontend) acceptLoop(ln net.Listener) {
	defer f.d.wg.Done()
	for {
		c, err := ln.Accept()
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
		full := len(f.conns) >= f.d.spec.connLimit()
		if !closing && !full {
			f.conns[c] = struct{}{}
			f.d.wg.Add(1)
		}
		f.mu.Unlock()
		if closing || full {
			if full {
				f.tel.connRejected.Add(1)
			}
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
	// 8.2's rate limiter admits the connection first: while it waits it is
	// queuedForEstablishment, not current, and it is created once admitted.
	if f.ingress != nil && !f.ingress.admit(f.d.ctx, f.d.sleeper) {
		if f.d.ctx.Err() == nil {
			f.tel.connRejected.Add(1)
		}
		c.Close()
		f.mu.Lock()
		delete(f.conns, c)
		f.mu.Unlock()
		return
	}
	cs := &connState{id: f.d.connIDs.Add(1), conn: c}
	f.tel.connCurrent.Add(1)
	f.tel.connCreated.Add(1)
	// A standalone's client connections are what conn_cost charges for; a
	// shard is charged for its routers' connections (routerPools), not for a
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
	// Connection setup (accept_cost): the connection waits its turn at
	// the acceptor and is set up before its first request is read.
	if f.acceptor != nil && f.acceptor.run(f.d.ctx, f.d.sleeper, kindCommand, f.d.spec.AcceptCost) != nil {
		return
	}
	// Connection setup latency (setup_latency): the handshake's round
	// trips, paid by every connection on its own clock and never at the
	// acceptor, so its first reply leaves no earlier than that after setup.
	var ready time.Time
	if d := f.d.spec.SetupLatency; d > 0 {
		ready = time.Now().Add(d)
	}
	br := bufio.NewReaderSize(c, 32<<10)
	var out []byte
	for {
		msg, err := readMessage(br)
		if err != nil {
			return
		}
		if !ready.IsZero() {
			if f.d.sleeper.until(f.d.ctx, ready) != nil {
				return
			}
			ready = time.Time{}
		}
		// A frozen server reads no request and sends no reply (the
		// freeze event), whatever it was doing when the freeze began.
		if f.waitThaw() != nil {
			return
		}
		f.tel.bytesIn.Add(int64(len(msg)))
		f.tel.numRequests.Add(1)
		req, err := parseRequest(msg)
		if err != nil {
			return
		}
		reply := f.handle(f.d.ctx, cs, req)
		if cs.closeNow {
			return
		}
		if req.moreToCome {
			continue
		}
		if !cs.unheld && f.waitThaw() != nil {
			return
		}
		cs.unheld = false
		out = appendReply(out[:0], req, reply)
		if _, err := c.Write(out); err != nil {
			return
		}
		f.tel.bytesOut.Add(int64(len(out)))
		if cs.closeAfterReply {
			return
		}
	}
}

func (f *frontend) process() string {
	name := "mongod"
	if f.router {
		name = "mongos"
	}
	if f.d.spec.OS == "windows" {
		return windowsProcess(f.d.version, name)
	}
	return name
}
