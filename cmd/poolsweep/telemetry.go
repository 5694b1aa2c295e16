package main

import (
	"context"
	"runtime"
	"strconv"

	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/telemetry"
	"github.com/poolsweep/poolsweep/topology"
)

// stepTelemetry samples the server (every host the target exposes), the
// server's process when poolsweep started it, and this process, for
// exactly each measured window, then labels what bound the step. One per
// target, reused across steps so the sampler's own connections are made
// once.
type stepTelemetry struct {
	server     *telemetry.ServerSampler
	childPID   int
	childHost  string
	sharded    bool
	classifier telemetry.Classifier

	proc    *telemetry.ProcSampler
	procOK  bool
	client  *telemetry.ClientSampler
	started bool
	srv     *sweep.ServerTelemetry
	cli     *sweep.ClientTelemetry
	prev    map[string]*sweep.StepResult // last step of each series, for latency growth
}

func newStepTelemetry(t *sweepTarget, serverCores int) (*stepTelemetry, error) {
	ss, err := telemetry.NewServerSampler(t.header.Hosts, telemetry.SamplerOptions{Base: topology.ClientOptions(t.URI)})
	if err != nil {
		return nil, err
	}
	st := &stepTelemetry{server: ss, classifier: telemetry.DefaultClassifier(), client: telemetry.NewClientSampler(), prev: map[string]*sweep.StepResult{},
		sharded: t.header.Topology == topology.Sharded}
	if t.child != nil {
		st.childPID = t.child.PID
		if len(t.header.Hosts) > 0 {
			st.childHost = t.header.Hosts[0]
		}
		// A server poolsweep started shares this machine's cores.
		st.classifier.ServerCores = runtime.NumCPU()
	}
	if serverCores > 0 {
		st.classifier.ServerCores = serverCores
	}
	return st, nil
}

func (s *stepTelemetry) WindowStart(ctx context.Context, _ sweep.StepSpec) {
	s.srv, s.cli = nil, nil
	s.started = s.server.Start(ctx) == nil
	if s.childPID > 0 {
		s.proc = telemetry.NewProcSampler(s.childPID)
		s.procOK = s.proc.Start() == nil
	}
	s.client.Start()
}

func (s *stepTelemetry) WindowEnd() {
	s.cli = s.client.Stop()
	if s.started {
		s.srv = s.server.Stop()
	}
	if s.procOK {
		if ps, err := s.proc.Stop(); err == nil {
			if s.srv == nil {
				s.srv = &sweep.ServerTelemetry{Hosts: map[string]*sweep.ServerSample{}}
			}
			ps.ApplyTo(s.srv, s.childHost)
		}
	}
}

func (s *stepTelemetry) Fill(step *sweep.StepResult) {
	step.Server, step.Client = s.srv, s.cli
	key := step.Workload + "|" + step.PoolSetting + "|" + strconv.Itoa(step.Clients)
	prev := s.prev[key]
	if prev != nil && prev.Concurrency >= step.Concurrency {
		prev = nil // a new trial starts the series over
	}
	warned := len(step.Warnings)
	telemetry.Annotate(step, prev, s.classifier)
	telemetry.AnnotateOpen(step, warned) // open-loop steps: their own Little's law
	if s.sharded && step.Bound == telemetry.BoundNone {
		// Only the routers are sampled: a saturated shard shows only as
		// latency growth, so "none" must not read as "nothing saturated".
		step.BoundReason += "; shards are not sampled (only the mongos routers), so a saturated shard may not show here"
	}
	cp := *step
	s.prev[key] = &cp
}

func (s *stepTelemetry) Close() {
	s.server.Close(context.Background())
}
