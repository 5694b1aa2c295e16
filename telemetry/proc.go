package telemetry

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// clockTicksPerSecond is the unit of utime and stime in /proc/<pid>/stat.
// Linux reports them in USER_HZ, which is 100 on every architecture Go
// supports on Linux (it is independent of the kernel's CONFIG_HZ; `getconf
// CLK_TCK` prints it, and a test checks the two agree).
const clockTicksPerSecond = 100

// procStat is one reading of /proc/<pid>.
type procStat struct {
	at       time.Time
	cpuTicks float64 // utime + stime
	rssKB    float64
}

// ProcStats is a process's CPU and memory over a window.
type ProcStats struct {
	CPUPct float64 // user+system time over wall time, in % of one core
	RSSMB  float64 // resident set size at the end of the window, MiB
}

// ProcSampler measures another process (the embedded server run as
// `poolsweep serve`) from /proc, so that server CPU can be told apart from
// the client's. Linux only; elsewhere Start fails and the caller leaves the
// fields nil.
type ProcSampler struct {
	pid   int
	root  string // "/proc", replaceable in tests
	start *procStat
}

// NewProcSampler measures process pid.
func NewProcSampler(pid int) *ProcSampler {
	return &ProcSampler{pid: pid, root: "/proc"}
}

// Start reads the process's counters at the start of the window.
func (p *ProcSampler) Start() error {
	st, err := p.read()
	if err != nil {
		return err
	}
	p.start = &st
	return nil
}

// Stop reads the counters again and returns the window's CPU % and the
// current RSS.
func (p *ProcSampler) Stop() (ProcStats, error) {
	if p.start == nil {
		return ProcStats{}, errors.New("proc sampler: Stop without a successful Start")
	}
	end, err := p.read()
	if err != nil {
		return ProcStats{}, err
	}
	start := *p.start
	p.start = nil
	wall := end.at.Sub(start.at).Seconds()
	out := ProcStats{RSSMB: end.rssKB / 1024}
	if wall > 0 {
		out.CPUPct = (end.cpuTicks - start.cpuTicks) / clockTicksPerSecond / wall * 100
	}
	return out, nil
}

func (p *ProcSampler) read() (procStat, error) {
	dir := p.root + "/" + strconv.Itoa(p.pid)
	ticks, err := readProcFile(dir+"/stat", parseProcStat)
	if err != nil {
		return procStat{}, err
	}
	rss, err := readProcFile(dir+"/status", parseVmRSS)
	if err != nil {
		return procStat{}, err
	}
	return procStat{at: time.Now(), cpuTicks: ticks, rssKB: rss}, nil
}

// readProcFile reads one /proc file and parses it; an error names the file.
func readProcFile[T any](path string, parse func([]byte) (T, error)) (T, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("proc sampler: %w", err)
	}
	v, err := parse(b)
	if err != nil {
		return v, fmt.Errorf("proc sampler: %s: %w", path, err)
	}
	return v, nil
}

// parseProcStat returns utime+stime from /proc/<pid>/stat. The command name
// (field 2) is in parentheses and may itself contain spaces and ')', so
// fields are counted from the last ')'.
func parseProcStat(b []byte) (float64, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, errors.New("no command name")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("%d fields after the command name, want at least 13", len(f))
	}
	u, err := strconv.ParseFloat(f[11], 64)
	if err != nil {
		return 0, fmt.Errorf("utime: %w", err)
	}
	s, err := strconv.ParseFloat(f[12], 64)
	if err != nil {
		return 0, fmt.Errorf("stime: %w", err)
	}
	return u + s, nil
}

// parseVmRSS returns VmRSS from /proc/<pid>/status, in kB.
func parseVmRSS(b []byte) (float64, error) {
	for line := range strings.Lines(string(b)) {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, fmt.Errorf("VmRSS: %w", err)
		}
		return v, nil
	}
	// Kernel threads and zombies have no VmRSS line.
	return 0, errors.New("no VmRSS line")
}

// ApplyTo puts the process's numbers on host's entry of t and recomputes the
// total's CPU and RSS as the sum over hosts, overriding what the server said
// about itself: /proc is the same measurement for every server kind. A
// missing host entry is created. The process poolsweep started serves
// every host of its target (serve --sim runs a cluster's routers and
// shards, or a set's members, in one process, each reporting its share of
// it): when other hosts (shards' primaries included) report their own
// CPU or RSS, host is given what the process used beyond theirs, so that
// no share is counted twice.
func (ps ProcStats) ApplyTo(t *results.ServerTelemetry, host string) {
	if t == nil {
		return
	}
	if t.Hosts == nil {
		t.Hosts = map[string]*results.ServerSample{}
	}
	h := t.Hosts[host]
	if h == nil {
		h = &results.ServerSample{}
		t.Hosts[host] = h
	}
	var otherCPU, otherRSS []*float64
	for name, s := range t.Hosts {
		if name != host {
			otherCPU, otherRSS = append(otherCPU, s.CPUPct), append(otherRSS, s.RSSMB)
		}
	}
	for _, sh := range t.ShardHosts {
		// A simulated cluster's shards are in the process too.
		if sh != nil && sh.Sample != nil && sh.Host != host {
			otherCPU, otherRSS = append(otherCPU, sh.Sample.CPUPct), append(otherRSS, sh.Sample.RSSMB)
		}
	}
	rest := func(whole float64, others *float64) *float64 {
		if others == nil {
			return ptr(whole)
		}
		return ptr(max(0, whole-*others))
	}
	h.CPUPct, h.RSSMB = rest(ps.CPUPct, sumPtr(otherCPU...)), rest(ps.RSSMB, sumPtr(otherRSS...))
	if t.Total == nil {
		t.Total = &results.ServerSample{}
	}
	var cpus, rss []*float64
	for _, s := range t.Hosts {
		cpus = append(cpus, s.CPUPct)
		rss = append(rss, s.RSSMB)
	}
	t.Total.CPUPct, t.Total.RSSMB = sumPtr(cpus...), sumPtr(rss...)
}
