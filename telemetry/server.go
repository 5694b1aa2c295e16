package telemetry

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology"
)

// Defaults for SamplerOptions.
const (
	DefaultInterval     = time.Second
	DefaultTimeout      = 2 * time.Second
	DefaultShardTimeout = 5 * time.Second
)

// opMsgOverhead is the OP_MSG framing around a command body (16-byte header,
// 4-byte flags, 1-byte section kind), which network.bytesIn/bytesOut count.
const opMsgOverhead = 21

// SamplerOptions configures a ServerSampler.
type SamplerOptions struct {
	// Base holds the user's connection options (usually built from their
	// URI). Only what is needed to reach and authenticate to one host is
	// copied from it: credentials, TLS, dialer, server API version and
	// connect timeout. Pool size, monitors, hosts and replica set name are
	// the sampler's own. Nil means no auth and no TLS.
	Base *options.ClientOptions
	// Interval between samples inside the window; 0 means DefaultInterval.
	Interval time.Duration
	// Timeout bounds every command and the final sample at Stop; 0 means
	// DefaultTimeout.
	Timeout time.Duration
	// NoShardSampling leaves a sharded cluster's shards unsampled
	// (--no-shard-sampling): only the routers are.
	NoShardSampling bool
	// ShardTimeout bounds finding and reaching each shard's primary; 0
	// means DefaultShardTimeout.
	ShardTimeout time.Duration
}

// ServerSampler polls serverStatus on every host of a target during a
// measured window. Each host gets its own driver client with a pool of one
// connection (plus the driver's monitoring connection), so the sampler's load
// stays outside the measured pools; its own commands and bytes are taken out
// of the opcounters and network rates it reports.
//
// On a sharded cluster the hosts are mongos routers, which report no
// tickets, queues or global lock: the sampler reads listShards once, finds
// each shard's primary and samples it directly too (see shards.go), with
// the same credentials and TLS and one connection per host.
//
// One sampler serves a whole sweep: Start and Stop bracket each window and
// may be repeated; Close releases the connections at the end.
type ServerSampler struct {
	opts  SamplerOptions
	hosts []*hostSampler
	// shardHosts are the shards' primaries, once found (shardsDone).
	shardHosts []*hostSampler

	mu      sync.Mutex
	running bool
	closed  bool
	stop    chan struct{}
	wg      sync.WaitGroup
	ctx     context.Context
	// shards is listShards' answer (nil until asked); shardsAsked says it
	// was asked, answered or not.
	shards      []shardInfo
	shardsAsked bool
	// shardsDone says the shards' primaries were looked for; shardsWhyNot
	// is why they are not sampled, when they are not.
	shardsDone   bool
	shardsWhyNot string

	errMu    sync.Mutex
	errCount int
	errFirst string
}

// hostSampler is one host's client, its own-traffic counters and the
// snapshots of the current window (written only by its sampling goroutine,
// read after that goroutine has finished).
type hostSampler struct {
	host   string
	client *mongo.Client

	ownCommands atomic.Int64
	ownBytesIn  atomic.Int64
	ownBytesOut atomic.Int64

	snaps      []snapshot
	router     bool // a mongos, as hello says (askRole)
	roleKnown  bool // hello answered; not asked again
	noPoolStat bool // connPoolStats failed once; not retried, not recounted
	// poolParamsWhyNot is why getParameter gave none of the router's pool
	// settings; once set, they are not asked again.
	poolParamsWhyNot string
	noRepl           bool     // no replica-set member (replication.go); not asked again
	asked            bool     // hostInfo was asked (once per host, answered or not)
	info             hostInfo // hostInfo's answer; cores nil when not answered
	shard            string   // the shard whose primary this is; "" for a URI host
}

// NewServerSampler prepares one client per host (given as host:port). No
// I/O happens until Start; an error means the options are unusable.
func NewServerSampler(hosts []string, opts SamplerOptions) (*ServerSampler, error) {
	if len(hosts) == 0 {
		return nil, errors.New("server sampler: no hosts")
	}
	if opts.Interval <= 0 {
		opts.Interval = DefaultInterval
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.ShardTimeout <= 0 {
		opts.ShardTimeout = DefaultShardTimeout
	}
	s := &ServerSampler{opts: opts}
	for _, h := range hosts {
		hs, err := newHostSampler(h, opts)
		if err != nil {
			_ = s.Close(context.Background())
			return nil, err
		}
		s.hosts = append(s.hosts, hs)
	}
	return s, nil
}

// newHostSampler makes one host's client; no I/O happens until it is used.
func newHostSampler(host string, opts SamplerOptions) (*hostSampler, error) {
	hs := &hostSampler{host: host}
	c, err := mongo.Connect(hs.clientOptions(opts))
	if err != nil {
		return nil, fmt.Errorf("server sampler for %s: %w", host, err)
	}
	hs.client = c
	return hs, nil
}

// all is every host sampled: the URI's, then the shards' primaries.
func (s *ServerSampler) all() []*hostSampler {
	return append(append([]*hostSampler(nil), s.hosts...), s.shardHosts...)
}

// clientOptions builds the one-host client: direct, one pooled connection,
// polling monitor (no separate RTT connection), and monitors that count
// everything the sampler itself sends to the server.
func (h *hostSampler) clientOptions(opts SamplerOptions) *options.ClientOptions {
	co := options.Client().
		SetHosts([]string{h.host}).
		SetDirect(true).
		SetMaxPoolSize(1).
		SetMinPoolSize(0).
		SetAppName("poolsweep-telemetry").
		SetServerMonitoringMode(options.ServerMonitoringModePoll).
		SetServerSelectionTimeout(opts.Timeout).
		SetConnectTimeout(opts.Timeout).
		SetRetryReads(false)
	copyAccess(co, opts.Base)
	co.SetMonitor(&event.CommandMonitor{
		Started: func(_ context.Context, e *event.CommandStartedEvent) {
			h.ownCommands.Add(1)
			h.ownBytesIn.Add(int64(len(e.Command)) + opMsgOverhead)
		},
		Succeeded: func(_ context.Context, e *event.CommandSucceededEvent) {
			h.ownBytesOut.Add(int64(len(e.Reply)) + opMsgOverhead)
		},
	})
	// Heartbeats and connection handshakes are hello commands the server
	// counts too; the command monitor does not see them. (Authentication
	// adds a few more on a new connection; with a pool of one that happens
	// once, before the first sample, unless the connection breaks.)
	co.SetServerMonitor(&event.ServerMonitor{
		ServerHeartbeatStarted: func(*event.ServerHeartbeatStartedEvent) { h.ownCommands.Add(1) },
	})
	co.SetPoolMonitor(&event.PoolMonitor{
		Event: func(e *event.PoolEvent) {
			if e.Type == event.ConnectionReady {
				h.ownCommands.Add(1)
			}
		},
	})
	return co
}

// copyAccess copies from the user's options what reaching and
// authenticating to a host needs: credentials, TLS, dialer, server API
// version and connect timeout. Nil base copies nothing.
func copyAccess(co, b *options.ClientOptions) {
	if b == nil {
		return
	}
	co.Auth = b.Auth
	co.TLSConfig = b.TLSConfig
	co.Dialer = b.Dialer
	co.ServerAPIOptions = b.ServerAPIOptions
	co.DisableOCSPEndpointCheck = b.DisableOCSPEndpointCheck
	co.DisableCertificateRevocationCheck = b.DisableCertificateRevocationCheck
	if b.ConnectTimeout != nil {
		co.ConnectTimeout = b.ConnectTimeout
	}
}

// Hosts returns the hosts being sampled, in the order given.
func (s *ServerSampler) Hosts() []string {
	out := make([]string, len(s.hosts))
	for i, h := range s.hosts {
		out[i] = h.host
	}
	return out
}

// Start begins a window: it takes the first sample of every host before
// returning (so the baseline precedes the measured window), then samples
// every Interval until Stop or until ctx ends. Sampling failures are counted,
// never returned; the error is only for misuse (already started, closed).
func (s *ServerSampler) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("server sampler: closed")
	}
	if s.running {
		return errors.New("server sampler: already started")
	}
	s.running = true
	s.stop = make(chan struct{})
	s.ctx = ctx
	s.errMu.Lock()
	s.errCount, s.errFirst = 0, ""
	s.errMu.Unlock()
	for _, h := range s.all() {
		h.snaps = h.snaps[:0]
	}

	s.askCores(ctx, s.hosts)
	s.sampleAll(ctx, s.hosts)
	s.fetchShards(ctx)
	s.findShards(ctx)
	s.sampleAll(ctx, s.shardHosts)

	for _, h := range s.all() {
		s.wg.Add(1)
		go s.loop(ctx, h)
	}
	return nil
}

// loop samples one host every Interval. A sample that overruns the interval
// makes the ticker drop ticks rather than queue them.
func (s *ServerSampler) loop(ctx context.Context, h *hostSampler) {
	defer s.wg.Done()
	t := time.NewTicker(s.opts.Interval)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-ctx.Done():
			return
		case <-t.C:
			s.sampleOne(ctx, h)
		}
	}
}

// sampleAll samples the hosts at once and waits for all of them.
func (s *ServerSampler) sampleAll(ctx context.Context, hosts []*hostSampler) {
	var wg sync.WaitGroup
	for _, h := range hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.sampleOne(ctx, h)
		}()
	}
	wg.Wait()
}

// askCores asks every host that has not been asked for its core count
// (hostInfo), all at once, before the first window's baseline sample. A
// host that does not answer (no privilege, an old or partial server) keeps
// nil cores; that is not a sampling error and is not asked again.
func (s *ServerSampler) askCores(ctx context.Context, hosts []*hostSampler) {
	var wg sync.WaitGroup
	for _, h := range hosts {
		if h.asked {
			continue
		}
		h.asked = true
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
			defer cancel()
			raw, err := h.client.Database("admin").RunCommand(cctx, bson.D{{Key: "hostInfo", Value: 1}}).Raw()
			if err == nil {
				h.info = parseHostInfo(raw)
			}
		})
	}
	wg.Wait()
}

// sampleOne runs serverStatus (and connPoolStats on a router) on h and keeps
// the snapshot; failures are counted.
func (s *ServerSampler) sampleOne(ctx context.Context, h *hostSampler) {
	snap, err := h.sample(ctx, s.opts.Timeout, len(h.snaps) == 0)
	if err != nil && ctx.Err() == nil {
		// A sample cut short because the step was cancelled is not a
		// server problem.
		s.recordError(err)
	}
	if snap != nil {
		h.snaps = append(h.snaps, *snap)
	}
}

// serverStatusCmd leaves out the sections we never read and which make up
// most of a mongod reply (metrics, locks); servers that do not know the
// options ignore them.
var serverStatusCmd = bson.D{{Key: "serverStatus", Value: 1}, {Key: "metrics", Value: 0}, {Key: "locks", Value: 0}}

func (h *hostSampler) sample(ctx context.Context, timeout time.Duration, firstOfWindow bool) (*snapshot, error) {
	if err := h.askRole(ctx, timeout); err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	outBefore := h.ownBytesOut.Load()
	raw, err := h.client.Database("admin").RunCommand(cctx, serverStatusCmd).Raw()
	if err != nil {
		return nil, fmt.Errorf("serverStatus on %s: %w", h.host, err)
	}
	snap := parseServerStatus(raw, time.Now())
	snap.ownCommands = float64(h.ownCommands.Load())
	snap.ownBytesIn = float64(h.ownBytesIn.Load())
	snap.ownBytesOut = float64(outBefore)
	if h.router && !h.noPoolStat {
		cps, err := h.client.Database("admin").RunCommand(cctx, bson.D{{Key: "connPoolStats", Value: 1}}).Raw()
		if err != nil {
			h.noPoolStat = true
			return &snap, fmt.Errorf("connPoolStats on %s (not retried): %w", h.host, err)
		}
		snap.addConnPoolStats(cps)
		if firstOfWindow {
			// Once per window: a run may change these between its steps.
			snap.poolParams = h.askPoolParams(cctx)
		}
	}
	if !h.router && !h.noRepl && h.shard == "" { // a shard's lag is not the target's
		ms, err := askReplStatus(cctx, h.client)
		switch {
		case errors.Is(err, errNoReplication):
			h.noRepl = true
		case err != nil:
			return &snap, fmt.Errorf("replSetGetStatus on %s: %w", h.host, err)
		}
		snap.repl = ms
	}
	return &snap, nil
}

// askPoolParams reads the router's pool settings with getParameter, each
// name alone. A server that refuses them all (no privilege, or names it
// does not know) is not asked again; the reason is the server's error
// code name, never its message, which may echo the command.
func (h *hostSampler) askPoolParams(ctx context.Context) *routerPoolParams {
	if h.poolParamsWhyNot != "" {
		return &routerPoolParams{notRead: h.poolParamsWhyNot}
	}
	p := &routerPoolParams{}
	why := ""
	for _, name := range topology.RouterPoolParams {
		raw, err := h.client.Database("admin").RunCommand(ctx, bson.D{{Key: "getParameter", Value: 1}, {Key: name, Value: 1}}).Raw()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			why = commandErrorName(err)
			continue
		}
		parseRouterPoolParams(raw, p)
	}
	if p.maxSize == nil && p.maxConnecting == nil && p.poolSize == nil {
		if why == "" {
			why = "not reported"
		}
		h.poolParamsWhyNot = "getParameter: " + why
		p.notRead = h.poolParamsWhyNot
	}
	return p
}

// commandErrorName is a server error's code name (Unauthorized,
// InvalidOptions …), or a generic word for an error that has none.
func commandErrorName(err error) string {
	var ce mongo.CommandError
	if errors.As(err, &ce) && ce.Name != "" {
		return ce.Name
	}
	return "failed"
}

// fetchShards runs listShards once per sampler on the first router found.
func (s *ServerSampler) fetchShards(ctx context.Context) {
	if s.shardsAsked {
		return
	}
	for _, h := range s.hosts {
		if !h.router {
			continue
		}
		s.shardsAsked = true // asked once; do not count the same failure every step
		cctx, cancel := context.WithTimeout(ctx, s.opts.Timeout)
		raw, err := h.client.Database("admin").RunCommand(cctx, bson.D{{Key: "listShards", Value: 1}}).Raw()
		cancel()
		if err != nil {
			s.recordError(fmt.Errorf("listShards on %s: %w", h.host, err))
			return
		}
		s.shards = parseListShards(raw)
		return
	}
}

// sharded says whether any host answered as a mongos router.
func (s *ServerSampler) sharded() bool {
	for _, h := range s.hosts {
		if h.router {
			return true
		}
	}
	return false
}

// shardHostSet is every host listShards names, for counting a router's
// pools to the shards only; nil when the shards are not known.
func (s *ServerSampler) shardHostSet() map[string]bool {
	if s.shards == nil {
		return nil
	}
	set := map[string]bool{}
	for _, sh := range s.shards {
		for _, h := range sh.hosts {
			set[h] = true
		}
	}
	return set
}

func (s *ServerSampler) recordError(err error) {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	s.errCount++
	if s.errFirst == "" {
		s.errFirst = err.Error()
	}
}

// Stop ends the window: it takes a last sample of every host (bounded by
// Timeout, even if Start's context has ended) and summarises the window per
// host and in total. It returns nil if no window is running.
func (s *ServerSampler) Stop() *results.ServerTelemetry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.running {
		return nil
	}
	close(s.stop)
	s.wg.Wait()
	s.running = false
	s.sampleAll(context.WithoutCancel(s.ctx), s.all())
	s.ctx = nil

	st := &results.ServerTelemetry{Hosts: make(map[string]*results.ServerSample, len(s.hosts))}
	pools := s.shardHostSet()
	windows := make([]hostWindow, 0, len(s.hosts))
	for _, h := range s.hosts {
		hw := h.window(pools)
		st.Hosts[h.host] = hw.sample
		windows = append(windows, hw)
	}
	st.Total = totalOf(windows)
	st.Replication = replicationOf(s.hosts)
	for _, sh := range s.shards {
		st.Shards = append(st.Shards, sh.name)
	}
	s.shardTelemetry(st)
	s.errMu.Lock()
	st.SamplerErrors, st.SamplerError = s.errCount, s.errFirst
	s.errMu.Unlock()
	return st
}

// Close stops a running window (discarding it) and disconnects every host.
func (s *ServerSampler) Close(ctx context.Context) error {
	s.mu.Lock()
	if s.running {
		close(s.stop)
		s.wg.Wait()
		s.running = false
	}
	s.closed = true
	s.mu.Unlock()
	var errs []error
	for _, h := range s.all() {
		if h.client != nil {
			if err := h.client.Disconnect(ctx); err != nil {
				errs = append(errs, fmt.Errorf("disconnect %s: %w", h.host, err))
			}
		}
	}
	return errors.Join(errs...)
}
