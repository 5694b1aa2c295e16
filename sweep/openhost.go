package sweep

import (
	"math"
	"runtime/metrics"
)

// hostSample is the Go runtime's view of this process at one moment: the
// CPU time its cores (GOMAXPROCS) had, the part of it they were idle, and
// how long runnable goroutines waited for a core. Two samples bracket a
// window: a client whose cores were busy all the time, or whose
// goroutines waited long to run, is the limit of what it measured. It is
// portable, unlike rusage, and costs a few microseconds.
type hostSample struct {
	total, idle float64
	sched       *metrics.Float64Histogram
}

var hostMetrics = []string{"/cpu/classes/total:cpu-seconds", "/cpu/classes/idle:cpu-seconds", "/sched/latencies:seconds"}

func sampleHost() hostSample {
	s := make([]metrics.Sample, len(hostMetrics))
	for i, n := range hostMetrics {
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
	if s[2].Value.Kind() == metrics.KindFloat64Histogram {
		h.sched = s[2].Value.Float64Histogram()
	}
	return h
}

// since is the window from a to b: the share of the cores' time they were
// busy (nil when the runtime does not say), and the 99th percentile of
// the time goroutines waited to run, in ms (nil when none ran or the
// runtime does not say).
func (b hostSample) since(a hostSample) (busy, schedP99 *float64) {
	if dt := b.total - a.total; dt > 0 {
		v := min(max(1-(b.idle-a.idle)/dt, 0), 1)
		busy = &v
	}
	if a.sched == nil || b.sched == nil || len(a.sched.Counts) != len(b.sched.Counts) {
		return busy, nil
	}
	var n uint64
	d := make([]uint64, len(b.sched.Counts))
	for i := range d {
		d[i] = b.sched.Counts[i] - a.sched.Counts[i]
		n += d[i]
	}
	if n == 0 {
		return busy, nil
	}
	want := uint64(math.Ceil(0.99 * float64(n)))
	var seen uint64
	for i, c := range d {
		seen += c
		if seen >= want {
			// The bucket's upper bound; the last bucket is open-ended, so
			// its lower bound.
			hi := b.sched.Buckets[i+1]
			if math.IsInf(hi, 1) {
				hi = b.sched.Buckets[i]
			}
			v := hi * 1000
			return busy, &v
		}
	}
	return busy, nil
}
