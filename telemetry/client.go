package telemetry

import (
	"runtime"
	"time"

	"github.com/poolsweep/poolsweep/internal/cpuwait"
	"github.com/poolsweep/poolsweep/results"
)

// ClientSampler measures this process and the load host over a window:
// CPU (user+system, in % of one core), GC pause time, goroutines, and the
// host's health (CPU pressure, host and others' CPU, the Go scheduler's
// runnable wait). It is cheap enough to run on every step: Start and Stop
// each read rusage, MemStats, runtime/metrics and two small /proc files
// once.
type ClientSampler struct {
	root    string // "/proc", replaceable in tests
	at      time.Time
	cpu     time.Duration
	pauseNs uint64
	host    hostReading
	started bool
}

// NewClientSampler returns an idle sampler.
func NewClientSampler() *ClientSampler { return &ClientSampler{root: "/proc"} }

// Start records the counters at the start of the window.
func (c *ClientSampler) Start() {
	c.host = readHost(c.root)
	c.at = time.Now()
	c.cpu = processCPU()
	c.pauseNs = gcPauseTotal()
	c.started = true
}

// Stop returns the window's client telemetry, or nil if Start was not
// called. CPUs is GOMAXPROCS, the most cores this process can use (it
// follows CPU affinity and cgroup limits), which is what "the client is at
// its cores" must be judged against. Goroutines is the count at Stop. A
// load-host field stays nil when its source is missing at either end.
func (c *ClientSampler) Stop() *results.ClientTelemetry {
	if !c.started {
		return nil
	}
	c.started = false
	cpu := processCPU() - c.cpu
	wall := time.Since(c.at).Seconds()
	end := readHost(c.root)
	ct := &results.ClientTelemetry{
		CPUs:       runtime.GOMAXPROCS(0),
		GCPauseMS:  float64(gcPauseTotal()-c.pauseNs) / 1e6,
		Goroutines: runtime.NumGoroutine(),
	}
	if wall > 0 {
		ct.CPUPct = cpu.Seconds() / wall * 100
	}
	applyHost(ct, c.host, end, cpu.Seconds(), wall)
	return ct
}

// applyHost fills ct's load-host fields from the readings at both ends of
// a window of wall seconds in which this process used ownCPU seconds.
func applyHost(ct *results.ClientTelemetry, a, b hostReading, ownCPU, wall float64) {
	if a.psiSomeUS != nil && b.psiSomeUS != nil && wall > 0 && *b.psiSomeUS >= *a.psiSomeUS {
		// The kernel's and our clocks differ by our read latency: cap at 100.
		ct.CPUPressurePct = ptr(min((*b.psiSomeUS-*a.psiSomeUS)/(wall*1e6)*100, 100))
	}
	if a.cpu != nil && b.cpu != nil {
		if host, others, ok := hostCPU(*a.cpu, *b.cpu, ownCPU, wall); ok {
			n := b.cpu.cpus
			ct.HostCPUs, ct.HostCPUPct, ct.OthersCPUPct = &n, &host, &others
		}
	}
	if a.threads != nil && b.threads != nil {
		if v, _, ok := cpuwait.RunQueue(a.threads, b.threads); ok {
			ct.RunQueueWaitPct = &v
		}
	}
	if a.sched != nil && b.sched != nil {
		if d, ok := cpuwait.HistDelta(*a.sched, *b.sched); ok {
			if v, ok := d.Quantile(0.50); ok {
				ct.SchedLatencyP50MS = ptr(v * 1000)
			}
			if v, ok := d.Quantile(0.99); ok {
				ct.SchedLatencyP99MS = ptr(v * 1000)
			}
		}
	}
}

// gcPauseTotal is the cumulative stop-the-world GC pause. ReadMemStats
// stops the world briefly, which twice per step is negligible.
func gcPauseTotal() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.PauseTotalNs
}
