package telemetry

import (
	"runtime"
	"syscall"
	"time"

	"github.com/poolsweep/poolsweep/sweep"
)

// ClientSampler measures this process over a window: CPU (user+system, in %
// of one core), GC pause time and goroutines. It is cheap enough to run on
// every step: Start and Stop each read rusage and MemStats once.
type ClientSampler struct {
	at      time.Time
	cpu     time.Duration
	pauseNs uint64
	started bool
}

// NewClientSampler returns an idle sampler.
func NewClientSampler() *ClientSampler { return &ClientSampler{} }

// Start records the counters at the start of the window.
func (c *ClientSampler) Start() {
	c.at = time.Now()
	c.cpu = processCPU()
	c.pauseNs = gcPauseTotal()
	c.started = true
}

// Stop returns the window's client telemetry, or nil if Start was not
// called. CPUs is GOMAXPROCS, the most cores this process can use (it
// follows CPU affinity and cgroup limits), which is what "the client is at
// its cores" must be judged against. Goroutines is the count at Stop.
func (c *ClientSampler) Stop() *sweep.ClientTelemetry {
	if !c.started {
		return nil
	}
	c.started = false
	wall := time.Since(c.at).Seconds()
	ct := &sweep.ClientTelemetry{
		CPUs:       runtime.GOMAXPROCS(0),
		GCPauseMS:  float64(gcPauseTotal()-c.pauseNs) / 1e6,
		Goroutines: runtime.NumGoroutine(),
	}
	if wall > 0 {
		ct.CPUPct = (processCPU() - c.cpu).Seconds() / wall * 100
	}
	return ct
}

// processCPU is this process's user+system time so far; zero if the kernel
// will not say (then CPU % reads 0, which Classify treats as "not client
// bound" rather than failing a step).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// gcPauseTotal is the cumulative stop-the-world GC pause. ReadMemStats
// stops the world briefly, which twice per step is negligible.
func gcPauseTotal() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.PauseTotalNs
}
