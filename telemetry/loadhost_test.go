package telemetry

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

func near(a, b, tol float64) bool { return a-b <= tol && b-a <= tol }

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "proc", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// parseCase is one input of a parser's table test: the text, the value
// it parses to, and whether it must be refused.
type parseCase[T comparable] struct {
	in   string
	want T
	err  bool
}

// checkParse runs parse, named fn, on every case.
func checkParse[T comparable](t *testing.T, fn string, parse func([]byte) (T, error), cases []parseCase[T]) {
	t.Helper()
	for _, tt := range cases {
		got, err := parse([]byte(tt.in))
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("%s(%q) = %+v, %v; want %+v, err %v", fn, tt.in, got, err, tt.want, tt.err)
		}
	}
}

func TestParsePSISomeTotal(t *testing.T) {
	checkParse(t, "parsePSISomeTotal", parsePSISomeTotal, []parseCase[float64]{
		// Recorded on the 2-core development machine.
		{"some avg10=81.91 avg60=70.38 avg300=60.40 total=638114425\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", 638114425, false},
		// Kernels before 5.13 have no "full" line for CPU.
		{"some avg10=0.00 avg60=0.00 avg300=0.00 total=12\n", 12, false},
		// The full line must not be taken for the some line.
		{"full avg10=0 avg60=0 avg300=0 total=7\nsome avg10=0 avg60=0 avg300=0 total=9\n", 9, false},
		{"some avg10=0.00 avg60=0.00 avg300=0.00\n", 0, true}, // no total
		{"some avg10=0 total=x\n", 0, true},
		{"some total=-5\n", 0, true},
		{"some total=NaN\n", 0, true},
		{"", 0, true},
	})
	if got, err := parsePSISomeTotal(readTestdata(t, "pressure-cpu.txt")); err != nil || got != 638114425 {
		t.Errorf("testdata pressure-cpu.txt: %v, %v", got, err)
	}
}

func TestParseProcStatCPU(t *testing.T) {
	checkParse(t, "parseProcStatCPU", parseProcStatCPU, []parseCase[cpuTimes]{
		// user nice system idle iowait irq softirq steal guest guest_nice:
		// busy = 100+0+50+0+0+10 = 160 (guest is inside user), idle 800+40.
		{"cpu  100 0 50 800 40 0 10 0 30 0\ncpu0 50 0 25 400 20 0 5 0 15 0\ncpu1 50 0 25 400 20 0 5 0 15 0\nintr 1 2\n",
			cpuTimes{busy: 160, total: 1000, cpus: 2}, false},
		// Old kernels: only user nice system idle.
		{"cpu 10 0 10 80\ncpu0 10 0 10 80\n", cpuTimes{busy: 20, total: 100, cpus: 1}, false},
		// Steal time is busy: the hypervisor gave the CPU to someone else.
		{"cpu 10 0 10 70 0 0 0 10\ncpu0 10 0 10 70 0 0 0 10\n", cpuTimes{busy: 30, total: 100, cpus: 1}, false},
		{"cpu0 1 2 3 4\n", cpuTimes{}, true},          // no aggregate line
		{"cpu 1 2 3 4\n", cpuTimes{}, true},           // no per-cpu lines
		{"cpu 1 2 3\ncpu0 1 2 3\n", cpuTimes{}, true}, // too few counters
		{"cpu 1 x 3 4\ncpu0 1 2 3 4\n", cpuTimes{}, true},
		{"cpu 1 Inf 3 4\ncpu0 1 2 3 4\n", cpuTimes{}, true},
		{"", cpuTimes{}, true},
	})
	got, err := parseProcStatCPU(readTestdata(t, "stat-2cpu.txt"))
	if err != nil || got.cpus != 2 || got.busy != 127141+44807+4152+5795 || got.total != got.busy+83052+1151 {
		t.Errorf("testdata stat-2cpu.txt: %+v, %v", got, err)
	}
}

func TestHostCPU(t *testing.T) {
	a := cpuTimes{busy: 1000, total: 4000, cpus: 2}
	tests := []struct {
		name         string
		b            cpuTimes
		own, wall    float64 // CPU seconds, wall seconds
		host, others float64
		ok           bool
	}{
		// 2 cores × 1 s = 200 ticks, 150 busy; 0.5 s ours of 2 core-seconds
		// is 25%: host 75%, others 50% of all cores.
		{"half others", cpuTimes{busy: 1150, total: 4200, cpus: 2}, 0.5, 1, 75, 50, true},
		// The host lost ticks (180 of 200), busy and idle alike: its share
		// is taken against its own ticks, so others stays 50%, not 40%.
		{"lost ticks", cpuTimes{busy: 1135, total: 4180, cpus: 2}, 0.5, 1, 75, 50, true},
		// Seen on this VM: a spinning client (0.36 CPU-s in 0.3 s on 2
		// cores, 60%) while the host counted 30 busy of 52 ticks (57.7%):
		// within 5 points, so others 0, not unknown.
		{"clamped", cpuTimes{busy: 1030, total: 4052, cpus: 2}, 0.36, 0.3, 30.0 / 52 * 100, 0, true},
		// The host counted far less than we alone used (host 7% while we
		// used 25% of the cores): unknown, not 7%.
		{"inconsistent", cpuTimes{busy: 1014, total: 4200, cpus: 2}, 0.5, 1, 0, 0, false},
		// The counters did not advance: nothing to say.
		{"no time", cpuTimes{busy: 1000, total: 4000, cpus: 2}, 0, 1, 0, 0, false},
		// A counter went backwards: nothing to say.
		{"backwards", cpuTimes{busy: 900, total: 4200, cpus: 2}, 0, 1, 0, 0, false},
		// No wall time: nothing to say.
		{"no wall", cpuTimes{busy: 1150, total: 4200, cpus: 2}, 0.5, 0, 0, 0, false},
	}
	for _, tt := range tests {
		host, others, ok := hostCPU(a, tt.b, tt.own, tt.wall)
		if ok != tt.ok || !near(host, tt.host, 1e-9) || !near(others, tt.others, 1e-9) {
			t.Errorf("%s: hostCPU = %v, %v, %v; want %v, %v, %v", tt.name, host, others, ok, tt.host, tt.others, tt.ok)
		}
	}
}

// TestApplyHostMissingSources: a platform without PSI, /proc/stat or
// schedstat leaves those fields null, never 0, and the rest still works.
func TestApplyHostMissingSources(t *testing.T) {
	var ct results.ClientTelemetry
	applyHost(&ct, hostReading{}, hostReading{}, 1, 1)
	if ct.CPUPressurePct != nil || ct.HostCPUPct != nil || ct.OthersCPUPct != nil || ct.HostCPUs != nil ||
		ct.SchedLatencyP50MS != nil || ct.SchedLatencyP99MS != nil || ct.RunQueueWaitPct != nil {
		t.Errorf("missing sources gave values: %+v", ct)
	}
	// PSI over 2 s of wall time: 1.5 s of stall is 75%.
	a, b := 1e6, 2.5e6
	applyHost(&ct, hostReading{psiSomeUS: &a}, hostReading{psiSomeUS: &b}, 0, 2)
	if ct.CPUPressurePct == nil || !near(*ct.CPUPressurePct, 75, 1e-9) {
		t.Errorf("pressure = %v, want 75", ct.CPUPressurePct)
	}
}

// TestClientSamplerLinux reads the real sources of this machine around a
// window in which one goroutine spins: every load-host field is set and
// within its range, and our CPU shows. Linux only (the sources are).
func TestClientSamplerLinux(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("load-host sources are Linux's")
	}
	for _, f := range []string{"/proc/stat", "/proc/self/task"} {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	c := NewClientSampler()
	c.Start()
	stop := time.Now().Add(300 * time.Millisecond)
	x := 0
	for time.Now().Before(stop) {
		x++
		if x%1000 == 0 {
			runtime.Gosched() // scheduler activity for the latency histogram
		}
	}
	ct := c.Stop()
	if ct == nil {
		t.Fatal("Stop returned nil")
	}
	b, _ := json.Marshal(ct)
	t.Logf("%s", b)
	if ct.CPUPct < 5 {
		t.Errorf("cpu_pct %.1f while spinning for the whole window", ct.CPUPct)
	}
	in := func(name string, v *float64, lo, hi float64) {
		if v == nil || *v < lo || *v > hi {
			t.Errorf("%s = %v, want in [%v, %v]", name, v, lo, hi)
		}
	}
	in("host_cpu_pct", ct.HostCPUPct, 0, 100)
	in("others_cpu_pct", ct.OthersCPUPct, 0, 100)
	in("run_queue_wait_pct", ct.RunQueueWaitPct, 0, 100)
	if ct.HostCPUs == nil || *ct.HostCPUs < 1 {
		t.Errorf("host_cpus = %v", ct.HostCPUs)
	}
	if _, err := os.Stat("/proc/pressure/cpu"); err == nil {
		in("cpu_pressure_pct", ct.CPUPressurePct, 0, 100)
	} else if ct.CPUPressurePct != nil {
		t.Errorf("no PSI on this kernel, yet cpu_pressure_pct = %v", *ct.CPUPressurePct)
	}
	// The runtime samples scheduling events; a spinning, yielding goroutine
	// makes plenty.
	in("sched_latency_p99_ms", ct.SchedLatencyP99MS, 0, 10000)
	if ct.SchedLatencyP50MS == nil || *ct.SchedLatencyP50MS > *ct.SchedLatencyP99MS {
		t.Errorf("sched p50 %v above p99 %v", ct.SchedLatencyP50MS, ct.SchedLatencyP99MS)
	}
}

func FuzzParseProcStatCPU(f *testing.F) {
	f.Add(readTestdata(f, "stat-2cpu.txt"))
	f.Add([]byte("cpu 1 2 3 4\ncpu0 1 2 3 4\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ct, err := parseProcStatCPU(b)
		if err == nil && !(ct.busy >= 0 && ct.busy <= ct.total && !math.IsInf(ct.total, 0) && ct.cpus >= 1) {
			t.Errorf("%+v from %q", ct, b)
		}
	})
}

func FuzzParsePSISomeTotal(f *testing.F) {
	f.Add(readTestdata(f, "pressure-cpu.txt"))
	f.Add([]byte("some total=1\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if v, err := parsePSISomeTotal(b); err == nil && !(v >= 0 && !math.IsInf(v, 0)) {
			t.Errorf("%v from %q", v, b)
		}
	})
}
