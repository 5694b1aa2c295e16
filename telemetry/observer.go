package telemetry

import (
	"context"
	"runtime"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/results"
)

// ObserverConfig says what an Observer samples for one target.
type ObserverConfig struct {
	// Hosts are the servers to sample, as host:port: every host the target
	// exposes (the mongos routers of a sharded cluster, behind which the
	// sampler finds and samples the shards' primaries too).
	Hosts []string
	// Base holds the user's connection options; see SamplerOptions.Base.
	Base *options.ClientOptions
	// ChildPID is the server process poolsweep started on this machine
	// (the embedded server, a simulator), 0 if none; ChildHost is its
	// host:port. Its CPU and RSS are read from /proc, and its cores
	// default to this machine's.
	ChildPID  int
	ChildHost string
	// Interval between server samples in a window; 0 means DefaultInterval.
	Interval time.Duration
	// NoShardSampling samples a sharded cluster's routers only, not the
	// shards' primaries behind them (--no-shard-sampling).
	NoShardSampling bool
}

// Observer samples the server (every host), the server's process when
// poolsweep started it, this process and the load host for exactly each
// measured window, and puts what they said on the step. It is the engine's
// window observer (sweep.WindowObserver); one serves a whole sweep of one
// target, so the sampler's connections are made once. Close it at the end.
// What bound the step is judged after it, by package bound.
type Observer struct {
	cfg    ObserverConfig
	server *ServerSampler

	proc    *ProcSampler
	procOK  bool
	client  *ClientSampler
	started bool
	srv     *results.ServerTelemetry
	cli     *results.ClientTelemetry
}

// NewObserver prepares the samplers; no I/O happens until the first
// window. An error means the connection options are unusable.
func NewObserver(cfg ObserverConfig) (*Observer, error) {
	ss, err := NewServerSampler(cfg.Hosts, SamplerOptions{Base: cfg.Base, Interval: cfg.Interval, NoShardSampling: cfg.NoShardSampling})
	if err != nil {
		return nil, err
	}
	return &Observer{cfg: cfg, server: ss, client: NewClientSampler()}, nil
}

// WindowStart takes the first samples; the window opens when it returns.
func (o *Observer) WindowStart(ctx context.Context) {
	o.srv, o.cli = nil, nil
	o.started = o.server.Start(ctx) == nil
	if o.cfg.ChildPID > 0 {
		o.proc = NewProcSampler(o.cfg.ChildPID)
		o.procOK = o.proc.Start() == nil
	}
	o.client.Start()
}

// WindowEnd takes the last samples, the moment the window closes.
func (o *Observer) WindowEnd() {
	o.cli = o.client.Stop()
	if o.started {
		o.srv = o.server.Stop()
	}
	if o.procOK {
		if ps, err := o.proc.Stop(); err == nil {
			if o.srv == nil {
				o.srv = &results.ServerTelemetry{Hosts: map[string]*results.ServerSample{}}
			}
			ps.ApplyTo(o.srv, o.cfg.ChildHost)
		}
	}
	if o.cfg.ChildPID > 0 && o.srv != nil {
		// The child runs on this machine: without a hostInfo answer its
		// cores are ours.
		if h := o.srv.Hosts[o.cfg.ChildHost]; h != nil && h.Cores == nil {
			n := runtime.NumCPU()
			h.Cores = &n
		}
	}
}

// Fill puts the window's telemetry on step.
func (o *Observer) Fill(step *results.StepResult) {
	step.Server, step.Client = o.srv, o.cli
	if o.srv != nil {
		step.Warnings = append(step.Warnings, replicationWarnings(o.srv.Replication)...)
	}
}

// Close disconnects the sampler's clients.
func (o *Observer) Close(ctx context.Context) error {
	return o.server.Close(ctx)
}
