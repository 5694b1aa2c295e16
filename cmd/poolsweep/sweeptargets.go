package main

import (
	"context"

	"github.com/poolsweep/poolsweep/results"
	runlib "github.com/poolsweep/poolsweep/runner"
	"github.com/poolsweep/poolsweep/topology"
)

// The targets as the storm command starts and samples them, through the
// run library (runlib.StartTargets, runlib.NewStepTelemetry); storm.go
// can call those itself once it has its own package.

// sweepTarget is a started and detected target, its header as detected.
type sweepTarget struct {
	*runlib.Target
	header results.TargetHeader
}

// startTargets is runlib.StartTargets, telling e.stderr what it starts.
func startTargets(ctx context.Context, e *env, ts []topology.Target) ([]*sweepTarget, func(), error) {
	started, stop, err := runlib.StartTargets(ctx, e.stderr, ts)
	targets := make([]*sweepTarget, len(started))
	for i, t := range started {
		targets[i] = &sweepTarget{Target: t, header: t.Header}
	}
	return targets, stop, err
}

// newStepTelemetry is runlib.NewStepTelemetry.
func newStepTelemetry(t *sweepTarget, noShardSampling bool) (runlib.StepTelemetry, error) {
	return runlib.NewStepTelemetry(t.Target, noShardSampling)
}
