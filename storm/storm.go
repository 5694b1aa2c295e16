// Package storm measures a connection storm: K independent clients, each
// opening a pool of P connections with the driver's maxConnecting, all at
// once against one target, as a fleet's instances do after a deploy, a
// failover or a scale-out. It records how long until every pool is full,
// the rate the server accepted connections at, the errors, the latency a
// client connected before the storm saw meanwhile, and the server's own
// telemetry over the storm. The engine never prints.
package storm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/description"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/poolsweep/poolsweep/results"
)

// Observer samples the server over the storm (telemetry.Observer does):
// WindowStart before the clients start, WindowEnd when the storm ends,
// Fill to copy what it saw into a record.
type Observer interface {
	WindowStart(ctx context.Context)
	WindowEnd()
	Fill(step *results.StepResult)
}

// Config is one storm.
type Config struct {
	Target string
	// NewClient returns the target's client options (URI, credentials,
	// TLS); the storm sets the pool's sizes on them.
	NewClient func() *options.ClientOptions
	// Clients is K, Pool is P, MaxConnecting the driver's maxConnecting.
	Clients, Pool, MaxConnecting int
	// RouterHosts are a sharded cluster's mongos (host:port): each client
	// fills a pool to each; empty for other topologies (one pool, to the
	// standalone or the primary).
	RouterHosts []string
	// Timeout bounds the storm (and each connection's setup).
	Timeout time.Duration
	// ProbeInterval is how often the probe client pings during the storm.
	ProbeInterval time.Duration
	Trial         int
	Observer      Observer // nil: no telemetry
}

// The waits of a storm beside its Timeout: the probe's ping before the
// storm, closing the storm's clients, then closing the probe.
const (
	probeWait = 10 * time.Second
	closeWait = 10 * time.Second
)

// Longest is the longest one storm of that timeout may take: the probe's
// ping, the storm itself, and the two closes after it.
func Longest(timeout time.Duration) time.Duration { return probeWait + timeout + 2*closeWait }

// Run measures one storm.
func Run(ctx context.Context, cfg Config) (results.StormResult, error) {
	if cfg.Clients < 1 || cfg.Pool < 1 || cfg.MaxConnecting < 1 || cfg.Timeout <= 0 || cfg.NewClient == nil {
		return results.StormResult{}, errors.New("storm: clients, pool, maxConnecting and timeout must be positive")
	}
	pools := max(len(cfg.RouterHosts), 1)
	rec := results.StormResult{Kind: results.KindStorm, Target: cfg.Target, Clients: cfg.Clients, Pool: cfg.Pool,
		PoolsPerClient: pools, MaxConnecting: cfg.MaxConnecting, Trial: max(cfg.Trial, 1), Wanted: cfg.Clients * cfg.Pool * pools,
		Probe: results.Probe{IntervalMs: float64(cfg.ProbeInterval) / float64(time.Millisecond)}}

	probe, err := newProbe(ctx, cfg)
	if err != nil {
		return rec, err
	}
	defer disconnect(probe.client)

	sctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if cfg.Observer != nil {
		cfg.Observer.WindowStart(ctx)
	}
	start := time.Now()
	rec.StartedAt = start.UTC()
	probeDone := probe.run(sctx)

	fills := make([]time.Duration, cfg.Clients)
	var (
		wg       sync.WaitGroup
		ready    atomic.Int64
		setups   atomic.Int64 // connections whose setup failed (pool events)
		failures atomic.Int64 // checkouts, selections and clients that failed
		firstErr atomic.Pointer[string]
		clients  = make([]*topology.Topology, cfg.Clients)
	)
	note := func(setup bool, err error) {
		if setup {
			setups.Add(1)
		} else {
			failures.Add(1)
		}
		msg := err.Error()
		firstErr.CompareAndSwap(nil, &msg)
	}
	for i := range cfg.Clients {
		wg.Go(func() {
			fills[i] = -1
			c, err := fillClient(sctx, cfg, start, &ready, note, &fills[i])
			clients[i] = c
			if err != nil {
				note(false, err)
			}
		})
	}
	wg.Wait()
	end := time.Now()
	cancel()
	rec.Probe = <-probeDone
	if cfg.Observer != nil {
		cfg.Observer.WindowEnd()
	}
	rec.DurationS = end.Sub(start).Seconds()
	rec.Ready = int(min(ready.Load(), int64(rec.Wanted)))
	// A connection whose setup failed fails the checkout waiting for it
	// too: the two are one failure, seen twice. A checkout or selection
	// can also fail with no setup at all. The larger count is therefore
	// the fewest distinct failures, never a double count.
	rec.ConnectErrors = max(setups.Load(), failures.Load())
	if e := firstErr.Load(); e != nil {
		rec.ErrorSample = *e
	}
	var filled []float64
	for _, f := range fills {
		if f >= 0 {
			filled = append(filled, float64(f)/float64(time.Millisecond))
		}
	}
	rec.PoolFillMs = quantiles(filled)
	if len(filled) == cfg.Clients && rec.Ready == rec.Wanted {
		s := slices.Max(filled) / 1000
		rec.FillS = &s
	} else {
		rec.Warnings = append(rec.Warnings, fmt.Sprintf("%d of %d clients filled their pools within %s: %d of %d connections ready", len(filled), cfg.Clients, cfg.Timeout, rec.Ready, rec.Wanted))
	}
	if cfg.Observer != nil {
		var scratch results.StepResult
		cfg.Observer.Fill(&scratch)
		rec.Client = scratch.Client
		if s := scratch.Server; s != nil {
			rec.ServerHosts, rec.ServerTotal = s.Hosts, s.Total
			if t := s.Total; t != nil && t.Connections != nil && t.Connections.CreatedPerS != nil {
				rate := *t.Connections.CreatedPerS
				accepted := rate * rec.DurationS
				rec.AcceptPerS, rec.Accepted = &rate, &accepted
			}
			if w := limiterWarning(s.Total); w != "" {
				rec.Warnings = append(rec.Warnings, w)
			}
		}
	}
	disconnectAll(clients)
	return rec, ctx.Err()
}

// limiterWarning labels a storm whose connections the server's
// connection-establishment rate limiter (8.2) queued or rejected: its fill
// times are then the limiter's rate as much as the server's setup.
func limiterWarning(total *results.ServerSample) string {
	if total == nil || !total.Establishment.Limited() {
		return ""
	}
	e := total.Establishment
	return fmt.Sprintf("the server's connection-establishment rate limiter (ingressConnectionEstablishmentRatePerSec) queued %s and rejected %s connections: the fill times include its queue",
		count(e.Queued), count(e.Rejected))
}

// count is a server count, or "n/r" (not reported).
func count(v *float64) string {
	if v == nil {
		return "n/r"
	}
	return fmt.Sprintf("%.0f", *v)
}

// fillClient starts one client and fills its pools: P checkouts per pool
// arrive at once and each holds its connection until every pool of the
// client is full, so each pool opens P connections, maxConnecting at a
// time, as an application's pool does when P requests arrive together
// after a restart. No operation runs: nothing but the setup loads the
// server. fill is set to the time from start when the client's pools are
// full; it returns then, or when ctx ends.
func fillClient(ctx context.Context, cfg Config, start time.Time, total *atomic.Int64, note func(setup bool, err error), fill *time.Duration) (*topology.Topology, error) {
	hosts := cfg.RouterHosts
	if len(hosts) == 0 {
		hosts = []string{""} // the one writable server
	}
	want := int64(cfg.Pool * len(hosts))
	var mine atomic.Int64
	full := make(chan struct{})
	opts := cfg.NewClient().
		SetMaxPoolSize(uint64(cfg.Pool)).SetMinPoolSize(0).SetMaxConnecting(uint64(cfg.MaxConnecting)).
		SetConnectTimeout(cfg.Timeout).SetServerSelectionTimeout(cfg.Timeout).
		SetPoolMonitor(&event.PoolMonitor{Event: func(e *event.PoolEvent) {
			switch e.Type {
			case event.ConnectionReady:
				total.Add(1)
				if mine.Add(1) == want {
					*fill = time.Since(start)
					close(full)
				}
			case event.ConnectionClosed:
				// A connection whose setup failed carries its error; one
				// closed for another reason (the pool closing) is not a
				// storm's error.
				if e.Reason == event.ReasonError && e.Error != nil {
					note(true, fmt.Errorf("a connection failed while being set up: %w", e.Error))
				}
			}
		}})
	tc, err := topology.NewConfig(opts, nil)
	if err != nil {
		return nil, fmt.Errorf("storm: client options: %w", err)
	}
	t, err := topology.New(tc)
	if err != nil {
		return nil, fmt.Errorf("storm: client: %w", err)
	}
	if err := t.Connect(); err != nil {
		return nil, fmt.Errorf("storm: connect: %w", err)
	}
	var wg sync.WaitGroup
	for _, h := range hosts {
		for range cfg.Pool {
			wg.Go(func() {
				srv, err := t.SelectServer(ctx, writable{h})
				if err != nil {
					if ctx.Err() == nil {
						note(false, err)
					}
					return
				}
				conn, err := srv.Connection(ctx)
				if err != nil {
					if ctx.Err() == nil {
						note(false, err)
					}
					return
				}
				select {
				case <-full:
				case <-ctx.Done():
				}
				_ = conn.Close() // back to the pool, which keeps it
			})
		}
	}
	wg.Wait()
	return t, nil
}

// writable selects the server a pool is filled for: the standalone or
// the primary, or the mongos at addr ("" for any).
type writable struct{ addr string }

func (w writable) SelectServer(_ description.Topology, cands []description.Server) ([]description.Server, error) {
	var out []description.Server
	for _, s := range cands {
		switch s.Kind {
		case description.ServerKindStandalone, description.ServerKindRSPrimary, description.ServerKindMongos, description.ServerKindLoadBalancer:
			if w.addr == "" || s.Addr.String() == w.addr {
				out = append(out, s)
			}
		}
	}
	return out, nil
}

// probe is a client connected before the storm that pings at an interval
// during it.
type probe struct {
	client   *mongo.Client
	interval time.Duration
}

func newProbe(ctx context.Context, cfg Config) (*probe, error) {
	c, err := mongo.Connect(cfg.NewClient().SetMaxPoolSize(1))
	if err != nil {
		return nil, fmt.Errorf("storm: probe client: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	if err := c.Database("admin").RunCommand(pctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		disconnect(c)
		return nil, fmt.Errorf("storm: the target does not answer a ping before the storm: %w", err)
	}
	return &probe{client: c, interval: max(cfg.ProbeInterval, time.Millisecond)}, nil
}

// run pings every interval until ctx ends and sends what it saw.
func (p *probe) run(ctx context.Context) <-chan results.Probe {
	out := make(chan results.Probe, 1)
	go func() {
		defer close(out)
		h := hdr.New(1, 600_000_000, 3)
		res := results.Probe{IntervalMs: float64(p.interval) / float64(time.Millisecond)}
		tick := time.NewTicker(p.interval)
		defer tick.Stop()
		admin := p.client.Database("admin")
		for {
			t := time.Now()
			// The probe's own bound is the storm's: a ping cut off by the
			// storm's end is not counted.
			err := admin.RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err()
			if ctx.Err() != nil {
				break
			}
			res.Ops++
			if err != nil {
				res.Errors++
			}
			_ = h.RecordValue(max(time.Since(t).Microseconds(), 1))
			select {
			case <-tick.C:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
		}
		res.Latency = results.NewLatencySummary(h)
		out <- res
	}()
	return out
}

// quantiles summarises the pools' fill times (ms).
func quantiles(ms []float64) results.Quantiles {
	h := hdr.New(1, 600_000_000, 3)
	for _, v := range ms {
		_ = h.RecordValue(max(int64(v*1000), 1))
	}
	return results.NewQuantiles(h)
}

func disconnect(c *mongo.Client) {
	if c == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeWait)
	defer cancel()
	_ = c.Disconnect(ctx)
}

// disconnectAll closes the storm's clients at once.
func disconnectAll(ts []*topology.Topology) {
	var wg sync.WaitGroup
	for _, t := range ts {
		if t == nil {
			continue
		}
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), closeWait)
			defer cancel()
			_ = t.Disconnect(ctx)
		})
	}
	wg.Wait()
}
