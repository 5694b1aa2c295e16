// Package livemetrics serves a running sweep as Prometheus metrics
// (github.com/prometheus/client_golang): the step being measured, with
// its live call rate and open connections, and every finished step's
// figures from its record — ops and calls counted, errors by kind, rates,
// connections, the bound, and latency histograms per operation type, per
// call and for the pool checkout wait, built from the record's own
// HdrHistograms. It is fed by the session's hooks and never prints.
package livemetrics

import (
	"net/http"
	"strconv"
	"sync"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

// stepLabels name a step in every metric: the series and the level.
var stepLabels = []string{"target", "workload", "concurrency", "pool", "clients", "trial"}

// Buckets are the latency histograms' upper bounds in seconds: 100 µs
// doubling to about 52 s, which covers an operation timeout of up to a
// minute in 20 buckets.
var Buckets = prometheus.ExponentialBuckets(0.0001, 2, 20)

func desc(name, help string, extra ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, append(append([]string{}, stepLabels...), extra...), nil)
}

// The metrics, by their exposition names.
var (
	descRunning     = desc("poolsweep_step_running", "1 for the step being measured now, with its phase (prewarm, warmup, measure).", "phase")
	descLiveCalls   = desc("poolsweep_live_calls_per_second", "Calls of the running step that ended in the engine's last half-second interval, per second.")
	descLiveConns   = desc("poolsweep_live_connections", "Open connections of the running step's pools, from the driver's pool events.")
	descOpsRate     = desc("poolsweep_step_ops_per_second", "A finished step's ops/s over its measured window (the record's ops_per_s).")
	descCallsRate   = desc("poolsweep_step_calls_per_second", "A finished step's calls/s over its measured window (the record's calls_per_s).")
	descConns       = desc("poolsweep_step_connections", "A finished step's open connections at its window's start (the record's connections).")
	descBound       = desc("poolsweep_step_bound", "1 with the bound of a finished step (client, pool, server, router_cpu, router_pool, network, none, failed).", "bound")
	descOps         = desc("poolsweep_ops_total", "Driver operations of each type that ended in a finished step's window, failed or not.", "op")
	descCalls       = desc("poolsweep_calls_total", "Workload calls that ended in a finished step's window, failed or not.")
	descErrors      = desc("poolsweep_errors_total", "Failed operations of a finished step, by kind (timeout, network, server).", "kind")
	descOpLatency   = desc("poolsweep_op_latency_seconds", "Latency of each operation type in a finished step's window.", "op")
	descCallLatency = desc("poolsweep_call_latency_seconds", "Latency of each call in a finished step's window.")
	descWait        = desc("poolsweep_pool_checkout_wait_seconds", "Pool checkout wait of each operation in a finished step's window.")
	descSteps       = prometheus.NewDesc("poolsweep_steps_finished_total", "Steps measured and written so far in this run.", nil, nil)
)

// Exporter holds what the metrics show. Its hooks may be called from the
// session's and the runner's goroutines.
type Exporter struct {
	mu       sync.Mutex
	reg      *prometheus.Registry
	running  *plan.StepSpec
	phase    string
	calls    float64
	open     int
	finished []finished
}

// finished is a step's record, as the metrics show it.
type finished struct {
	labels      []string
	opsPerS     float64
	callsPerS   float64
	connections int
	bound       string
	calls       int64
	ops         map[string]int64
	errors      results.ErrorCounts
	opLatency   map[string]histogram
	callLatency *histogram
	wait        *histogram
}

// histogram is a const histogram's content, in seconds.
type histogram struct {
	count   uint64
	sum     float64
	buckets map[float64]uint64
}

// New makes an exporter with a registry of its own (not the process's
// default one), holding only poolsweep's metrics.
func New() *Exporter {
	x := &Exporter{reg: prometheus.NewRegistry()}
	x.reg.MustRegister(x)
	return x
}

// Handler serves the metrics in Prometheus's exposition format.
func (x *Exporter) Handler() http.Handler {
	return promhttp.HandlerFor(x.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// Begin is the session's hook for a step about to start.
func (x *Exporter) Begin(_, _ int, spec plan.StepSpec) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.running, x.phase, x.calls, x.open = &spec, sweep.PhasePrewarm, 0, 0
}

// Progress is the runner's hook for the live view of the running step.
func (x *Exporter) Progress(p sweep.Progress) {
	x.mu.Lock()
	defer x.mu.Unlock()
	spec := p.Step
	x.running, x.phase, x.open = &spec, p.Phase, p.Open
	if p.Phase != sweep.PhasePrewarm {
		x.calls = p.CallsPerS
	}
}

// Step is the session's hook for a step measured and written.
func (x *Exporter) Step(_, _ int, st results.StepResult) {
	f := finished{
		labels:  []string{st.Target, st.Workload, strconv.Itoa(st.Concurrency), st.PoolSetting, strconv.Itoa(st.Clients), strconv.Itoa(st.Trial)},
		opsPerS: st.OpsPerS, callsPerS: st.CallsPerS, connections: st.Connections, bound: st.Bound,
		calls: st.Calls, ops: map[string]int64{}, errors: st.Errors, opLatency: map[string]histogram{},
	}
	for op, s := range st.OpsByType {
		f.ops[op] = s.Count
	}
	if h := st.Histograms; h != nil {
		for op, enc := range h.Ops {
			if hg, ok := decode(enc); ok {
				f.opLatency[op] = hg
			}
		}
		if hg, ok := decode(h.Call); ok {
			f.callLatency = &hg
		}
		if hg, ok := decode(h.CheckoutWait); ok {
			f.wait = &hg
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.finished = append(x.finished, f)
	x.running = nil
}

// decode turns a record's HdrHistogram of microseconds into a histogram
// of seconds on Buckets: each of HDR's value ranges is counted in the
// first bucket whose bound holds its highest value, so a bucket's count
// never includes a latency above its bound.
func decode(enc string) (histogram, bool) {
	if enc == "" {
		return histogram{}, false
	}
	h, err := results.DecodeHistogram(enc)
	if err != nil {
		return histogram{}, false
	}
	return fromHDR(h), true
}

func fromHDR(h *hdr.Histogram) histogram {
	// The sum is HDR's own mean times the count: each value at the middle
	// of its range.
	out := histogram{count: uint64(h.TotalCount()), sum: h.Mean() * float64(h.TotalCount()) / 1e6, buckets: make(map[float64]uint64, len(Buckets))}
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		top := float64(bar.To) / 1e6 // the range's highest value
		for _, b := range Buckets {
			if top <= b {
				out.buckets[b] += uint64(bar.Count)
				break
			}
		}
	}
	// Cumulative, as Prometheus's buckets are.
	var run uint64
	for _, b := range Buckets {
		run += out.buckets[b]
		out.buckets[b] = run
	}
	return out
}

// Describe sends every metric's description.
func (x *Exporter) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRunning, descLiveCalls, descLiveConns, descOpsRate, descCallsRate, descConns, descBound,
		descOps, descCalls, descErrors, descOpLatency, descCallLatency, descWait, descSteps} {
		ch <- d
	}
}

// Collect sends the metrics as they are now.
func (x *Exporter) Collect(ch chan<- prometheus.Metric) {
	x.mu.Lock()
	defer x.mu.Unlock()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	hist := func(d *prometheus.Desc, h *histogram, labels ...string) {
		if h != nil {
			ch <- prometheus.MustNewConstHistogram(d, h.count, h.sum, h.buckets, labels...)
		}
	}
	if s := x.running; s != nil {
		l := []string{s.Target, s.Workload, strconv.Itoa(s.Concurrency), s.PoolSetting, strconv.Itoa(s.Clients), strconv.Itoa(s.Trial)}
		gauge(descRunning, 1, with(l, x.phase)...)
		gauge(descLiveCalls, x.calls, l...)
		gauge(descLiveConns, float64(x.open), l...)
	}
	counter(descSteps, float64(len(x.finished)))
	for i := range x.finished {
		f := &x.finished[i]
		l := f.labels
		gauge(descOpsRate, f.opsPerS, l...)
		gauge(descCallsRate, f.callsPerS, l...)
		gauge(descConns, float64(f.connections), l...)
		if f.bound != "" {
			gauge(descBound, 1, with(l, f.bound)...)
		}
		counter(descCalls, float64(f.calls), l...)
		for op, n := range f.ops {
			counter(descOps, float64(n), with(l, op)...)
		}
		for kind, n := range map[string]int64{"timeout": f.errors.Timeout, "network": f.errors.Network, "server": f.errors.Server} {
			counter(descErrors, float64(n), with(l, kind)...)
		}
		for op, h := range f.opLatency {
			hist(descOpLatency, &h, with(l, op)...)
		}
		hist(descCallLatency, f.callLatency, l...)
		hist(descWait, f.wait, l...)
	}
}

// with is labels l and one more, in a slice of its own.
func with(l []string, v string) []string { return append(append(make([]string, 0, len(l)+1), l...), v) }
