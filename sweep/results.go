package sweep

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// SchemaVersion is the version of results.jsonl this package writes. Readers
// accept any file whose schema is <= SchemaVersion; later additions are new
// keys only, so old readers keep working.
const SchemaVersion = 1

// Record kinds, the value of "kind" on each line of results.jsonl.
const (
	KindRun  = "run"
	KindStep = "step"
	KindEnd  = "end"
)

// End statuses.
const (
	StatusComplete    = "complete"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
)

// RunHeader is the first line of results.jsonl: everything needed to know
// what produced the steps that follow, with credentials redacted.
type RunHeader struct {
	Kind        string         `json:"kind"`
	Schema      int            `json:"schema"`
	RunID       string         `json:"run_id"`
	ToolVersion string         `json:"tool_version"`
	StartedAt   time.Time      `json:"started_at"`
	Workload    WorkloadInfo   `json:"workload"`
	Plan        PlanInfo       `json:"plan"`
	Client      ClientInfo     `json:"client"`
	Targets     []TargetHeader `json:"targets"`
}

// WorkloadInfo describes the workload(s) of a run as recorded in the header.
type WorkloadInfo struct {
	Name          string             `json:"name"`
	Mix           map[string]float64 `json:"mix,omitempty"`
	Mixes         []string           `json:"mixes,omitempty"`
	OpsPerCall    float64            `json:"ops_per_call,omitempty"`
	Distribution  string             `json:"distribution"`
	Records       int                `json:"records"`
	FieldCount    int                `json:"field_count"`
	FieldLength   int                `json:"field_length"`
	MaxScanLength int                `json:"max_scan_length"`
	Database      string             `json:"database"`
	Collection    string             `json:"collection"`
	File          string             `json:"file,omitempty"`
}

// PlanInfo is the plan as the user gave it and as it was expanded.
type PlanInfo struct {
	Concurrency []int   `json:"concurrency"`
	Pool        string  `json:"pool"`            // "match" or the list as given
	Pools       []int   `json:"pools,omitempty"` // expanded pool list; empty for match
	Clients     int     `json:"clients"`
	Trials      int     `json:"trials"`
	WarmupS     float64 `json:"warmup_s"`
	DurationS   float64 `json:"duration_s"`
	OpTimeoutS  float64 `json:"op_timeout_s"`
	Order       string  `json:"order,omitempty"`
	Steps       int     `json:"steps"`
}

// ClientInfo describes the machine and software that generated the load.
type ClientInfo struct {
	CPUs          int    `json:"cpus"`
	GoVersion     string `json:"go_version"`
	DriverVersion string `json:"driver_version"`
	OS            string `json:"os,omitempty"`
	Arch          string `json:"arch,omitempty"`
	Hostname      string `json:"hostname,omitempty"`
}

// TargetHeader is one target as detected before the sweep started.
type TargetHeader struct {
	Name          string   `json:"name"`
	URI           string   `json:"uri"` // always redacted
	Topology      string   `json:"topology"`
	SetName       string   `json:"set_name,omitempty"`
	ServerVersion string   `json:"server_version"`
	ServerKind    string   `json:"server_kind"` // mongodb, ferretdb, simulator
	Hosts         []string `json:"hosts"`
	Shards        []string `json:"shards,omitempty"`
	SimSpec       string   `json:"sim_spec,omitempty"`
	Note          string   `json:"note,omitempty"`
}

// StepResult is one measured step: (target, concurrency, pool, clients,
// trial) after its warm-up. Counts include errors; latencies cover the
// measured window only.
type StepResult struct {
	Kind        string                 `json:"kind"`
	Target      string                 `json:"target"`
	Workload    string                 `json:"workload"`
	PoolSetting string                 `json:"pool_setting"` // "match" or the number, the series key
	Concurrency int                    `json:"concurrency"`
	MaxPoolSize int                    `json:"max_pool_size"`
	Clients     int                    `json:"clients"`
	Connections int                    `json:"connections"` // open connections seen by pool events at window start
	Trial       int                    `json:"trial"`
	StartedAt   time.Time              `json:"started_at"`
	DurationS   float64                `json:"duration_s"`
	Calls       int64                  `json:"calls"`
	Ops         int64                  `json:"ops"`
	CallsPerS   float64                `json:"calls_per_s"`
	OpsPerS     float64                `json:"ops_per_s"`
	Errors      ErrorCounts            `json:"errors"`
	ErrorSample string                 `json:"error_sample,omitempty"`
	Latency     LatencySummary         `json:"latency_ms"` // per call
	OpsByType   map[string]OpTypeStats `json:"ops_by_type"`
	Pool        PoolStats              `json:"pool"`
	Interrupted bool                   `json:"interrupted,omitempty"`

	// Telemetry; absent (nil) until a sampler fills it.
	Server      *ServerTelemetry `json:"server,omitempty"`
	Client      *ClientTelemetry `json:"client,omitempty"`
	LittlesLaw  *LittlesLaw      `json:"littles_law,omitempty"`
	Bound       string           `json:"bound,omitempty"`
	BoundReason string           `json:"bound_reason,omitempty"`
	Warnings    []string         `json:"warnings,omitempty"`
}

// ErrorCounts counts failed ops by kind.
type ErrorCounts struct {
	Timeout int64 `json:"timeout"`
	Network int64 `json:"network"`
	Server  int64 `json:"server"`
}

// Total is the number of failed ops of every kind.
func (e ErrorCounts) Total() int64 { return e.Timeout + e.Network + e.Server }

// LatencySummary is a latency distribution in milliseconds.
type LatencySummary struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
}

// OpTypeStats is the count, rate and latency of one driver operation type
// (find, update, insert, scan).
type OpTypeStats struct {
	Count   int64          `json:"count"`
	PerS    float64        `json:"per_s"`
	Errors  int64          `json:"errors"`
	Latency LatencySummary `json:"latency_ms"`
}

// PoolStats is what the driver's pool events said during the window.
type PoolStats struct {
	CheckoutWait       Quantiles `json:"checkout_wait_ms"`
	CheckoutFailed     int64     `json:"checkout_failed"`
	ConnectionsOpen    int       `json:"connections_open"`
	ConnectionsMax     int       `json:"connections_max"`
	ConnectionsCreated int64     `json:"connections_created"`
	PrewarmS           float64   `json:"prewarm_s"`
}

// Quantiles is a short distribution summary in milliseconds.
type Quantiles struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// ServerTelemetry is what the server(s) said about themselves during the
// window; nil fields mean "not reported by this server", never zero.
type ServerTelemetry struct {
	Hosts         map[string]*ServerSample `json:"hosts"`
	Total         *ServerSample            `json:"total"`
	SamplerErrors int                      `json:"sampler_errors"`
	SamplerError  string                   `json:"sampler_error,omitempty"`
	Shards        []string                 `json:"shards,omitempty"`
}

// ServerSample is one host's (or the sum of all hosts') window summary.
type ServerSample struct {
	Connections     *ConnCounts        `json:"connections"`
	OpcountersPerS  map[string]float64 `json:"opcounters_per_s"`
	ReadLatencyUS   *float64           `json:"read_latency_us"`
	WriteLatencyUS  *float64           `json:"write_latency_us"`
	Queue           *QueueCounts       `json:"queue"`
	ActiveClients   *float64           `json:"active_clients"`
	Tickets         *TicketCounts      `json:"tickets"`
	CPUPct          *float64           `json:"cpu_pct"`
	RSSMB           *float64           `json:"rss_mb"`
	NetInBytesPerS  *float64           `json:"net_in_bytes_per_s"`
	NetOutBytesPerS *float64           `json:"net_out_bytes_per_s"`
	ConnPool        *ConnPoolCounts    `json:"conn_pool,omitempty"`
	Samples         int                `json:"samples"`
	// InFlight is the server's mean ops in flight over the window by
	// Little's law (its read+write ops/s × their mean server latency, queue
	// wait included); nil when the server reports no opLatencies.
	InFlight *float64 `json:"in_flight"`
	// Cores is the host's core count from hostInfo (per host; nil on Total
	// and where the server does not answer).
	Cores *int `json:"cores"`
}

// ConnCounts is serverStatus.connections over the window.
type ConnCounts struct {
	Current     *float64 `json:"current"`
	Available   *float64 `json:"available"`
	CreatedPerS *float64 `json:"created_per_s"`
}

// QueueCounts is globalLock.currentQueue, averaged over the window.
type QueueCounts struct {
	Readers *float64 `json:"readers"`
	Writers *float64 `json:"writers"`
}

// TicketCounts is execution tickets (queues.execution or
// wiredTiger.concurrentTransactions), averaged over the window.
type TicketCounts struct {
	InUse     *float64 `json:"in_use"`
	Available *float64 `json:"available"`
	Queued    *float64 `json:"queued"`
}

// ConnPoolCounts is a router's connPoolStats totals.
type ConnPoolCounts struct {
	InUse     *float64 `json:"in_use"`
	Available *float64 `json:"available"`
	Created   *float64 `json:"created"`
}

// ClientTelemetry is this process, and the load host it runs on, during
// the window. The host fields are nil where the platform has no source.
type ClientTelemetry struct {
	CPUPct     float64 `json:"cpu_pct"`
	CPUs       int     `json:"cpus"`
	GCPauseMS  float64 `json:"gc_pause_ms"`
	Goroutines int     `json:"goroutines"`

	// CPUPressurePct is PSI "some" for CPU (/proc/pressure/cpu): the share
	// of wall time in which at least one runnable task waited for a CPU.
	CPUPressurePct *float64 `json:"cpu_pressure_pct"`
	// HostCPUs is how many CPUs HostCPUPct and OthersCPUPct are shares of.
	HostCPUs *int `json:"host_cpus"`
	// HostCPUPct is the host's busy CPU (/proc/stat), in % of all cores.
	HostCPUPct *float64 `json:"host_cpu_pct"`
	// OthersCPUPct is the host's busy CPU not spent by this process, in %
	// of all cores.
	OthersCPUPct *float64 `json:"others_cpu_pct"`
	// SchedLatencyP50MS and SchedLatencyP99MS are how long this process's
	// runnable goroutines waited to run (runtime/metrics
	// /sched/latencies:seconds over the window).
	SchedLatencyP50MS *float64 `json:"sched_latency_p50_ms"`
	SchedLatencyP99MS *float64 `json:"sched_latency_p99_ms"`
	// RunQueueWaitPct is the share of the time this process's threads
	// wanted a CPU that they spent waiting for one (Linux
	// /proc/self/task/*/schedstat): the starvation the OS imposed on us,
	// which the Go scheduler's own latency cannot see while our threads
	// sleep in epoll.
	RunQueueWaitPct *float64 `json:"run_queue_wait_pct"`
}

// LittlesLaw compares the configured in-flight calls with calls/s × latency.
type LittlesLaw struct {
	ExpectedInFlight float64 `json:"expected_in_flight"`
	MeasuredInFlight float64 `json:"measured_in_flight"`
	DeviationPct     float64 `json:"deviation_pct"`
	OK               bool    `json:"ok"`
}

// EndRecord is the last line of a results file.
type EndRecord struct {
	Kind       string    `json:"kind"`
	Status     string    `json:"status"`
	Reason     string    `json:"reason"`
	FinishedAt time.Time `json:"finished_at"`
	Steps      int       `json:"steps"`
}

// SeriesKey names the series a step belongs to (target × workload × pool
// setting); "match" pools form one series.
func (s StepResult) SeriesKey() string {
	k := s.Target + " · pool=" + s.PoolSetting
	if s.Clients > 1 {
		k += " · clients=" + strconv.Itoa(s.Clients)
	}
	return k
}

// ResultsWriter appends records to results.jsonl and fsyncs after each, so
// that a sweep killed at any moment keeps every finished step.
type ResultsWriter struct {
	f     *os.File
	path  string
	steps int // step records written through this writer
}

// CreateResults creates (or truncates) path for a new run.
func CreateResults(path string) (*ResultsWriter, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create results: %w", err)
	}
	return &ResultsWriter{f: f, path: path}, nil
}

// AppendResults opens an existing results file to continue it (--resume).
func AppendResults(path string) (*ResultsWriter, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open results: %w", err)
	}
	return &ResultsWriter{f: f, path: path}, nil
}

// Write encodes one record as a line and fsyncs it.
func (w *ResultsWriter) Write(rec any) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode record: %w", err)
	}
	b = append(b, '\n')
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("write %s: %w", w.path, err)
	}
	if err := w.f.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", w.path, err)
	}
	if _, ok := rec.(StepResult); ok {
		w.steps++
	}
	return nil
}

// StepsWritten is how many step records this writer has written.
func (w *ResultsWriter) StepsWritten() int { return w.steps }

// Close closes the file.
func (w *ResultsWriter) Close() error { return w.f.Close() }

// Results is a decoded results.jsonl.
type Results struct {
	Path   string
	Header RunHeader
	Steps  []StepResult
	End    *EndRecord // nil when the run never wrote its closing record
}

// ErrNotResults is returned when a file is not a poolsweep results file.
var ErrNotResults = errors.New("not a poolsweep results file")

// LineError locates a decoding problem in a results file.
type LineError struct {
	Path string
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("%s:%d: %v", e.Path, e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// ReadResultsFile decodes path.
func ReadResultsFile(path string) (*Results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadResults(f, path)
}

// ReadResults decodes a results stream. A truncated last line (a run killed
// mid-write) is an error naming the line; unknown keys are ignored.
func ReadResults(r io.Reader, name string) (*Results, error) {
	res := &Results{Path: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		var probe struct {
			Kind   string `json:"kind"`
			Schema int    `json:"schema"`
		}
		if err := json.Unmarshal(b, &probe); err != nil {
			if line == 1 {
				return nil, &LineError{name, line, ErrNotResults}
			}
			return nil, &LineError{name, line, fmt.Errorf("not a JSON record (truncated file?): %w", err)}
		}
		if line == 1 && probe.Kind != KindRun {
			return nil, &LineError{name, line, fmt.Errorf("%w: first line has kind %q, want \"run\"", ErrNotResults, probe.Kind)}
		}
		switch probe.Kind {
		case KindRun:
			if line != 1 {
				return nil, &LineError{name, line, errors.New("a second run header; concatenated files are not supported")}
			}
			if probe.Schema < 1 || probe.Schema > SchemaVersion {
				return nil, &LineError{name, line, fmt.Errorf("schema %d is not supported (this poolsweep reads 1..%d)", probe.Schema, SchemaVersion)}
			}
			if err := json.Unmarshal(b, &res.Header); err != nil {
				return nil, &LineError{name, line, err}
			}
		case KindStep:
			var s StepResult
			if err := json.Unmarshal(b, &s); err != nil {
				return nil, &LineError{name, line, err}
			}
			if s.PoolSetting == "" {
				s.PoolSetting = strconv.Itoa(s.MaxPoolSize)
			}
			res.Steps = append(res.Steps, s)
		case KindEnd:
			var e EndRecord
			if err := json.Unmarshal(b, &e); err != nil {
				return nil, &LineError{name, line, err}
			}
			res.End = &e
		default:
			return nil, &LineError{name, line, fmt.Errorf("unknown record kind %q", probe.Kind)}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if line == 0 {
		return nil, &LineError{name, 1, fmt.Errorf("%w: the file is empty", ErrNotResults)}
	}
	return res, nil
}
