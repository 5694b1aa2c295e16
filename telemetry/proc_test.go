package telemetry

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

func TestParseProcStat(t *testing.T) {
	checkParse(t, "parseProcStat", parseProcStat, []parseCase[float64]{
		// Typical line: utime 1500 + stime 250.
		{"4211 (mongod) S 1 4211 4211 0 -1 4194560 701122 0 66 0 1500 250 0 0 20 0 68 0 1234 3827302400 471884", 1750, false},
		// A command name with spaces and a ')' must not shift the fields.
		{"77 (we ird) (x)) R 1 77 77 0 -1 0 0 0 0 0 7 3 0 0 20 0 1 0 1 1 1", 10, false},
		// Truncated line.
		{"77 (x) R 1 2 3", 0, true},
		// Garbage.
		{"no parens here", 0, true},
	})
}

func TestParseVmRSS(t *testing.T) {
	got, err := parseVmRSS([]byte("Name:\tmongod\nVmPeak:\t 999 kB\nVmRSS:\t  471884 kB\nThreads:\t68\n"))
	if err != nil || got != 471884 {
		t.Errorf("VmRSS = %v, %v; want 471884", got, err)
	}
	// Kernel threads have no VmRSS: an error, not a zero RSS.
	if _, err := parseVmRSS([]byte("Name:\tkthreadd\nThreads:\t1\n")); err == nil {
		t.Error("no VmRSS line: want an error")
	}
}

// TestClockTicks checks the documented USER_HZ constant against getconf
// where getconf exists.
func TestClockTicks(t *testing.T) {
	out, err := exec.Command("getconf", "CLK_TCK").Output()
	if err != nil {
		t.Skipf("getconf: %v", err)
	}
	if n, err := strconv.Atoi(strings.TrimSpace(string(out))); err != nil || n != clockTicksPerSecond {
		t.Errorf("getconf CLK_TCK = %q, constant is %d", out, clockTicksPerSecond)
	}
}

// sampleChild runs name args… as a child (killed when the test ends) and
// samples it for window, starting 50 ms in so that its exec is not in the
// window. It returns what the sampler saw and the stopped sampler.
func sampleChild(t *testing.T, window time.Duration, name string, args ...string) (ProcStats, *ProcSampler) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("/proc is Linux-only")
	}
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ps := NewProcSampler(cmd.Process.Pid)
	time.Sleep(50 * time.Millisecond)
	if err := ps.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(window)
	st, err := ps.Stop()
	if err != nil {
		t.Fatal(err)
	}
	return st, ps
}

// TestProcSamplerBusyChild measures a child spinning on a core: its CPU %
// must be clearly above zero and its RSS known. The bound is loose because
// the machine is shared; the point is that the numbers come from the child.
func TestProcSamplerBusyChild(t *testing.T) {
	st, ps := sampleChild(t, 500*time.Millisecond, "sh", "-c", "while :; do :; done")
	t.Logf("busy child: cpu %.1f%%, rss %.2f MB", st.CPUPct, st.RSSMB)
	if st.CPUPct <= 5 || st.CPUPct > 150 {
		t.Errorf("cpu = %.1f%%, want a spinning shell between 5%% and 150%% of one core", st.CPUPct)
	}
	if st.RSSMB <= 0 {
		t.Errorf("rss = %v MB, want > 0", st.RSSMB)
	}
	if _, err := ps.Stop(); err == nil {
		t.Error("second Stop without Start: want an error")
	}
}

// TestProcSamplerIdleChild is the other side: a sleeping child uses ~no CPU.
func TestProcSamplerIdleChild(t *testing.T) {
	t.Parallel()
	st, _ := sampleChild(t, 300*time.Millisecond, "sleep", "5")
	if st.CPUPct > 5 {
		t.Errorf("sleeping child cpu = %.1f%%, want ≈ 0", st.CPUPct)
	}
}

func TestProcSamplerGone(t *testing.T) {
	ps := NewProcSampler(1 << 30) // beyond pid_max
	if err := ps.Start(); err == nil {
		t.Error("Start on a missing pid: want an error")
	}
}

// TestProcSamplerFakeProc drives the sampler from files, so the arithmetic
// is checked exactly: 50 ticks in a window is 0.5 s of CPU.
func TestProcSamplerFakeProc(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "42")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(ticks int, rssKB int) {
		stat := "42 (poolsweep) S 1 42 42 0 -1 0 0 0 0 0 " + strconv.Itoa(ticks) + " 0 0 0 20 0 1 0 1 1 1"
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(stat), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "status"), []byte("VmRSS:\t"+strconv.Itoa(rssKB)+" kB\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ps := &ProcSampler{pid: 42, root: root}
	write(1000, 1024)
	if err := ps.Start(); err != nil {
		t.Fatal(err)
	}
	ps.start.at = ps.start.at.Add(-time.Second) // pretend the window lasted ~1 s
	write(1050, 2048)
	st, err := ps.Stop()
	if err != nil {
		t.Fatal(err)
	}
	if st.CPUPct < 45 || st.CPUPct > 50.01 {
		t.Errorf("cpu = %v, want ≈ 50%% (0.5 s over ~1 s)", st.CPUPct)
	}
	if st.RSSMB != 2 {
		t.Errorf("rss = %v MB, want 2 (the value at Stop)", st.RSSMB)
	}
}

func TestProcStatsApplyTo(t *testing.T) {
	tel := &results.ServerTelemetry{
		Hosts: map[string]*results.ServerSample{"127.0.0.1:27017": {Samples: 3}},
		Total: &results.ServerSample{Samples: 3},
	}
	ProcStats{CPUPct: 95, RSSMB: 120}.ApplyTo(tel, "127.0.0.1:27017")
	h := tel.Hosts["127.0.0.1:27017"]
	if h.CPUPct == nil || *h.CPUPct != 95 || *h.RSSMB != 120 || *tel.Total.CPUPct != 95 || *tel.Total.RSSMB != 120 {
		t.Errorf("after ApplyTo: host %+v total %+v", h, tel.Total)
	}
	if h.Samples != 3 {
		t.Error("ApplyTo must keep the rest of the host entry")
	}
	ProcStats{}.ApplyTo(nil, "x") // nil telemetry: no panic

	// A simulated cluster's process serves both routers, and the second
	// reports its own share (30 %, 40 MB): the first is given the rest of
	// the process's 95 % and 120 MB, and the total is the process's.
	tel = &results.ServerTelemetry{Hosts: map[string]*results.ServerSample{
		"127.0.0.1:1": {Samples: 3, CPUPct: p(50), RSSMB: p(60)}, "127.0.0.1:2": {Samples: 3, CPUPct: p(30), RSSMB: p(40)}}}
	ProcStats{CPUPct: 95, RSSMB: 120}.ApplyTo(tel, "127.0.0.1:1")
	if h := tel.Hosts["127.0.0.1:1"]; *h.CPUPct != 65 || *h.RSSMB != 80 || *tel.Total.CPUPct != 95 || *tel.Total.RSSMB != 120 {
		t.Errorf("shared process: host %v %v, total %v %v; want 65 %% 80 MB, and the process's 95 %% 120 MB", *h.CPUPct, *h.RSSMB, *tel.Total.CPUPct, *tel.Total.RSSMB)
	}
}

func TestClientSampler(t *testing.T) {
	c := NewClientSampler()
	if c.Stop() != nil {
		t.Error("Stop before Start: want nil")
	}
	c.Start()
	// Burn some CPU and force a GC so both numbers move.
	deadline := time.Now().Add(200 * time.Millisecond)
	x := 0
	for time.Now().Before(deadline) {
		x++
	}
	runtime.GC()
	ct := c.Stop()
	t.Logf("client: %+v (spun %d)", *ct, x)
	if ct.CPUPct <= 0 || ct.CPUs != runtime.GOMAXPROCS(0) || ct.Goroutines < 1 {
		t.Errorf("client telemetry = %+v", *ct)
	}
	if ct.GCPauseMS <= 0 {
		t.Errorf("gc pause = %v ms after a forced GC, want > 0", ct.GCPauseMS)
	}
}
