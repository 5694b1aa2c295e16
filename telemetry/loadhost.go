package telemetry

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/cpuwait"
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

// hostReading is one end of a window's load-host readings; a nil field is a
// source this platform does not have.
type hostReading struct {
	psiSomeUS *float64
	cpu       *cpuTimes
	sched     *cpuwait.Hist
	threads   cpuwait.Threads
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
	if h, ok := cpuwait.ReadSched(); ok {
		r.sched = &h
	}
	r.threads = cpuwait.ReadThreads(root)
	return r
}
