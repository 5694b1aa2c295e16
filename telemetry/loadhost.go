package telemetry

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/metrics"
	"strconv"
	"strings"
)

// The load host's health: whether the machine generating the load gave it
// the CPU it asked for. A client starved by other processes issues calls
// late and reads replies late, which lowers throughput and inflates latency
// exactly like a slow server, while its own CPU % stays low. Three sources
// show it, each read at both ends of the window:
//   - PSI (/proc/pressure/cpu, Linux ≥ 4.20): the share of wall time some
//     runnable task waited for a CPU, whichever process it belonged to;
//   - /proc/stat: how busy the host was, and so how much of it was not us;
//   - runtime/metrics /sched/latencies:seconds: how long our own runnable
//     goroutines waited to run, the only one that says the waiting hurt us.

// schedLatencyMetric is the Go scheduler's runnable-wait histogram.
const schedLatencyMetric = "/sched/latencies:seconds"

// finiteCount reports whether v can be a kernel counter: finite, not
// negative (ParseFloat also accepts "NaN" and "Inf").
func finiteCount(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }

// parsePSISomeTotal returns the "some" line's total (µs of stall since
// boot) from a /proc/pressure/* file.
func parsePSISomeTotal(b []byte) (float64, error) {
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, "some ")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(rest) {
			v, ok := strings.CutPrefix(f, "total=")
			if !ok {
				continue
			}
			t, err := strconv.ParseFloat(v, 64)
			if err != nil || !finiteCount(t) {
				return 0, fmt.Errorf("some total=%q is not a count", v)
			}
			return t, nil
		}
		return 0, errors.New("some line has no total=")
	}
	return 0, errors.New("no some line")
}

// cpuTimes is the aggregate "cpu" line of /proc/stat, in clock ticks summed
// over all CPUs, and the number of CPUs listed.
type cpuTimes struct {
	busy, total float64
	cpus        int
}

// parseProcStatCPU reads /proc/stat's "cpu" line: user nice system idle
// iowait irq softirq steal [guest guest_nice]. Idle and iowait are idle;
// guest time is already inside user and nice, so it is not added again.
func parseProcStatCPU(b []byte) (cpuTimes, error) {
	var ct cpuTimes
	found := false
	for line := range strings.Lines(string(b)) {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			if _, err := strconv.Atoi(f[0][3:]); err == nil {
				ct.cpus++
			}
			continue
		}
		if len(f) < 5 {
			return cpuTimes{}, fmt.Errorf("cpu line has %d fields, want at least 4 counters", len(f)-1)
		}
		vals := make([]float64, 0, 8)
		for _, s := range f[1:min(len(f), 9)] {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || !finiteCount(v) {
				return cpuTimes{}, fmt.Errorf("cpu line: %q is not a tick count", s)
			}
			vals = append(vals, v)
		}
		for i, v := range vals {
			ct.total += v
			if i != 3 && i != 4 { // idle, iowait
				ct.busy += v
			}
		}
		found = true
	}
	if !found {
		return cpuTimes{}, errors.New("no cpu line")
	}
	if ct.cpus == 0 {
		return cpuTimes{}, errors.New("no cpuN lines")
	}
	return ct, nil
}

// hostCPU is the window's host CPU from two /proc/stat readings and this
// process's CPU seconds over the same window of wall seconds: host busy
// and the part of it that was not ours, both in % of all cores. Each share
// is taken against its own clock: the host's busy ticks against the
// host's ticks, ours against wall time × cores. Mixing them would not
// do: on tickless and virtualised CPUs /proc/stat loses ticks (measured
// here: 91–98% of wall × cores), busy and idle alike, so busy ticks minus
// our CPU seconds comes out below zero whenever we are busy. ok is false
// when the counters did not advance (or went backwards), or when the
// host's share is still well below ours (by more than 5 points): such a
// window's host figures are unknown, not small.
func hostCPU(a, b cpuTimes, ownCPUSeconds, wallSeconds float64) (host, others float64, ok bool) {
	dt, db := b.total-a.total, b.busy-a.busy
	if dt <= 0 || db < 0 || db > dt || wallSeconds <= 0 || b.cpus < 1 {
		return 0, 0, false
	}
	host = db / dt * 100
	own := ownCPUSeconds / (wallSeconds * float64(b.cpus)) * 100
	if host < own-5 {
		return 0, 0, false
	}
	others = min(max(host-own, 0), 100)
	return host, others, true
}

// histogram is a copy of one runtime/metrics Float64Histogram reading.
type histogram struct {
	counts  []uint64
	buckets []float64 // len(counts)+1 boundaries, possibly ±Inf at the ends
}

// readSchedLatencies reads the runtime's runnable-wait histogram; ok is false
// when this Go runtime does not have it.
func readSchedLatencies() (histogram, bool) {
	s := []metrics.Sample{{Name: schedLatencyMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return histogram{}, false
	}
	h := s[0].Value.Float64Histogram()
	// Read may reuse the histogram's memory on a later call: keep a copy.
	return histogram{counts: append([]uint64(nil), h.Counts...), buckets: append([]float64(nil), h.Buckets...)}, true
}

// histDelta is b−a bucket by bucket, or false when the two readings do not
// have the same buckets or a count went backwards.
func histDelta(a, b histogram) (histogram, bool) {
	if len(a.counts) != len(b.counts) || len(b.buckets) != len(b.counts)+1 {
		return histogram{}, false
	}
	d := histogram{counts: make([]uint64, len(b.counts)), buckets: b.buckets}
	for i := range b.counts {
		if b.counts[i] < a.counts[i] {
			return histogram{}, false
		}
		d.counts[i] = b.counts[i] - a.counts[i]
	}
	return d, true
}

// quantile is the q-quantile of h, interpolated linearly inside the bucket
// that holds it; an unbounded top bucket answers its lower bound, an
// unbounded bottom one counts from 0. ok is false for an empty histogram.
func (h histogram) quantile(q float64) (float64, bool) {
	if len(h.buckets) != len(h.counts)+1 {
		return 0, false
	}
	var total uint64
	for _, c := range h.counts {
		total += c
	}
	if total == 0 {
		return 0, false
	}
	rank := q * float64(total)
	cum := 0.0
	for i, c := range h.counts {
		if c == 0 {
			continue
		}
		if cum+float64(c) >= rank {
			lo, hi := h.buckets[i], h.buckets[i+1]
			if math.IsInf(lo, -1) {
				lo = 0
			}
			if math.IsInf(hi, 1) {
				return lo, true
			}
			return lo + (rank-cum)/float64(c)*(hi-lo), true
		}
		cum += float64(c)
	}
	// Rounding left rank just above the last count: the top occupied bucket.
	for i := len(h.counts) - 1; i >= 0; i-- {
		if h.counts[i] > 0 {
			if math.IsInf(h.buckets[i+1], 1) {
				return h.buckets[i], true
			}
			return h.buckets[i+1], true
		}
	}
	return 0, false
}

// threadTimes is one thread's /proc/<pid>/task/<tid>/schedstat: time on a
// CPU and time runnable but waiting in the run queue, in ns.
type threadTimes struct{ run, wait float64 }

// parseSchedstat reads a schedstat line: "<run ns> <wait ns> <timeslices>".
func parseSchedstat(b []byte) (threadTimes, error) {
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return threadTimes{}, fmt.Errorf("schedstat has %d fields, want 3", len(f))
	}
	run, err1 := strconv.ParseFloat(f[0], 64)
	wait, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || !finiteCount(run) || !finiteCount(wait) {
		return threadTimes{}, fmt.Errorf("schedstat %q: not two counts", strings.TrimSpace(string(b)))
	}
	return threadTimes{run, wait}, nil
}

// readThreads reads every thread of this process; nil when the kernel has
// no schedstat (CONFIG_SCHED_INFO off) or this is not Linux.
func readThreads(root string) map[string]threadTimes {
	dir := root + "/self/task"
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := make(map[string]threadTimes, len(ents))
	for _, e := range ents {
		b, err := os.ReadFile(dir + "/" + e.Name() + "/schedstat")
		if err != nil {
			continue // the thread exited between the listing and the read
		}
		if tt, err := parseSchedstat(b); err == nil {
			out[e.Name()] = tt
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// runQueueShare is the share of the time this process's threads wanted a
// CPU that they spent waiting for one, in %, over a window: Σwait/(Σrun+Σwait)
// of the per-thread deltas. A thread born in the window counts from zero; one
// that died in it is lost (Go rarely ends threads). ok is false when no
// thread ran.
func runQueueShare(a, b map[string]threadTimes) (float64, bool) {
	var run, wait float64
	for tid, e := range b {
		s := a[tid]
		if e.run < s.run || e.wait < s.wait {
			continue // a recycled thread id
		}
		run += e.run - s.run
		wait += e.wait - s.wait
	}
	if run+wait <= 0 {
		return 0, false
	}
	return wait / (run + wait) * 100, true
}

// hostReading is one end of a window's load-host readings; a nil field is a
// source this platform does not have.
type hostReading struct {
	psiSomeUS *float64
	cpu       *cpuTimes
	sched     *histogram
	threads   map[string]threadTimes
}

// readHost reads the load host's counters under root (normally "/proc").
// What cannot be read stays nil.
func readHost(root string) hostReading {
	var r hostReading
	if b, err := os.ReadFile(root + "/pressure/cpu"); err == nil {
		if v, err := parsePSISomeTotal(b); err == nil {
			r.psiSomeUS = &v
		}
	}
	if b, err := os.ReadFile(root + "/stat"); err == nil {
		if ct, err := parseProcStatCPU(bytes.TrimSpace(b)); err == nil {
			r.cpu = &ct
		}
	}
	if h, ok := readSchedLatencies(); ok {
		r.sched = &h
	}
	r.threads = readThreads(root)
	return r
}
