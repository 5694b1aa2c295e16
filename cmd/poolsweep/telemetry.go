package main

import (
	"context"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/telemetry"
	"github.com/poolsweep/poolsweep/topology"
)

// stepTelemetry is one target's window observer (telemetry.Observer) with
// the context-free Close the sweep defers.
type stepTelemetry struct{ *telemetry.Observer }

var (
	_ sweep.WindowObserver = stepTelemetry{}
	_ sweep.StepJudge      = (*bound.Judge)(nil)
)

// newStepTelemetry builds the window observer of one target: its hosts,
// the user's connection options, the server process when this sweep
// started it, and whether a cluster's shards are sampled behind its
// routers (not with --no-shard-sampling).
func newStepTelemetry(t *sweepTarget, noShardSampling bool) (stepTelemetry, error) {
	cfg := telemetry.ObserverConfig{
		Hosts:           t.header.Hosts,
		Base:            topology.ClientOptions(t.URI),
		NoShardSampling: noShardSampling,
	}
	if t.child != nil {
		cfg.ChildPID = t.child.PID
		cfg.ChildHost = childHost(t)
	}
	o, err := telemetry.NewObserver(cfg)
	return stepTelemetry{o}, err
}

// newStepJudge labels one target's steps from their telemetry (what bound
// each): with --server-cores when given, the server this sweep started on
// this machine, and whether the target is a sharded cluster.
func newStepJudge(t *sweepTarget, serverCores int) *bound.Judge {
	cfg := bound.JudgeConfig{ServerCores: serverCores, Sharded: t.header.Topology == topology.Sharded}
	if t.child != nil && t.child.PID > 0 {
		cfg.LocalServerHost = childHost(t)
	}
	return bound.NewJudge(cfg)
}

// childHost is the host:port of the server this sweep started for t.
func childHost(t *sweepTarget) string {
	if len(t.header.Hosts) > 0 {
		return t.header.Hosts[0]
	}
	return ""
}

// Close disconnects the observer's sampler.
func (s stepTelemetry) Close() { _ = s.Observer.Close(context.Background()) }
