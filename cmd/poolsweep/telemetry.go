package main

import (
	"context"

	"github.com/poolsweep/poolsweep/telemetry"
	"github.com/poolsweep/poolsweep/topology"
)

// stepTelemetry is one target's window observer (telemetry.Observer) with
// the context-free Close the sweep defers.
type stepTelemetry struct{ *telemetry.Observer }

// newStepTelemetry builds the window observer of one target: its hosts,
// the user's connection options, the server process when this sweep
// started it, --server-cores when given, and whether a cluster's shards
// are sampled behind its routers (not with --no-shard-sampling).
func newStepTelemetry(t *sweepTarget, serverCores int, noShardSampling bool) (stepTelemetry, error) {
	cfg := telemetry.ObserverConfig{
		Hosts:           t.header.Hosts,
		Base:            topology.ClientOptions(t.URI),
		Sharded:         t.header.Topology == topology.Sharded,
		NoShardSampling: noShardSampling,
		ServerCores:     serverCores,
	}
	if t.child != nil {
		cfg.ChildPID = t.child.PID
		if len(t.header.Hosts) > 0 {
			cfg.ChildHost = t.header.Hosts[0]
		}
	}
	o, err := telemetry.NewObserver(cfg)
	return stepTelemetry{o}, err
}

// Close disconnects the observer's sampler.
func (s stepTelemetry) Close() { _ = s.Observer.Close(context.Background()) }
