package cpuwait

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// Thread is one thread's /proc/<pid>/task/<tid>/schedstat: time on a CPU
// and time runnable but waiting in the run queue, in ns, and how many
// times it was given a CPU (0 where the kernel leaves the count out).
type Thread struct{ Run, Wait, Slices float64 }

// Threads is every thread of this process at one moment, by thread id;
// nil when the kernel has no schedstat (CONFIG_SCHED_INFO off) or this is
// not Linux.
type Threads map[string]Thread

// finiteCount reports whether v can be a kernel counter: finite, not
// negative (ParseFloat also accepts "NaN" and "Inf").
func finiteCount(v float64) bool { return v >= 0 && !math.IsInf(v, 1) }

// ParseSchedstat reads a schedstat line: "<run ns> <wait ns> <timeslices>".
func ParseSchedstat(b []byte) (Thread, error) {
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return Thread{}, fmt.Errorf("schedstat has %d fields, want 3", len(f))
	}
	run, err1 := strconv.ParseFloat(f[0], 64)
	wait, err2 := strconv.ParseFloat(f[1], 64)
	if err1 != nil || err2 != nil || !finiteCount(run) || !finiteCount(wait) {
		return Thread{}, fmt.Errorf("schedstat %q: not two counts", strings.TrimSpace(string(b)))
	}
	t := Thread{Run: run, Wait: wait}
	if len(f) >= 3 {
		if n, err := strconv.ParseFloat(f[2], 64); err == nil && finiteCount(n) {
			t.Slices = n
		}
	}
	return t, nil
}

// ReadThreads reads every thread of this process under root (normally
// "/proc").
func ReadThreads(root string) Threads { return readTasks(root + "/self/task") }

// ReadProcess reads every thread of process pid under root (normally
// "/proc"): a child whose CPU waits a test weighs, as it weighs its own.
func ReadProcess(root string, pid int) Threads {
	return readTasks(root + "/" + strconv.Itoa(pid) + "/task")
}

// readTasks reads the schedstat of every thread listed in dir.
func readTasks(dir string) Threads {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := make(Threads, len(ents))
	for _, e := range ents {
		b, err := os.ReadFile(dir + "/" + e.Name() + "/schedstat")
		if err != nil {
			continue // the thread exited between the listing and the read
		}
		if tt, err := ParseSchedstat(b); err == nil {
			out[e.Name()] = tt
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// RunQueue is how this process's threads waited for a CPU between a and b:
// the share of the time they wanted one that they spent waiting, in %
// (Σwait/(Σrun+Σwait) of the per-thread deltas), and the mean wait each
// time a thread was given a CPU, in ms (0 when the kernel does not count
// them). A thread born in the window counts from zero; one that died in it
// is lost (Go rarely ends threads). ok is false when no thread ran.
func RunQueue(a, b Threads) (sharePct, meanWaitMs float64, ok bool) {
	var run, wait, slices float64
	for tid, e := range b {
		s := a[tid]
		if e.Run < s.Run || e.Wait < s.Wait || e.Slices < s.Slices {
			continue // a recycled thread id
		}
		run += e.Run - s.Run
		wait += e.Wait - s.Wait
		slices += e.Slices - s.Slices
	}
	if run+wait <= 0 {
		return 0, 0, false
	}
	if slices > 0 {
		meanWaitMs = wait / slices / 1e6
	}
	return wait / (run + wait) * 100, meanWaitMs, true
}
