package bound

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// hostStep is a sim-like step (tickets exhausted at the server) with the
// given load-host telemetry; the simulator ran as a child on this machine
// at localCPU % of one core.
func hostStep(ct results.ClientTelemetry, localCPU float64) *results.StepResult {
	s := withTotal(baseStep())
	ct.CPUs, ct.HostCPUs = 2, pi(2)
	s.Client = &ct
	s.Server.Hosts["a:27017"].Tickets = &results.TicketCounts{
		Read:  &results.TicketSide{InUse: p(8), Available: p(0), Total: p(8), Queued: p(20)},
		Write: &results.TicketSide{InUse: p(0), Available: p(8), Total: p(8), Queued: p(0)},
	}
	s.Server.Hosts["a:27017"].CPUPct = p(localCPU)
	return s
}

// TestContended pins the load-host rule on windows recorded on the 2-core
// development machine (the simulator swept at C 1..64) and on the edges of
// each threshold.
func TestContended(t *testing.T) {
	local := func(c *Classifier) { c.LocalServerHost = "a:27017" }
	tests := []struct {
		name       string
		ct         results.ClientTelemetry
		localCPU   float64
		c          func(*Classifier)
		want       bool
		reasonHave []string
	}{
		// Recorded beside three busy loops, C=1: our CPU 10%, but our
		// threads waited 77% of their runnable time and others held the
		// machine. Was "none — client CPU 10%".
		{"hogs C=1", results.ClientTelemetry{CPUPct: 10, RunQueueWaitPct: p(77.0), SchedLatencyP99MS: p(0.274), CPUPressurePct: p(98.6), HostCPUPct: p(100), OthersCPUPct: p(94.8)},
			8, local, true, []string{"load host CPU contended", "waited for a CPU 77%", "PSI some 99%", "other processes 91% of 2 cores",
				"these numbers are this machine's, not the server's"}},
		// Recorded beside three busy loops, C=64: goroutines waited p99 7 ms too.
		{"hogs C=64", results.ClientTelemetry{CPUPct: 35, RunQueueWaitPct: p(82.4), SchedLatencyP99MS: p(7.047), CPUPressurePct: p(97.1), HostCPUPct: p(100), OthersCPUPct: p(82.5)},
			22, local, true, []string{"goroutines waited p99 7.0 ms"}},
		// Recorded while other helpers' builds and tests shared the machine,
		// C=8: others 51% of which the simulator child was 19%.
		{"shared machine C=8", results.ClientTelemetry{CPUPct: 45, RunQueueWaitPct: p(67.9), SchedLatencyP99MS: p(0.897), CPUPressurePct: p(65.4), HostCPUPct: p(74.8), OthersCPUPct: p(51.4)},
			38, local, true, []string{"other processes 32% of 2 cores"}},
		// Recorded on a quiet host, C=1: VM wake-up latency alone makes our
		// threads' run-queue share ~50%; nobody else held the machine.
		{"quiet C=1", results.ClientTelemetry{CPUPct: 14, RunQueueWaitPct: p(48.2), SchedLatencyP99MS: p(0.220), CPUPressurePct: p(12.5), HostCPUPct: p(14.0), OthersCPUPct: p(6.7)},
			11, local, false, nil},
		// Recorded while other helpers' tests ran, C=8: 3305 ops/s, within
		// 2% of the quiet host's; our threads' wait (55%) did not rise.
		{"shared machine, unaffected", results.ClientTelemetry{CPUPct: 46, RunQueueWaitPct: p(54.5), SchedLatencyP99MS: p(0.3), CPUPressurePct: p(75.6), HostCPUPct: p(97), OthersCPUPct: p(76.8)},
			33, local, false, nil},
		// Our threads waited, but only for our own simulator child (its 80%
		// of one core is 40% of the machine): the server under test is not
		// a neighbour.
		{"waiting on our own server", results.ClientTelemetry{CPUPct: 70, RunQueueWaitPct: p(70), SchedLatencyP99MS: p(1), CPUPressurePct: p(80), HostCPUPct: p(80), OthersCPUPct: p(45)},
			80, local, false, nil},
		// The same window without knowing the server is local: others.
		{"same, server not local", results.ClientTelemetry{CPUPct: 70, RunQueueWaitPct: p(70), SchedLatencyP99MS: p(1), CPUPressurePct: p(80), HostCPUPct: p(80), OthersCPUPct: p(45)},
			80, nil, true, nil},
		// Neighbours busy, but our threads ran when they wanted to (a slow
		// remote server: we mostly sleep): not our problem.
		{"busy host, we did not wait", results.ClientTelemetry{CPUPct: 5, RunQueueWaitPct: p(20), SchedLatencyP99MS: p(0.3), CPUPressurePct: p(90), HostCPUPct: p(95), OthersCPUPct: p(92)},
			0, nil, false, nil},
		// Just below both wait thresholds.
		{"below wait thresholds", results.ClientTelemetry{RunQueueWaitPct: p(64.9), SchedLatencyP99MS: p(4.9), OthersCPUPct: p(90), CPUPressurePct: p(99)},
			0, nil, false, nil},
		// Waited, but others below a quarter of the machine.
		{"below others threshold", results.ClientTelemetry{RunQueueWaitPct: p(80), OthersCPUPct: p(24.9), CPUPressurePct: p(99)},
			0, nil, false, nil},
		// No schedstat (not Linux, or CONFIG_SCHED_INFO off): the Go
		// scheduler's own wait is the witness.
		{"sched latency only", results.ClientTelemetry{SchedLatencyP99MS: p(6.2), OthersCPUPct: p(60)},
			0, nil, true, []string{"goroutines waited p99 6.2 ms to run"}},
		// Neighbours hold a third of a large host, but it has idle cores
		// (PSI some 5%): nobody was kept from a CPU for long, whatever
		// wake-up latency made our threads wait.
		{"large host with idle cores", results.ClientTelemetry{RunQueueWaitPct: p(80), CPUPressurePct: p(5), OthersCPUPct: p(33), HostCPUPct: p(45)},
			0, nil, false, nil},
		// Just below the pressure threshold.
		{"below pressure threshold", results.ClientTelemetry{RunQueueWaitPct: p(80), CPUPressurePct: p(29.9), OthersCPUPct: p(90)},
			0, nil, false, nil},
		// No /proc/stat: PSI alone says the host was out of CPUs.
		{"PSI only", results.ClientTelemetry{RunQueueWaitPct: p(70), CPUPressurePct: p(71)},
			0, nil, true, []string{"PSI some 71%"}},
		{"PSI only, calm", results.ClientTelemetry{RunQueueWaitPct: p(70), CPUPressurePct: p(25)},
			0, nil, false, nil},
		// No PSI (kernel < 4.20 or psi=0): others' CPU alone.
		{"others only", results.ClientTelemetry{RunQueueWaitPct: p(70), OthersCPUPct: p(60)},
			0, nil, true, []string{"other processes 60% of 2 cores"}},
		// Nothing about the host at all: the wait alone decides.
		{"no host sources", results.ClientTelemetry{SchedLatencyP99MS: p(8)}, 0, nil, true, nil},
		{"no host sources, calm", results.ClientTelemetry{SchedLatencyP99MS: p(1)}, 0, nil, false, nil},
		// Nothing measured (old results): no verdict.
		{"nothing", results.ClientTelemetry{}, 0, nil, false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultClassifier()
			if tt.c != nil {
				tt.c(&c)
			}
			s := hostStep(tt.ct, tt.localCPU)
			got, why := c.Contended(s)
			if got != tt.want {
				t.Fatalf("Contended = %v (%s), want %v", got, why, tt.want)
			}
			for _, w := range tt.reasonHave {
				if !strings.Contains(why, w) {
					t.Errorf("reason %q lacks %q", why, w)
				}
			}
			// The step's label follows. With the server on this machine,
			// contention goes before its exhausted tickets (the same
			// contention slows it); a server elsewhere with a full queue is
			// the bound whatever this machine did.
			bound, reason := c.Classify(s, nil)
			want := BoundServer
			if tt.want && c.LocalServerHost != "" {
				want = BoundClient
			}
			if bound != want || (want == BoundClient && reason != why) {
				t.Errorf("Classify = %s (%s), want %s", bound, reason, want)
			}
			// Without the server's evidence, contention is the label
			// wherever the server runs.
			for _, h := range s.Server.Hosts {
				h.Tickets, h.Queue = nil, nil
			}
			want = BoundNone
			if tt.want {
				want = BoundClient
			}
			if bound, reason := c.Classify(s, nil); bound != want {
				t.Errorf("without server evidence: Classify = %s (%s), want %s", bound, reason, want)
			}
		})
	}
	if ok, _ := DefaultClassifier().Contended(nil); ok {
		t.Error("nil step contended")
	}
}

// TestClientLimited is the summary's predicate: a labelled step is taken at
// its label; an unlabelled one is judged from its client telemetry.
func TestClientLimited(t *testing.T) {
	starved := results.ClientTelemetry{CPUPct: 10, RunQueueWaitPct: p(77), OthersCPUPct: p(95)}
	tests := []struct {
		name  string
		bound string
		ct    *results.ClientTelemetry
		want  bool
	}{
		{"labelled client", BoundClient, nil, true},
		{"labelled server, even if starved", BoundServer, &starved, false},
		{"unlabelled, starved", "", &starved, true},
		{"unlabelled, CPU-bound", "", &results.ClientTelemetry{CPUPct: 190, CPUs: 2}, true},
		{"unlabelled, healthy", "", &results.ClientTelemetry{CPUPct: 20, CPUs: 2, RunQueueWaitPct: p(10), OthersCPUPct: p(5)}, false},
		{"unlabelled, no telemetry", "", nil, false},
	}
	for _, tt := range tests {
		s := &results.StepResult{Bound: tt.bound, BoundReason: "r", Client: tt.ct}
		got, why := ClientLimited(s)
		if got != tt.want || (got && why == "") {
			t.Errorf("%s: ClientLimited = %v, %q; want %v", tt.name, got, why, tt.want)
		}
	}
	if ok, _ := ClientLimited(nil); ok {
		t.Error("nil step is client-limited")
	}
}

// TestMachineFull: with the server running on this machine, a client that
// uses most of it and, with the server, fills it is this machine's limit;
// a server that fills the machine on its own is not the client's.
func TestMachineFull(t *testing.T) {
	tests := []struct {
		name           string
		client, server float64 // CPU %, of one core; 2 cores
		local          bool
		want           string
		reasonHave     string
	}{
		// Sharded simulator at C=48: client 150% (75%), simulator 40%.
		{"client fills the machine", 150, 40, true, BoundClient, "this machine is full: client CPU 150% and the server running here 40% use 95% of its 2 cores"},
		// Recorded: the sharded simulator (3 shards, 2 routers) at C=48 and
		// 10,140 ops/s, client 94% of one core, simulator child 81%.
		{"client and simulator fill the machine", 94, 81, true, BoundClient, "use 88% of its 2 cores"},
		// Room left: 80% together.
		{"room left", 150, 10, true, BoundServer, ""},
		// Embedded FerretDB at 170% with the client at 30% (15% of the
		// machine): full, but of the server; its rules speak (tickets here).
		{"server fills the machine", 30, 170, true, BoundServer, ""},
		// The server is not on this machine: its CPU is not ours to add.
		{"server elsewhere", 150, 40, false, BoundServer, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultClassifier()
			if tt.local {
				c.LocalServerHost = "a:27017"
			}
			s := hostStep(results.ClientTelemetry{CPUPct: tt.client}, tt.server)
			got, reason := c.Classify(s, nil)
			if got != tt.want || !strings.Contains(reason, tt.reasonHave) {
				t.Errorf("Classify = %s (%s), want %s with %q", got, reason, tt.want, tt.reasonHave)
			}
		})
	}
}

// TestTimeoutsBeforeContention: a server that stopped answering (a tenth of
// the ops past the op timeout, seconds each) is the bound even on a
// contended host: contention delays calls by milliseconds, not seconds.
func TestTimeoutsBeforeContention(t *testing.T) {
	s := hostStep(results.ClientTelemetry{CPUPct: 10, RunQueueWaitPct: p(80), CPUPressurePct: p(99), OthersCPUPct: p(95)}, 5)
	s.Errors.Timeout = 2000
	s.Server.Hosts["a:27017"].Tickets = nil // the stopped server's counters say nothing
	for _, local := range []string{"", "a:27017"} {
		c := DefaultClassifier()
		c.LocalServerHost = local
		if bound, reason := c.Classify(s, nil); bound != BoundServer || !strings.Contains(reason, "timed out") {
			t.Errorf("local=%q: Classify = %s (%s), want server for the timeouts", local, bound, reason)
		}
	}
}
