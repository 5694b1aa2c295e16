package runner

import (
	"context"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/internal/teardown"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/telemetry"
	"github.com/poolsweep/poolsweep/topology"
)

// StepTelemetry is one target's window observer (telemetry.Observer) with
// the context-free Close the sweep defers.
type StepTelemetry struct{ *telemetry.Observer }

var (
	_ sweep.WindowObserver = StepTelemetry{}
	_ sweep.StepJudge      = (*bound.Judge)(nil)
)

// NewStepTelemetry builds the window observer of one target: its hosts,
// the user's connection options, the server process when this sweep
// started it, and whether a cluster's shards are sampled behind its
// routers (not with --no-shard-sampling).
func NewStepTelemetry(t *Target, noShardSampling bool) (StepTelemetry, error) {
	cfg := telemetry.ObserverConfig{
		Hosts:           t.Header.Hosts,
		Base:            topology.ClientOptions(t.URI),
		NoShardSampling: noShardSampling,
	}
	if t.child != nil {
		cfg.ChildPID = t.child.PID
		cfg.ChildHost = childHost(t)
	}
	o, err := telemetry.NewObserver(cfg)
	return StepTelemetry{o}, err
}

// newStepJudge labels one target's steps from their telemetry (what bound
// each): with --server-cores when given, the server this sweep started on
// this machine, and whether the target is a sharded cluster.
func newStepJudge(t *Target, serverCores int) *bound.Judge {
	cfg := bound.JudgeConfig{ServerCores: serverCores, Sharded: t.Header.Topology == topology.Sharded}
	if t.child != nil && t.child.PID > 0 {
		cfg.LocalServerHost = childHost(t)
	}
	return bound.NewJudge(cfg)
}

// childHost is the host:port of the server this sweep started for t.
func childHost(t *Target) string {
	if len(t.Header.Hosts) > 0 {
		return t.Header.Hosts[0]
	}
	return ""
}

// TelemetryCloseBound bounds closing the observer's sampler: its clients
// end their sessions on the server, one command like those the sampler
// bounds by telemetry.DefaultTimeout. A server that stopped answering
// would otherwise hold the sweep's exit until the driver's heartbeats gave
// up on it (about 40 s with the 10-s connect timeout), or for ever with
// connectTimeoutMS=0 (teardown.Within).
const TelemetryCloseBound = telemetry.DefaultTimeout

// Close disconnects the observer's sampler.
func (s StepTelemetry) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), TelemetryCloseBound)
	defer cancel()
	teardown.Within(ctx, func(ctx context.Context) { _ = s.Observer.Close(ctx) })
}
