package bound

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// baseStep is a healthy step: client half idle, no pool wait, an idle server.
func baseStep() *results.StepResult {
	return &results.StepResult{
		Target: "t", Workload: "w", PoolSetting: "64", Clients: 1,
		Concurrency: 64, MaxPoolSize: 64, Calls: 10000, Ops: 10000, OpsPerS: 10000, CallsPerS: 10000,
		Latency: results.LatencySummary{Mean: 5, P50: 4},
		Pool:    results.PoolStats{CheckoutWait: results.Quantiles{Mean: 0.05}},
		Client:  &results.ClientTelemetry{CPUPct: 80, CPUs: 2},
		Server: &results.ServerTelemetry{
			Hosts: map[string]*results.ServerSample{"a:27017": {
				ReadLatencyUS: p(800), WriteLatencyUS: p(1200),
				OpcountersPerS: map[string]float64{"query": 5000, "update": 5000},
				Queue:          &results.QueueCounts{Readers: p(0), Writers: p(0)},
				Tickets:        tickets(sideOf(2, 62, 0), sideOf(2, 62, 0)),
				CPUPct:         p(120),
				NetInBytesPerS: p(1e6), NetOutBytesPerS: p(2e6),
			}},
		},
	}
}

// sideOf is one side of the tickets: in use, available (of a fixed total)
// and queued, all means over the window.
func sideOf(inUse, available, queued float64) *results.TicketSide {
	return &results.TicketSide{InUse: p(inUse), Available: p(available), Total: p(inUse + available), Queued: p(queued)}
}

func tickets(read, write *results.TicketSide) *results.TicketCounts {
	return &results.TicketCounts{Read: read, Write: write}
}

// withTotal makes the total the single host, as the sampler would.
func withTotal(s *results.StepResult) *results.StepResult {
	if s.Server != nil && s.Server.Total == nil {
		s.Server.Total = s.Server.Hosts["a:27017"]
	}
	return s
}

func TestClassify(t *testing.T) {
	host := func(s *results.StepResult) *results.ServerSample { return s.Server.Hosts["a:27017"] }
	prevOf := func(mut func(*results.StepResult)) *results.StepResult {
		s := withTotal(baseStep())
		mut(s)
		return s
	}
	tests := []struct {
		name       string
		mut        func(s *results.StepResult)
		prev       *results.StepResult
		c          func(*Classifier)
		want       string
		reasonHave []string
	}{
		// Nothing near a limit.
		{"idle", func(*results.StepResult) {}, nil, nil, BoundNone, []string{"no limit reached", "client CPU 80% of 2 cores", "server queue 0.0"}},
		// Client at 180% of 2 cores = 90% ≥ 85%: client, and the advice to add machines.
		{"client cpu", func(s *results.StepResult) { s.Client.CPUPct = 180 }, nil, nil, BoundClient, []string{"client CPU 180%", "90% of its 2 cores", "--clients"}},
		// Client wins over a saturated server: its numbers are then the client's limit.
		{"client before server", func(s *results.StepResult) {
			s.Client.CPUPct = 190
			host(s).Queue = &results.QueueCounts{Readers: p(30), Writers: p(0)}
		}, nil, nil, BoundClient, nil},
		// A fifth of the ops hit the op timeout (a deadlocked server): server, whatever its counters say.
		{"timeouts", func(s *results.StepResult) { s.Errors.Timeout = 2000 }, nil, nil, BoundServer, []string{"2000 of 10000 operations (20%) timed out"}},
		// A few timeouts (under a tenth) are noise, not the bound.
		{"few timeouts", func(s *results.StepResult) { s.Errors.Timeout = 900 }, nil, nil, BoundNone, nil},
		// Client at 84%: just below the threshold, not client-bound.
		{"client below threshold", func(s *results.StepResult) { s.Client.CPUPct = 168 }, nil, nil, BoundNone, nil},
		// Write tickets exhausted on the host: server, and the side is named.
		{"tickets exhausted", func(s *results.StepResult) {
			host(s).Tickets = tickets(sideOf(2, 62, 0), sideOf(8, 0.2, 40))
		}, nil, nil, BoundServer, []string{"write tickets exhausted", "40.0 queued", "0.2 available"}},
		// The 4.2.8 capture edited to read out 128 / available 0 with 40
		// readers queued and the write pool idle: summed, in use 128 and
		// available 128 looked healthy; per side the reads are exhausted.
		{"read tickets out, write idle", func(s *results.StepResult) {
			host(s).Version = "4.2.8"
			host(s).Tickets = tickets(&results.TicketSide{InUse: p(128), Available: p(0), Total: p(128)}, sideOf(0, 128, 0))
			host(s).Tickets.Read.Queued = nil // 4.2 reports no ticket queue
			host(s).Queue = &results.QueueCounts{Readers: p(40), Writers: p(0)}
		}, nil, nil, BoundServer, []string{"read tickets exhausted, 40.0 queued", "0.0 available and 128.0 in use"}},
		// 7.0 sizes its tickets to the load: none available with no queue
		// is how it runs, not saturation.
		{"7.0 available 0 without a queue", func(s *results.StepResult) {
			host(s).Version = "7.0.12"
			host(s).Tickets = tickets(sideOf(4, 0, 0), sideOf(2, 0, 0))
			host(s).Tickets.Read.QueuedFromTime = p(0.1)
		}, nil, nil, BoundNone, nil},
		// ... but a queue on 7.0 is, here seen only by the queue time (the
		// samples caught it empty): 3 ops waiting on average.
		{"7.0 queue time", func(s *results.StepResult) {
			host(s).Version = "7.0.12"
			host(s).Tickets = tickets(sideOf(4, 0, 0), sideOf(2, 0, 0.2))
			host(s).Tickets.Write.QueuedFromTime = p(3)
		}, nil, nil, BoundServer, []string{"write tickets exhausted, 0.2 queued (3.0 waiting on average by queue time)", "7.0.12 sizes its tickets to the load"}},
		// The same counters before 7.0 (a fixed pool): available 0 is exhaustion.
		{"6.0 available 0", func(s *results.StepResult) {
			host(s).Version = "6.0.5"
			host(s).Tickets = tickets(sideOf(4, 0, 0), sideOf(2, 62, 0))
		}, nil, nil, BoundServer, []string{"read tickets exhausted"}},
		// Before 7.0 a queue of writers waits for write tickets even when
		// the samples caught one free now and then (bursts on a busy
		// host): still the write tickets.
		{"6.0 write queue with a ticket free at times", func(s *results.StepResult) {
			host(s).Version = "6.0.5"
			host(s).Tickets = tickets(&results.TicketSide{InUse: p(0.5), Available: p(15.5), Total: p(16)}, &results.TicketSide{InUse: p(1.3), Available: p(0.7), Total: p(2)})
			host(s).Queue = &results.QueueCounts{Readers: p(0), Writers: p(3.3)}
		}, nil, nil, BoundServer, []string{"write tickets exhausted, 3.3 queued: 0.7 available and 1.3 in use"}},
		// Queue > 1 on average on one side (from globalLock when tickets
		// say nothing about queueing); the sides are not added.
		{"global queue", func(s *results.StepResult) {
			host(s).Tickets = nil
			host(s).Queue = &results.QueueCounts{Readers: p(2.5), Writers: p(1)}
		}, nil, nil, BoundServer, []string{"read queue: 2.5 ops waiting"}},
		// Two sides each under 1: no queue, even though they add up to 1.2.
		{"queue under 1 per side", func(s *results.StepResult) {
			host(s).Tickets = nil
			host(s).Queue = &results.QueueCounts{Readers: p(0.6), Writers: p(0.6)}
		}, nil, nil, BoundNone, nil},
		// Ticket queue preferred over globalLock queue; 0.4 < 1 is not "queued".
		{"small ticket queue", func(s *results.StepResult) {
			host(s).Tickets.Read.Queued, host(s).Tickets.Write.Queued = p(0.4), p(0.4)
			host(s).Queue = &results.QueueCounts{Readers: p(9), Writers: p(9)}
		}, nil, nil, BoundNone, nil},
		// 8.2's establishment rate limiter queued and rejected connections:
		// server, naming the limiter.
		{"establishment limiter", func(s *results.StepResult) {
			host(s).Establishment = &results.EstablishmentCounts{Admitted: p(40), Queued: p(12), Rejected: p(3)}
		}, nil, nil, BoundServer, []string{"connection-establishment rate limiter (ingressConnectionEstablishmentRatePerSec) queued 12 and rejected 3", "admitted 40"}},
		// A limiter that admitted every connection at once says nothing.
		{"establishment limiter idle", func(s *results.StepResult) {
			host(s).Establishment = &results.EstablishmentCounts{Admitted: p(40), Queued: p(0), Rejected: p(0), QueuedMean: p(0)}
		}, nil, nil, BoundNone, nil},
		// Server CPU 720% on 8 cores = 90%: server, only when cores are known.
		{"server cpu known cores", func(s *results.StepResult) { host(s).CPUPct = p(720) }, nil,
			func(c *Classifier) { c.ServerCores = 8 }, BoundServer, []string{"server CPU 720%", "90% of 8 cores"}},
		// Same CPU with cores unknown: no CPU verdict.
		{"server cpu unknown cores", func(s *results.StepResult) { host(s).CPUPct = p(720) }, nil, nil, BoundNone, nil},
		// The host said 8 cores (hostInfo): the rule works for a remote server.
		{"server cpu hostInfo cores", func(s *results.StepResult) {
			host(s).CPUPct, host(s).Cores = p(720), pi(8)
		}, nil, nil, BoundServer, []string{"90% of 8 cores (hostInfo"}},
		// --server-cores 16 wins over the host's 8: 720% is 45%, no verdict.
		{"server cores override wins", func(s *results.StepResult) {
			host(s).CPUPct, host(s).Cores = p(720), pi(8)
		}, nil, func(c *Classifier) { c.ServerCores = 16 }, BoundNone, nil},
		// ...and the other way: the host says 16, the override 8.
		{"server cores override lower", func(s *results.StepResult) {
			host(s).CPUPct, host(s).Cores = p(720), pi(16)
		}, nil, func(c *Classifier) { c.ServerCores = 8 }, BoundServer, []string{"90% of 8 cores (as configured"}},
		// Pool: 3 ops/call × 1 ms wait = 3 ms of 5 ms (60%), C 256 > P 64.
		{"pool", func(s *results.StepResult) {
			s.Concurrency, s.Ops = 256, 30000
			s.Pool.CheckoutWait.Mean = 1
		}, nil, nil, BoundPool, []string{"1.00 ms/op × 3 ops/call", "60% of call latency 5.00 ms", "concurrency 256 > maxPoolSize 64"}},
		// Same wait but C = P: waits are not the pool being too small.
		{"pool wait but C equals P", func(s *results.StepResult) {
			s.Ops = 30000
			s.Pool.CheckoutWait.Mean = 1
		}, nil, nil, BoundNone, nil},
		// Pool wait 25% of the call: below the 30% share.
		{"pool share below threshold", func(s *results.StepResult) {
			s.Concurrency = 256
			s.Pool.CheckoutWait.Mean = 1.25
		}, nil, nil, BoundNone, nil},
		// Server out of tickets and callers waiting for the pool: server first
		// (a bigger pool would only queue more at the server).
		{"server before pool", func(s *results.StepResult) {
			s.Concurrency = 256
			s.Pool.CheckoutWait.Mean = 4
			host(s).Tickets = tickets(sideOf(128, 0, 0), sideOf(0, 128, 0))
		}, nil, nil, BoundServer, []string{"read tickets exhausted"}},
		// Concurrency ×2, server latency ×2, throughput +5%: server by growth.
		{"server latency growth", func(s *results.StepResult) {
			s.Concurrency, s.MaxPoolSize, s.OpsPerS = 128, 128, 10500
			host(s).ReadLatencyUS, host(s).WriteLatencyUS = p(1600), p(2400)
		}, prevOf(func(*results.StepResult) {}), nil, BoundServer, []string{"server latency 1000→2000 µs", "concurrency went 64→128"}},
		// Latency is weighted by opLatencies ops, not opcounters: an
		// insertMany of 1,000 documents is one write op of 2400 µs, not
		// 1,000. By ops, 9,000 reads at 1600 and 1,000 writes at 2400 give
		// 1680 µs against 1000 before (×1.68 for ×2 concurrency: not yet
		// server); by opcounters the writes would weigh 100 times more.
		{"latency weighted by ops", func(s *results.StepResult) {
			s.Concurrency, s.MaxPoolSize, s.OpsPerS = 128, 128, 10500
			host(s).ReadLatencyUS, host(s).WriteLatencyUS = p(1600), p(2400)
			host(s).ReadOpsPerS, host(s).WriteOpsPerS = p(9000), p(1000)
			host(s).OpcountersPerS = map[string]float64{"query": 9000, "insert": 1000000}
		}, prevOf(func(s *results.StepResult) {
			host(s).ReadOpsPerS, host(s).WriteOpsPerS = p(9000), p(1000)
			host(s).ReadLatencyUS, host(s).WriteLatencyUS = p(1000), p(1000)
		}), func(c *Classifier) { c.LatencyGrowth = 0.75 }, BoundNone, nil},
		// Latency ×2 but throughput ×1.9: the server is keeping up (growth, not saturation).
		{"latency grows with throughput", func(s *results.StepResult) {
			s.Concurrency, s.MaxPoolSize, s.OpsPerS = 128, 128, 19000
			host(s).ReadLatencyUS, host(s).WriteLatencyUS = p(1600), p(2400)
		}, prevOf(func(*results.StepResult) {}), nil, BoundNone, nil},
		// A prev from another series is ignored.
		{"prev other series", func(s *results.StepResult) {
			s.Concurrency, s.MaxPoolSize, s.OpsPerS = 128, 128, 10500
			host(s).ReadLatencyUS, host(s).WriteLatencyUS = p(1600), p(2400)
		}, prevOf(func(s *results.StepResult) { s.Target = "other" }), nil, BoundNone, nil},
		// Network: 110 MB/s on a 125 MB/s link, server 100 µs of a 5 ms op.
		{"network", func(s *results.StepResult) {
			host(s).NetOutBytesPerS = p(110e6)
			host(s).ReadLatencyUS, host(s).WriteLatencyUS = p(100), p(100)
		}, nil, func(c *Classifier) { c.LinkBytesPerS = 125e6 }, BoundNetwork, []string{"110.0 MB/s is 88% of the 125.0 MB/s link"}},
		// Same traffic with no link configured: the rule stays off.
		{"network unknown link", func(s *results.StepResult) {
			host(s).NetOutBytesPerS = p(110e6)
			host(s).ReadLatencyUS, host(s).WriteLatencyUS = p(100), p(100)
		}, nil, nil, BoundNone, nil},
		// FerretDB-like: no server telemetry at all → none, and it says so.
		{"no server telemetry", func(s *results.StepResult) { s.Server = nil }, nil, nil, BoundNone, []string{"no server telemetry"}},
		// Nothing measured on the client either: still a verdict, no panic.
		{"nothing measured", func(s *results.StepResult) {
			s.Server, s.Client = nil, nil
			s.Latency = results.LatencySummary{}
		}, nil, nil, BoundNone, []string{"client CPU not measured"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := baseStep()
			tt.mut(s)
			withTotal(s)
			c := DefaultClassifier()
			if tt.c != nil {
				tt.c(&c)
			}
			got, reason := c.Classify(s, tt.prev)
			if got != tt.want {
				t.Fatalf("bound = %q (%s), want %q", got, reason, tt.want)
			}
			if strings.Contains(reason, "\n") || reason == "" {
				t.Errorf("reason %q is not one line", reason)
			}
			for _, w := range tt.reasonHave {
				if !strings.Contains(reason, w) {
					t.Errorf("reason %q lacks %q", reason, w)
				}
			}
		})
	}
}

// TestClassifySeveralHosts checks that the verdict is deterministic with
// several hosts (the busiest is named) and that a nil step is no panic.
func TestClassifySeveralHosts(t *testing.T) {
	s := withTotal(baseStep())
	s.Server.Hosts["b:27017"] = &results.ServerSample{Queue: &results.QueueCounts{Readers: p(5), Writers: p(0)}}
	for range 5 {
		bound, reason := DefaultClassifier().Classify(s, nil)
		if bound != BoundServer || !strings.HasPrefix(reason, "b:27017: ") {
			t.Fatalf("Classify = %q, %q; want server on b:27017", bound, reason)
		}
	}
	if b, _ := DefaultClassifier().Classify(nil, nil); b != BoundNone {
		t.Errorf("Classify(nil) = %q", b)
	}
}

func TestLittlesLaw(t *testing.T) {
	tests := []struct {
		c       int
		callsPS float64
		meanMS  float64
		ok      bool
		devPct  float64
	}{
		{64, 12800, 5, true, 0},     // exact: 12800/s × 5 ms = 64
		{64, 12800, 6, true, 20},    // +20% is still within tolerance
		{64, 12800, 6.1, false, 22}, // +22%: hidden time inside the measured call? flag it
		{64, 8000, 5, false, -37.5}, // −37.5%: calls spend time outside the measured latency
		{64, 0, 5, false, -100},     // no calls completed at all
		{0, 1000, 5, false, 0},      // nothing to check: not OK, no division by zero
	}
	for _, tt := range tests {
		l := littlesLaw(tt.c, tt.callsPS, tt.meanMS)
		if l.OK != tt.ok || (tt.c > 0 && !near(l.DeviationPct, tt.devPct, 0.01)) {
			t.Errorf("LittlesLaw(%d, %v, %v) = %+v, want ok %v deviation %v", tt.c, tt.callsPS, tt.meanMS, l, tt.ok, tt.devPct)
		}
		if l.ExpectedInFlight != float64(tt.c) {
			t.Errorf("expected in flight = %v, want %d", l.ExpectedInFlight, tt.c)
		}
		w := littlesLawWarning(l)
		if (w == "") != (l.OK || tt.c == 0) {
			t.Errorf("warning %q for %+v", w, l)
		}
	}
	if w := littlesLawWarning(littlesLaw(64, 8000, 5)); !strings.Contains(w, "64 calls in flight") || !strings.Contains(w, "40.0") || !strings.Contains(w, "-38%") {
		t.Errorf("warning = %q", w)
	}
}

func pi(v int) *int { return &v }

func near(a, b, tol float64) bool { return a-b <= tol && b-a <= tol }

func TestAnnotate(t *testing.T) {
	// 3 clients × 64 workers, 19200 calls/s at 10 ms: 192 in flight, OK.
	s := withTotal(baseStep())
	s.Clients, s.CallsPerS, s.Latency.Mean = 3, 19200, 10
	annotate(s, nil, DefaultClassifier())
	if s.LittlesLaw == nil || !s.LittlesLaw.OK || s.LittlesLaw.ExpectedInFlight != 192 || len(s.Warnings) != 0 {
		t.Errorf("3 clients: littles %+v warnings %v", s.LittlesLaw, s.Warnings)
	}
	if s.Bound != BoundNone || s.BoundReason == "" {
		t.Errorf("bound %q %q", s.Bound, s.BoundReason)
	}
	// Half the expected in flight: a warning is added, existing ones kept.
	s.CallsPerS = 9600
	s.Warnings = []string{"earlier"}
	annotate(s, nil, DefaultClassifier())
	if s.LittlesLaw.OK || len(s.Warnings) != 2 || s.Warnings[0] != "earlier" || !strings.Contains(s.Warnings[1], "Little's law") {
		t.Errorf("half in flight: littles %+v warnings %v", s.LittlesLaw, s.Warnings)
	}
	annotate(nil, nil, DefaultClassifier()) // no panic
}

// ferretStep is an embedded-FerretDB step as a sweep records it: the
// server reports no latency, queue or tickets (only the CPU and RSS that
// /proc gave for the child), the client is healthy, and there is no pool
// wait (pool = match). latencyMS is the mean call latency.
func ferretStep(c int, opsPerS, latencyMS float64) *results.StepResult {
	n := int64(opsPerS * 4)
	host := &results.ServerSample{CPUPct: p(95), RSSMB: p(180), Cores: pi(2), Samples: 5}
	return &results.StepResult{
		Target: "embedded", Workload: "read", PoolSetting: "match", Clients: 1,
		Concurrency: c, MaxPoolSize: c, Calls: n, Ops: n, OpsPerS: opsPerS, CallsPerS: opsPerS, DurationS: 4,
		Latency: results.LatencySummary{Mean: latencyMS, P50: latencyMS * 0.8},
		Pool:    results.PoolStats{CheckoutWait: results.Quantiles{Mean: 0.01}},
		Client: &results.ClientTelemetry{CPUPct: 35, CPUs: 2, HostCPUs: pi(2), HostCPUPct: p(70), OthersCPUPct: p(50),
			CPUPressurePct: p(30), RunQueueWaitPct: p(12), SchedLatencyP50MS: p(0.01), SchedLatencyP99MS: p(0.4)},
		Server: &results.ServerTelemetry{Hosts: map[string]*results.ServerSample{"127.0.0.1:27018": host},
			Total: &results.ServerSample{CPUPct: p(95), RSSMB: p(180), Samples: 5}},
	}
}

// TestClassifySilentServer: a server that reports nothing to judge by
// (FerretDB) still gets a saturation verdict from the client's side, and
// only when the evidence holds.
func TestClassifySilentServer(t *testing.T) {
	local := func(c *Classifier) { c.LocalServerHost = "127.0.0.1:27018" }
	tests := []struct {
		name       string
		prev, step *results.StepResult
		c          func(*Classifier)
		want       string
		reasonHave []string
	}{
		// Seen on embedded FerretDB, C 4 → 16: ops/s 343 → 260 while the
		// mean call went 11.7 → 61.5 ms (C/X). Was "none"; it is saturated.
		{"ferretdb 4 to 16", ferretStep(4, 343, 11.7), ferretStep(16, 260, 61.5), local, BoundServer,
			[]string{"throughput flat while in-flight calls grew", "concurrency 4→16 (×4)", "ops/s 343→260", "11.69→61.49 ms",
				"the limit is past the pool (server or network); the server reports no queue"}},
		// C 16 → 32, ops/s +10% (< 25% of the ×2), latency ×1.8 (≥ 50%): server.
		{"flat by a little", ferretStep(16, 260, 61.5), ferretStep(32, 286, 112), local, BoundServer, nil},
		// C 1 → 2: throughput nearly doubles, latency flat: growing, none.
		{"still scaling", ferretStep(1, 120, 8.3), ferretStep(2, 230, 8.7), local, BoundNone, []string{"server queue not reported"}},
		// ops/s +30% of a ×2 (≥ 25%): the server still gives something.
		{"throughput still grows", ferretStep(16, 260, 61.5), ferretStep(32, 340, 94), local, BoundNone, nil},
		// Latency +40% of a ×2 (< 50%) while ops/s are flat: the calls did
		// not wait longer, so they are not queueing past the pool (Little's
		// law would be broken: the client issued fewer calls).
		{"latency did not grow enough", ferretStep(16, 260, 61.5), ferretStep(32, 262, 86), local, BoundNone, nil},
		// The first step of a series has nothing to compare with.
		{"no previous step", nil, ferretStep(16, 260, 61.5), local, BoundNone, nil},
		// A previous step from another target is not this curve.
		{"other series", func() *results.StepResult { s := ferretStep(4, 343, 11.7); s.Target = "other"; return s }(),
			ferretStep(16, 260, 61.5), local, BoundNone, nil},
		// The callers waited for connections (C 16 > P 4, most of the call):
		// the pool rule speaks first.
		{"pool wait", ferretStep(4, 343, 11.7), func() *results.StepResult {
			s := ferretStep(16, 260, 61.5)
			s.MaxPoolSize, s.PoolSetting, s.Pool.CheckoutWait.Mean = 4, "4", 45
			return s
		}(), local, BoundPool, nil},
		// Pool wait of 15% of the call (C = P, so not the pool's verdict)
		// muddies "net of pool wait": no inference.
		{"some pool wait", ferretStep(4, 343, 11.7), func() *results.StepResult {
			s := ferretStep(16, 260, 61.5)
			s.Pool.CheckoutWait.Mean = 9
			return s
		}(), local, BoundNone, nil},
		// No client telemetry: a starved client cannot be ruled out.
		{"client not measured", ferretStep(4, 343, 11.7), func() *results.StepResult {
			s := ferretStep(16, 260, 61.5)
			s.Client = nil
			return s
		}(), local, BoundNone, nil},
		// The same numbers on a contended load host are the host's.
		{"contended host", ferretStep(4, 343, 11.7), func() *results.StepResult {
			s := ferretStep(16, 260, 61.5)
			s.Client.RunQueueWaitPct, s.Client.OthersCPUPct, s.Client.CPUPressurePct = p(80), p(95), p(99)
			return s
		}(), local, BoundClient, []string{"load host CPU contended"}},
		// A server that reports latency is judged by it (rule 6), not here:
		// its latency flat → not saturated, whatever the client saw.
		{"server reports latency", ferretStep(4, 343, 11.7), func() *results.StepResult {
			s := ferretStep(16, 260, 61.5)
			s.Server.Total.ReadLatencyUS = p(900)
			return s
		}(), local, BoundNone, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultClassifier()
			if tt.c != nil {
				tt.c(&c)
			}
			if tt.name == "server reports latency" {
				tt.prev.Server.Total.ReadLatencyUS = p(880)
			}
			got, reason := c.Classify(tt.step, tt.prev)
			if got != tt.want {
				t.Fatalf("bound = %q (%s), want %q", got, reason, tt.want)
			}
			for _, w := range tt.reasonHave {
				if !strings.Contains(reason, w) {
					t.Errorf("reason %q lacks %q", reason, w)
				}
			}
		})
	}
}

// TestClassifyShards: behind the routers, the shards' primaries are judged
// first and the one that saturated is named; when they were not sampled, a
// "none" says why.
func TestClassifyShards(t *testing.T) {
	router := func() *results.ServerSample {
		return &results.ServerSample{Version: "7.0.12", ReadLatencyUS: p(3000), WriteLatencyUS: p(3000), CPUPct: p(40), Cores: pi(8)}
	}
	shard := func(writeQueued float64) *results.ShardSample {
		return &results.ShardSample{Host: "db3:27018", Sample: &results.ServerSample{
			Version: "7.0.12", Tickets: tickets(sideOf(3, 0, 0), sideOf(4, 0, writeQueued)), Cores: pi(8), CPUPct: p(300),
		}}
	}
	sampled, notSampled := true, false
	step := func() *results.StepResult {
		s := baseStep()
		s.Server = &results.ServerTelemetry{
			Hosts:         map[string]*results.ServerSample{"m1:27017": router(), "m2:27017": router()},
			Shards:        []string{"rs0", "rs1"},
			ShardsSampled: &sampled,
			ShardHosts:    map[string]*results.ShardSample{"rs0": shard(0), "rs1": shard(37)},
		}
		s.Server.Total = router()
		return s
	}
	bound, reason := DefaultClassifier().Classify(step(), nil)
	if bound != BoundServer || !strings.HasPrefix(reason, "shard rs1 (db3:27018): write tickets exhausted, 37.0 queued") {
		t.Errorf("Classify = %s (%s), want server naming shard rs1's write tickets", bound, reason)
	}

	// Not sampled (unreachable): judged on the routers, which show
	// nothing, and the reason says why the shards were not looked at.
	s := step()
	s.Server.ShardsSampled, s.Server.ShardHosts = &notSampled, nil
	s.Server.ShardsNotSampled = "shard rs1 (db3:27018) could not be reached from this host within 5s"
	bound, reason = DefaultClassifier().Classify(s, nil)
	if bound != BoundNone || !strings.Contains(reason, "shards not sampled (shard rs1 (db3:27018) could not be reached") {
		t.Errorf("Classify = %s (%s), want none saying the shards were not sampled", bound, reason)
	}
}

// TestClassifyQuotaNote: a host that looks like a container (memory limit
// below the host's) has its CPU judged against the host's cores, which a
// CPU quota does not change; without --server-cores the verdict says so.
func TestClassifyQuotaNote(t *testing.T) {
	s := withTotal(baseStep())
	h := s.Server.Hosts["a:27017"]
	h.Cores, h.CPUPct, h.CoresMayMissQuota = pi(10), p(195), true // 2 of 10 cores: a 2-core quota at its limit
	bound, reason := DefaultClassifier().Classify(s, nil)
	if bound != BoundNone || !strings.Contains(reason, "looks like a container") || !strings.Contains(reason, "host's 10 cores") {
		t.Errorf("Classify = %s (%s), want none with the quota note", bound, reason)
	}
	c := DefaultClassifier()
	c.ServerCores = 2
	if bound, reason := c.Classify(s, nil); bound != BoundServer || strings.Contains(reason, "container") {
		t.Errorf("--server-cores 2: Classify = %s (%s), want server by CPU and no note", bound, reason)
	}
}
func p(v float64) *float64 { return &v }
