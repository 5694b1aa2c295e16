package main

import (
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/topology"
)

// Teardown bounds: what a sweep does after its last window must end in a
// bounded time when the server has stopped answering.

// TestTelemetryCloseStoppedServer: the telemetry observer's clients end
// their sessions on the server when the sweep closes them. A server that
// stopped answering just then (the proxy holds every byte back, as a
// SIGSTOPped server does) must not hold the sweep's exit for longer than
// the sampler's own command bound; without one, only the driver's
// heartbeats ended it (10-s connect timeouts: 30–40 s here).
func TestTelemetryCloseStoppedServer(t *testing.T) {
	_, p := faultTarget(t)
	st := &sweepTarget{Target: topology.Target{Name: "t", URI: "mongodb://" + p.Addr() + "/?directConnection=true"},
		header: sweep.TargetHeader{Name: "t", Hosts: []string{p.Addr()}}}
	tel, err := newStepTelemetry(st, 0)
	if err != nil {
		t.Fatal(err)
	}
	tel.WindowStart(t.Context(), sweep.StepSpec{})
	tel.WindowEnd()
	var step sweep.StepResult
	tel.Fill(&step)
	if step.Server == nil || step.Server.SamplerErrors != 0 {
		t.Fatalf("the window before the stop was not sampled: %+v", step.Server)
	}
	p.SetBlackhole(true)
	defer p.SetBlackhole(false)
	start := time.Now()
	tel.Close()
	if took := time.Since(start); took > telemetryCloseBound+5*time.Second {
		t.Errorf("closing the telemetry of a server that stopped answering took %s; the bound is %s", took.Round(time.Millisecond), telemetryCloseBound)
	}
}
