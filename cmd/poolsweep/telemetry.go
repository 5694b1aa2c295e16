package main

import (
	"context"

	"github.com/poolsweep/poolsweep/internal/teardown"
	"github.com/poolsweep/poolsweep/telemetry"
	"github.com/poolsweep/poolsweep/topology"
)

// stepTelemetry is one target's window observer (telemetry.Observer) with
// the context-free Close the sweep defers.
type stepTelemetry struct{ *telemetry.Observer }

// newStepTelemetry builds the window observer of one target: its hosts,
// the user's connection options, the server process when this sweep
// started it, and --server-cores when given.
func newStepTelemetry(t *sweepTarget, serverCores int) (stepTelemetry, error) {
	cfg := telemetry.ObserverConfig{
		Hosts:       t.header.Hosts,
		Base:        topology.ClientOptions(t.URI),
		Sharded:     t.header.Topology == topology.Sharded,
		ServerCores: serverCores,
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

// telemetryCloseBound bounds closing the observer's sampler: its clients
// end their sessions on the server, one command like those the sampler
// bounds by telemetry.DefaultTimeout. A server that stopped answering
// would otherwise hold the sweep's exit until the driver's heartbeats gave
// up on it (about 40 s with the 10-s connect timeout), or for ever with
// connectTimeoutMS=0 (teardown.Within).
const telemetryCloseBound = telemetry.DefaultTimeout

// Close disconnects the observer's sampler.
func (s stepTelemetry) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), telemetryCloseBound)
	defer cancel()
	teardown.Within(ctx, func(ctx context.Context) { _ = s.Observer.Close(ctx) })
}
