package compare

import (
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/results"
)

// Metric names, the keys of Step.Metrics and of metrics.<name> in JSON.
const (
	OpsPerS              = "ops_per_s"
	ReadMeanUS           = "read_mean_us"
	ReadP99US            = "read_p99_us"
	WriteMeanUS          = "write_mean_us"
	WriteP99US           = "write_p99_us"
	ServerCPUPct         = "server_cpu_pct"
	ClientCPUPct         = "client_cpu_pct"
	serverReadLatencyUS  = "server_read_latency_us"
	serverWriteLatencyUS = "server_write_latency_us"
	metricErrors         = "errors"
)

// metricNames lists every metric in output order.
var metricNames = []string{
	OpsPerS, ReadMeanUS, ReadP99US, WriteMeanUS, WriteP99US,
	ServerCPUPct, ClientCPUPct, serverReadLatencyUS, serverWriteLatencyUS, metricErrors,
}

// metricDef says how to read one metric from a step and how to talk about it.
type metricDef struct {
	name    string
	unit    string // "ops/s", "µs", "%", "errors"
	title   string // table heading
	points  bool   // a percentage whose delta is told in percentage points
	extract func(*results.StepResult) (float64, bool)
}

var metricDefs = map[string]metricDef{
	OpsPerS: {OpsPerS, "ops/s", "ops/s", false, func(s *results.StepResult) (float64, bool) {
		return s.OpsPerS, true
	}},
	ReadMeanUS:   {ReadMeanUS, "µs", "read latency, mean (µs)", false, classMean(isRead)},
	ReadP99US:    {ReadP99US, "µs", "read latency, p99 (µs)", false, classP99(isRead)},
	WriteMeanUS:  {WriteMeanUS, "µs", "write latency, mean (µs)", false, classMean(isWrite)},
	WriteP99US:   {WriteP99US, "µs", "write latency, p99 (µs)", false, classP99(isWrite)},
	ServerCPUPct: {ServerCPUPct, "%", "server CPU (%)", true, serverField(func(t *results.ServerSample) *float64 { return t.CPUPct })},
	ClientCPUPct: {ClientCPUPct, "%", "client CPU (%)", true, func(s *results.StepResult) (float64, bool) {
		if s.Client == nil {
			return 0, false
		}
		return s.Client.CPUPct, true
	}},
	serverReadLatencyUS: {serverReadLatencyUS, "µs", "server read latency (µs)", false,
		serverField(func(t *results.ServerSample) *float64 { return t.ReadLatencyUS })},
	serverWriteLatencyUS: {serverWriteLatencyUS, "µs", "server write latency (µs)", false,
		serverField(func(t *results.ServerSample) *float64 { return t.WriteLatencyUS })},
	metricErrors: {metricErrors, "errors", "errors", false, func(s *results.StepResult) (float64, bool) {
		return float64(s.Errors.Total()), true
	}},
}

// classMean and classP99 read the mean and p99 latency of one op class.
func classMean(class func(op string) bool) func(*results.StepResult) (float64, bool) {
	return func(s *results.StepResult) (float64, bool) {
		m, _, ok := classLatency(s, class)
		return m, ok
	}
}

func classP99(class func(op string) bool) func(*results.StepResult) (float64, bool) {
	return func(s *results.StepResult) (float64, bool) {
		_, p, ok := classLatency(s, class)
		return p, ok
	}
}

// serverField reads one field of the server-wide sample; not known when
// the server was not sampled or did not report it.
func serverField(get func(*results.ServerSample) *float64) func(*results.StepResult) (float64, bool) {
	return func(s *results.StepResult) (float64, bool) {
		if t := serverTotal(s); t != nil && get(t) != nil {
			return *get(t), true
		}
		return 0, false
	}
}

// serverTotal is the server-wide sample: the total, or the only host when a
// sampler filled hosts without a total.
func serverTotal(s *results.StepResult) *results.ServerSample {
	if s.Server == nil {
		return nil
	}
	if s.Server.Total != nil {
		return s.Server.Total
	}
	if len(s.Server.Hosts) == 1 {
		for _, h := range s.Server.Hosts {
			return h
		}
	}
	return nil
}

// isRead and isWrite classify driver op types by results.OpClassOf, the one
// definition of the read and write classes.
func isRead(op string) bool { return results.OpClassOf(op) == results.OpClassRead }

func isWrite(op string) bool { return results.OpClassOf(op) == results.OpClassWrite }

// classLatency is the count-weighted mean latency (µs) of the op types in a
// class and their p99 (µs). With several types the exact combined p99 is
// not recoverable from summaries; the largest per-type p99 is used, which is
// an upper bound of it (every type is ≥ 99% below that value). ok is false
// when the step did no op of the class.
func classLatency(s *results.StepResult, in func(string) bool) (meanUS, p99US float64, ok bool) {
	var n int64
	var sum float64
	for op, st := range s.OpsByType {
		if !in(op) || st.Count <= 0 {
			continue
		}
		n += st.Count
		sum += float64(st.Count) * st.Latency.Mean
		p99US = max(p99US, st.Latency.P99*1000)
	}
	if n == 0 {
		return 0, 0, false
	}
	return sum / float64(n) * 1000, p99US, true
}

// opCounts adds the ops of a step to insert/read/update/other-write tallies.
type opCounts struct{ insert, read, update, otherWrite int64 }

func (c *opCounts) add(s *results.StepResult) {
	for op, st := range s.OpsByType {
		switch o := strings.ToLower(op); {
		case o == results.TypeInsert:
			c.insert += st.Count
		case o == results.TypeUpdate:
			c.update += st.Count
		case isRead(o):
			c.read += st.Count
		case isWrite(o):
			c.otherWrite += st.Count
		}
	}
}

// Workload classes, from the op types a workload actually issued.
const (
	classReadOnly  = "read-only"
	classWriteOnly = "write-only"
	classMixed     = "mixed read/write"
)

func (c opCounts) class() string {
	w := c.insert + c.update + c.otherWrite
	switch {
	case c.read > 0 && w > 0:
		return classMixed
	case c.read > 0:
		return classReadOnly
	case w > 0:
		return classWriteOnly
	}
	return ""
}

// mix is the observed insert:read:update split in whole percent, "" when
// no op was counted or other write types (delete, ...) make it incomplete.
func (c opCounts) mix() string {
	total := c.insert + c.read + c.update
	if total == 0 || c.otherWrite > 0 {
		return ""
	}
	pct := func(v int64) int { return int(float64(v)*100/float64(total) + 0.5) }
	return strconv.Itoa(pct(c.insert)) + ":" + strconv.Itoa(pct(c.read)) + ":" + strconv.Itoa(pct(c.update))
}
