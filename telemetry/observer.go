package telemetry

import (
	"context"
	"runtime"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

// ObserverConfig says what an Observer samples for one target.
type ObserverConfig struct {
	// Hosts are the servers to sample, as host:port: every host the target
	// exposes (the mongos routers of a sharded cluster).
	Hosts []string
	// Base holds the user's connection options; see SamplerOptions.Base.
	Base *options.ClientOptions
	// ChildPID is the server process poolsweep started on this machine
	// (the embedded server, a simulator), 0 if none; ChildHost is its
	// host:port. Its CPU and RSS are read from /proc, its cores default to
	// this machine's, and its CPU is not counted as a neighbour's load.
	ChildPID  int
	ChildHost string
	// Sharded says Hosts are routers: shards are not sampled, which a
	// "none" verdict must say.
	Sharded bool
	// ServerCores overrides every host's core count (--server-cores N);
	// 0 means each host's hostInfo answer.
	ServerCores int
	// Classifier judges each step; nil means DefaultClassifier. Its
	// ServerCores and LocalServerHost are set from this config.
	Classifier *Classifier
	// Interval between server samples in a window; 0 means DefaultInterval.
	Interval time.Duration
}

// Observer samples the server (every host), the server's process when
// poolsweep started it, this process and the load host for exactly each
// measured window, then labels what bound the step. It implements
// sweep.WindowObserver; one serves a whole sweep of one target, so the
// sampler's connections are made once. Close it at the end.
type Observer struct {
	cfg        ObserverConfig
	server     *ServerSampler
	classifier Classifier

	proc    *ProcSampler
	procOK  bool
	client  *ClientSampler
	started bool
	srv     *results.ServerTelemetry
	cli     *results.ClientTelemetry
	prev    map[string]*results.StepResult // last step of each series, for growth rules
}

// NewObserver prepares the samplers; no I/O happens until the first
// window. An error means the connection options are unusable.
func NewObserver(cfg ObserverConfig) (*Observer, error) {
	ss, err := NewServerSampler(cfg.Hosts, SamplerOptions{Base: cfg.Base, Interval: cfg.Interval})
	if err != nil {
		return nil, err
	}
	c := DefaultClassifier()
	if cfg.Classifier != nil {
		c = *cfg.Classifier
	}
	if cfg.ServerCores > 0 {
		c.ServerCores = cfg.ServerCores
	}
	if cfg.ChildPID > 0 {
		c.LocalServerHost = cfg.ChildHost
	}
	return &Observer{cfg: cfg, server: ss, classifier: c, client: NewClientSampler(), prev: map[string]*results.StepResult{}}, nil
}

// WindowStart takes the first samples; the window opens when it returns.
func (o *Observer) WindowStart(ctx context.Context, _ sweep.StepSpec) {
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

// Fill puts the window's telemetry on step and labels it (Annotate),
// judged against the previous step of its series.
func (o *Observer) Fill(step *results.StepResult) {
	step.Server, step.Client = o.srv, o.cli
	key := step.Workload + "|" + step.PoolSetting + "|" + strconv.Itoa(step.Clients)
	prev := o.prev[key]
	if prev != nil && prev.Concurrency >= step.Concurrency {
		prev = nil // a new trial starts the series over
	}
	warned := len(step.Warnings)
	Annotate(step, prev, o.classifier)
	AnnotateOpen(step, warned) // open-loop steps: their own Little's law
	if o.cfg.Sharded && step.Bound == BoundNone {
		// Only the routers are sampled: a saturated shard shows only as
		// latency growth, so "none" must not read as "nothing saturated".
		step.BoundReason += "; shards are not sampled (only the mongos routers), so a saturated shard may not show here"
	}
	cp := *step
	o.prev[key] = &cp
}

// Close disconnects the sampler's clients.
func (o *Observer) Close(ctx context.Context) error {
	return o.server.Close(ctx)
}

var _ sweep.WindowObserver = (*Observer)(nil)
