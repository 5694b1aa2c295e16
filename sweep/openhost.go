package sweep

import (
	"runtime/metrics"

	"github.com/poolsweep/poolsweep/internal/cpuwait"
)

// hostSample is this process's view of its load host at one moment: the
// CPU time its cores (GOMAXPROCS) had and the part of it they were idle
// (Go runtime), how long runnable goroutines waited for a core (Go
// scheduler) and how long its threads waited for a CPU (the kernel's run
// queue, Linux). Two samples bracket a window: a client whose cores were
// busy all the time, or that waited long to run, is the limit of what it
// measured. It costs a few microseconds per thread.
type hostSample struct {
	total, idle float64
	sched       *cpuwait.Hist
	threads     cpuwait.Threads
}

var cpuMetrics = []string{"/cpu/classes/total:cpu-seconds", "/cpu/classes/idle:cpu-seconds"}

func sampleHost() hostSample {
	s := make([]metrics.Sample, len(cpuMetrics))
	for i, n := range cpuMetrics {
		s[i].Name = n
	}
	metrics.Read(s)
	var h hostSample
	if s[0].Value.Kind() == metrics.KindFloat64 {
		h.total = s[0].Value.Float64()
	}
	if s[1].Value.Kind() == metrics.KindFloat64 {
		h.idle = s[1].Value.Float64()
	}
	if sh, ok := cpuwait.ReadSched(); ok {
		h.sched = &sh
	}
	h.threads = cpuwait.ReadThreads("/proc")
	return h
}

// hostWindow is what two host samples say about the window between them;
// a nil field is a source this platform or runtime does not have, or one
// that saw nothing.
type hostWindow struct {
	busy, schedP99Ms                *float64
	runQueuePct, runQueueMeanWaitMs *float64
}

// since is the window from a to b: the share of the cores' time they were
// busy, the 99th percentile of the time goroutines waited to run (ms), and
// the share of their runnable time our threads waited in the kernel's run
// queue with the mean wait each time one was given a CPU (ms).
func (b hostSample) since(a hostSample) hostWindow {
	var w hostWindow
	if dt := b.total - a.total; dt > 0 {
		v := min(max(1-(b.idle-a.idle)/dt, 0), 1)
		w.busy = &v
	}
	if a.sched != nil && b.sched != nil {
		if d, ok := cpuwait.HistDelta(*a.sched, *b.sched); ok {
			if v, ok := d.Quantile(0.99); ok {
				v *= 1000
				w.schedP99Ms = &v
			}
		}
	}
	if a.threads != nil && b.threads != nil {
		if share, mean, ok := cpuwait.RunQueue(a.threads, b.threads); ok {
			w.runQueuePct = &share
			if mean > 0 {
				w.runQueueMeanWaitMs = &mean
			}
		}
	}
	return w
}
