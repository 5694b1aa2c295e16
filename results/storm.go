package results

import (
	"math"
	"time"
)

// KindStorm is the kind of a connection-storm record (poolsweep storm).
const KindStorm = "storm"

// Bounds of a storm (poolsweep storm): its clients and their pools.
const (
	MaxStormClients = 1000  // K: independent clients opening their pools at once
	MaxStormPool    = 1000  // P: each client's pool
	MaxConnecting   = 1024  // the driver's maxConnecting
	MaxStormConns   = 50000 // K·P·pools of one storm
	MaxTargetHosts  = 1000  // hosts (mongos) of one target
)

// StormPlan is a storm run's settings, in the run header.
type StormPlan struct {
	Clients         []int   `json:"clients"`
	Pool            int     `json:"pool"`
	MaxConnecting   []int   `json:"max_connecting"`
	TimeoutS        float64 `json:"timeout_s"`
	ProbeIntervalMs float64 `json:"probe_interval_ms"`
}

// StormResult is one measured connection storm: K independent clients,
// each opening a pool of P connections with the driver's maxConnecting,
// all at once against one target.
type StormResult struct {
	Kind    string `json:"kind"`
	Target  string `json:"target"`
	Clients int    `json:"clients"`
	Pool    int    `json:"pool"`
	// PoolsPerClient is the pools each client fills: one per mongos of a
	// sharded cluster, 1 otherwise.
	PoolsPerClient int       `json:"pools_per_client"`
	MaxConnecting  int       `json:"max_connecting"`
	Trial          int       `json:"trial"`
	StartedAt      time.Time `json:"started_at"`
	// Wanted is K·P·PoolsPerClient; Ready the pool connections that became ready before
	// the storm ended (every pool full, or the timeout).
	Wanted int `json:"connections_wanted"`
	Ready  int `json:"connections_ready"`
	// FillS is the time from the start until every pool was full; nil
	// when some pool was not full at the timeout. DurationS is how long
	// the storm ran (FillS, or the timeout).
	FillS     *float64 `json:"fill_s"`
	DurationS float64  `json:"duration_s"`
	// PoolFillMs is each pool's time to full, over the pools that filled.
	PoolFillMs Quantiles `json:"pool_fill_ms"`
	// Accepted is the connections the server created during the storm
	// (serverStatus connections.totalCreated, summed over the hosts), and
	// AcceptPerS their rate over DurationS; nil when not reported.
	Accepted   *float64 `json:"accepted"`
	AcceptPerS *float64 `json:"accept_per_s"`
	// ConnectErrors are pool connections that failed to be set up;
	// ErrorSample the first such error.
	ConnectErrors int64  `json:"connect_errors"`
	ErrorSample   string `json:"error_sample,omitempty"`
	Probe         Probe  `json:"probe"`
	// ServerHosts and ServerTotal are the server's telemetry over the
	// storm (serverStatus sampled on every host), as in a step's server
	// section; nil without telemetry.
	ServerHosts map[string]*ServerSample `json:"server_hosts,omitempty"`
	ServerTotal *ServerSample            `json:"server_total,omitempty"`
	// Client is this process and its load host during the storm; nil
	// without telemetry.
	Client   *ClientTelemetry `json:"client,omitempty"`
	Warnings []string         `json:"warnings,omitempty"`
}

// Probe is what a client connected before the storm saw during it.
type Probe struct {
	IntervalMs float64        `json:"interval_ms"`
	Ops        int64          `json:"ops"`
	Errors     int64          `json:"errors"`
	Latency    LatencySummary `json:"latency_ms"`
}

// ValidateStorm checks a storm record's fields against their meaning.
func ValidateStorm(s *StormResult, h *RunHeader) error {
	c := &check{}
	c.oneOf("storm.kind", s.Kind, []string{KindStorm})
	c.target("storm.target", s.Target, h)
	c.between("storm.clients", int64(s.Clients), 1, MaxStormClients)
	c.between("storm.pool", int64(s.Pool), 1, MaxStormPool)
	c.between("storm.max_connecting", int64(s.MaxConnecting), 1, MaxConnecting)
	c.between("storm.trial", int64(s.Trial), 1, MaxTrials)
	if s.StartedAt.IsZero() {
		c.fail("storm.started_at", "missing: when the storm started")
	}
	c.between("storm.pools_per_client", int64(s.PoolsPerClient), 1, MaxTargetHosts)
	if want := s.Clients * s.Pool * s.PoolsPerClient; s.Wanted != want {
		c.fail("storm.connections_wanted", "%d is not clients × pool × pools_per_client = %d", s.Wanted, want)
	}
	c.between("storm.connections_ready", int64(s.Ready), 0, int64(s.Wanted))
	if d := s.DurationS; math.IsNaN(d) || d <= 0 || d > MaxWindowS {
		c.fail("storm.duration_s", "%v is not a length of time", d)
	}
	if f := s.FillS; f != nil {
		c.nonNeg("storm.fill_s", *f)
		if s.Ready != s.Wanted {
			c.fail("storm.fill_s", "set although %d of %d connections were ready", s.Ready, s.Wanted)
		}
	}
	c.quantiles("storm.pool_fill_ms", s.PoolFillMs)
	c.optNonNeg("storm.accepted", s.Accepted)
	c.optNonNeg("storm.accept_per_s", s.AcceptPerS)
	c.count("storm.connect_errors", s.ConnectErrors)
	c.nonNeg("storm.probe.interval_ms", s.Probe.IntervalMs)
	c.count("storm.probe.ops", s.Probe.Ops)
	c.count("storm.probe.errors", s.Probe.Errors)
	c.latency("storm.probe.latency_ms", s.Probe.Latency)
	for _, host := range sortedKeys(s.ServerHosts) {
		if hs := s.ServerHosts[host]; hs != nil {
			c.count("storm.server_hosts."+host+".samples", int64(hs.Samples))
			checkEstablishment(c, "storm.server_hosts."+host, hs)
		}
	}
	checkEstablishment(c, "storm.server_total", s.ServerTotal)
	c.client("storm.client", s.Client)
	if h != nil && h.Plan.Storm == nil {
		c.fail("storm", "a storm record in a run whose header has no plan.storm")
	}
	return c.result()
}

// checkStormPlan checks the header's storm plan.
func checkStormPlan(c *check, p *StormPlan) {
	if p == nil {
		return
	}
	if len(p.Clients) == 0 {
		c.fail("run.plan.storm.clients", "empty")
	}
	levels(c, "run.plan.storm.clients", p.Clients, MaxStormClients)
	c.between("run.plan.storm.pool", int64(p.Pool), 1, MaxStormPool)
	if len(p.MaxConnecting) == 0 {
		c.fail("run.plan.storm.max_connecting", "empty")
	}
	levels(c, "run.plan.storm.max_connecting", p.MaxConnecting, MaxConnecting)
	c.nonNeg("run.plan.storm.timeout_s", p.TimeoutS)
	c.nonNeg("run.plan.storm.probe_interval_ms", p.ProbeIntervalMs)
}
