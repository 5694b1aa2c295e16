package main

import (
	"github.com/poolsweep/poolsweep/internal/errext"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/poolsweep/poolsweep/results"
)

// scrape is one scrape of the endpoint, parsed.
type scrape map[string]*dto.MetricFamily

// value is the metric of family name whose labels include want (nil
// when there is none).
func (s scrape) metric(name string, want map[string]string) *dto.Metric {
	f := s[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.Metric {
		got := map[string]string{}
		for _, l := range m.Label {
			got[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if got[k] != v {
				continue next
			}
		}
		return m
	}
	return nil
}

// metricsAddr is a loopback address with a port free a moment ago, for
// --metrics-listen.
func metricsAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// scrapeUntil scrapes addr's /metrics every 100 ms until done is closed
// (and once more then), handing each scrape that answered to seen.
func scrapeUntil(t *testing.T, addr string, done <-chan struct{}, seen func(scrape)) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	for stop := false; !stop; {
		select {
		case <-done:
			stop = true
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := client.Get("http://" + addr + "/metrics")
		if err != nil {
			continue // not listening yet, or already closed
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var p expfmt.TextParser
		fams, err := p.TextToMetricFamilies(strings.NewReader(string(body)))
		if err != nil {
			t.Fatalf("the scrape does not parse: %v\n%s", err, body)
		}
		seen(scrape(fams))
	}
}

// TestMetricsListen: --metrics-listen serves Prometheus metrics while a
// simulator sweep runs; a scrape taken during the second step shows that
// step as running with its live figures, and the first step's figures
// equal to its record.
func TestMetricsListen(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	// 4 slots of 5 ms: at most 800 calls/s.
	const slots, serviceS, c2 = 4, 0.005, 8
	uri, _ := startServe(t, "--sim", "slots=4,service=5ms")
	addr := metricsAddr(t)
	out := filepath.Join(t.TempDir(), "out")

	var wg sync.WaitGroup
	var code int
	var stderr string
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		code, _, stderr = runCLI(t, "sweep", "--uri", uri, "--concurrency", "2,8", "--warmup", "300ms", "--duration", "1s",
			"--records", "200", "--op-timeout", "2s", "--no-plot", "--out", out, "--metrics-listen", addr)
	}()
	// Scrape every 100 ms until the sweep ends; keep the scrapes taken in
	// the second step's measured window.
	var during []scrape
	scrapeUntil(t, addr, done, func(s scrape) {
		if s.metric("poolsweep_step_running", map[string]string{"concurrency": "8", "phase": "measure"}) != nil {
			during = append(during, s)
		}
	})
	wg.Wait()
	if code != 0 {
		t.Fatalf("sweep exit %d\n%s", code, stderr)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if len(res.Steps) != 2 || len(during) == 0 {
		t.Fatalf("%d steps, %d scrapes during the second step's window", len(res.Steps), len(during))
	}
	first, second := res.Steps[0], res.Steps[1]
	s := during[len(during)/2]
	t.Logf("%d scrapes during step 2's window", len(during))

	// The running step and its live figures.
	l2 := map[string]string{"target": second.Target, "concurrency": "8", "pool": "match", "trial": "1", "workload": "read", "clients": "1"}
	if m := s.metric("poolsweep_live_connections", l2); m == nil || int(m.GetGauge().GetValue()) != second.Connections {
		t.Errorf("live connections %v, want the step's %d (its pool was open before the window)", m, second.Connections)
	}
	// In the engine's half-second interval at most slots/service calls a
	// second end, plus the c2 calls in service when the interval began:
	// at most 800 + 8/0.5 calls/s. Live calls are never 0 in a window.
	if m := s.metric("poolsweep_live_calls_per_second", l2); m == nil || m.GetGauge().GetValue() <= 0 || m.GetGauge().GetValue() > slots/serviceS+c2/0.5 {
		t.Errorf("live calls/s %v, want above 0 and at most %g", m, slots/serviceS+c2/0.5)
	}

	// The finished step: its record's figures.
	l1 := map[string]string{"target": first.Target, "concurrency": "2", "pool": "match", "trial": "1"}
	gauge := func(name string, want float64) {
		if m := s.metric(name, l1); m == nil || m.GetGauge().GetValue() != want {
			t.Errorf("%s = %v, want the record's %g", name, m, want)
		}
	}
	counter := func(name string, labels map[string]string, want int64) {
		if m := s.metric(name, labels); m == nil || m.GetCounter().GetValue() != float64(want) {
			t.Errorf("%s%v = %v, want the record's %d", name, labels, m, want)
		}
	}
	gauge("poolsweep_step_ops_per_second", first.OpsPerS)
	gauge("poolsweep_step_calls_per_second", first.CallsPerS)
	gauge("poolsweep_step_connections", float64(first.Connections))
	counter("poolsweep_calls_total", l1, first.Calls)
	counter("poolsweep_steps_finished_total", nil, 1)
	for op, st := range first.OpsByType {
		counter("poolsweep_ops_total", with2(l1, "op", op), st.Count)
		h, err := results.DecodeHistogram(first.Histograms.Ops[op])
		if err != nil {
			t.Fatal(err)
		}
		m := s.metric("poolsweep_op_latency_seconds", with2(l1, "op", op))
		if m == nil || m.GetHistogram().GetSampleCount() != uint64(h.TotalCount()) {
			t.Errorf("%s latency histogram %v, want the record's %d ops", op, m, h.TotalCount())
		} else if sum, want := m.GetHistogram().GetSampleSum(), h.Mean()*float64(h.TotalCount())/1e6; sum < want*(1-1e-12) || sum > want*(1+1e-12) {
			t.Errorf("%s latency sum %g s, want the record's %g s", op, sum, want)
		}
	}
	for kind, n := range map[string]int64{"timeout": first.Errors.Timeout, "network": first.Errors.Network, "server": first.Errors.Server} {
		counter("poolsweep_errors_total", with2(l1, "kind", kind), n)
	}
	if first.Bound != "" && s.metric("poolsweep_step_bound", with2(l1, "bound", first.Bound)) == nil {
		t.Errorf("no poolsweep_step_bound with bound=%s", first.Bound)
	}
	if m := s.metric("poolsweep_pool_checkout_wait_seconds", l1); m == nil || m.GetHistogram().GetSampleCount() == 0 {
		t.Errorf("pool checkout wait histogram %v", m)
	}
}

func with2(l map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range l {
		out[a] = b
	}
	return out
}

// TestMetricsListenRefused: a bad address, and a port already taken, are
// refused before anything starts (exit 2, one line naming the flag).
func TestMetricsListenRefused(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	port := strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct{ addr, want string }{
		{"9464", "is not host:port"},
		{"db.example.com:9464", "is not an IP address or localhost"},
		{"127.0.0.1:0", "port 0 picks a port no scraper knows"},
		{"127.0.0.1:65536", "between 0 and 65535"},
		{"127.0.0.1:" + port, "cannot listen on 127.0.0.1:" + port},
	} {
		dir := t.TempDir()
		code, _, stderr := runCLI(t, "sweep", "--target", "sim=sim:slots=1", "--out", filepath.Join(dir, "out"), "--metrics-listen", tc.addr)
		if code != errext.ExitUsage || !strings.HasPrefix(stderr, "poolsweep: --metrics-listen: ") || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("--metrics-listen %s: exit %d, %q; want 2 and one line with %q", tc.addr, code, stderr, tc.want)
		}
		if _, err := os.Lstat(filepath.Join(dir, "out")); err == nil {
			t.Errorf("--metrics-listen %s: the output directory was made", tc.addr)
		}
	}
}

// TestMetricsListenSpawn: --metrics-listen with --spawn. The launcher
// holds the port from before anything starts and hands it to agent 0,
// which serves its steps there; before, every agent was given the flag,
// none could bind the launcher's port, and the run always failed.
func TestMetricsListenSpawn(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("spawns agents against the simulator")
	}
	uri, _ := startServe(t, "--sim", "slots=4,service=2ms")
	addr := metricsAddr(t)
	out := filepath.Join(t.TempDir(), "out")
	done := make(chan struct{})
	var code int
	var stderr string
	go func() {
		defer close(done)
		code, _, stderr = runCLI(t, "sweep", "--spawn", "2", "--uri", uri, "--concurrency", "1,2", "--warmup", "200ms", "--duration", "1s",
			"--records", "200", "--op-timeout", "2s", "--no-plot", "--out", out, "--agent-timeout", "30s", "--metrics-listen", addr)
	}()
	measuring := 0
	scrapeUntil(t, addr, done, func(s scrape) {
		if s.metric("poolsweep_step_running", map[string]string{"phase": "measure"}) != nil {
			measuring++
		}
	})
	if code != 0 {
		t.Fatalf("sweep --spawn 2 --metrics-listen: exit %d\n%s", code, stderr)
	}
	if measuring == 0 {
		t.Fatal("no scrape during the run showed a step being measured")
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if len(res.Steps) != 2 {
		t.Fatalf("%d merged steps, want 2", len(res.Steps))
	}
}
