package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/teardown"
	"github.com/poolsweep/poolsweep/results"
	runlib "github.com/poolsweep/poolsweep/runner"
	"github.com/poolsweep/poolsweep/topology"
)

// Teardown bounds: what a sweep does after its last window must end in a
// bounded time when the server has stopped answering.

// TestTelemetryCloseStoppedServer: the telemetry observer's clients end
// their sessions on the server when the sweep closes them. A server that
// stopped answering just then (the proxy holds every byte back, as a
// SIGSTOPped server does) must not hold the sweep's exit for longer than
// the sampler's own command bound. Without one, only the driver's
// heartbeats ended it (10-s connect timeouts: 30–40 s here); with
// connectTimeoutMS=0 and a window sampled while the server was stopped (a
// connection's handshake then never ends), nothing did.
func TestTelemetryCloseStoppedServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		query         string
		windowStopped bool // sample a window while the server is stopped
	}{{"", false}, {"&connectTimeoutMS=0", true}} {
		// One after the other in this test's slot: parallel subtests
		// would wait for a slot behind every other parallel test.
		t.Run(fmt.Sprintf("windowStopped=%v", tc.windowStopped), func(t *testing.T) {
			telemetryCloseStoppedServer(t, tc.query, tc.windowStopped)
		})
	}
}

func telemetryCloseStoppedServer(t *testing.T, query string, windowStopped bool) {
	_, p := faultTarget(t)
	st := &runlib.Target{Target: topology.Target{Name: "t", URI: "mongodb://" + p.Addr() + "/?directConnection=true" + query},
		Header: results.TargetHeader{Name: "t", Hosts: []string{p.Addr()}}}
	tel, err := runlib.NewStepTelemetry(st, false)
	if err != nil {
		t.Fatal(err)
	}
	tel.WindowStart(t.Context())
	tel.WindowEnd()
	var step results.StepResult
	tel.Fill(&step)
	if step.Server == nil || step.Server.SamplerErrors != 0 {
		t.Fatalf("%q: the window before the stop was not sampled: %+v", query, step.Server)
	}
	p.SetBlackhole(true)
	if windowStopped {
		tel.WindowStart(t.Context())
		time.Sleep(1500 * time.Millisecond) // one more sample, on a new connection
		tel.WindowEnd()
	}
	closed := make(chan struct{})
	go func() { tel.Close(); close(closed) }()
	bound := runlib.TelemetryCloseBound + teardown.Grace
	select {
	case <-closed:
	case <-time.After(bound + 5*time.Second):
		t.Errorf("%q: closing the telemetry of a server that stopped answering took over %s; the bound is %s", query, bound+5*time.Second, bound)
	}
	p.SetBlackhole(false)
	<-closed
}
