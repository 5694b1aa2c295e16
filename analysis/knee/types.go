// Package knee finds where a throughput-versus-concurrency curve saturates:
// peak, several independent knee methods, a USL fit, their consensus with
// its uncertainty, and a pool-size recommendation. Pure functions of the
// records of package results (or a CSV of the same numbers); no I/O beyond
// decoding what it is handed, and nothing of the engine that measured
// them. It computes only: analysis/render draws its reports as text and
// JSON. It is the one knee definition: the adaptive search and every
// report ask it, and never decide a knee of their own. The open loop's
// analysis (carried rates per pool) is analysis/openloop.
package knee

import "time"

// Point is one measured step as the analysis sees it. Several points with
// the same Concurrency are trials of one level.
type Point struct {
	Concurrency   int     // per client
	Connections   int     // K × min(C, P) as measured; 0 when unknown
	QPS           float64 // ops/s (total over all clients)
	CallsPerS     float64 // 0 when unknown
	P99Ms         float64 // NaN or 0 when unknown (HasP99 says which)
	HasP99        bool
	PoolWaitP99Ms float64
	MeanLatencyMs float64
	MaxPoolSize   int
	Trial         int
	Bound         string // "client", "pool", "server", "router_cpu", "router_pool", "network", "none" or "" when unknown
	BoundReason   string
	// ServerInFlight is the server's operations in flight during the step
	// (server ops/s × mean server latency, Little's law); HasServerInFlight
	// says whether the server reported the latency it needs.
	ServerInFlight    float64
	HasServerInFlight bool
	// HalfWidthPct is the relative 95% half-width of the step's throughput
	// by the batch means of its window (results.StepSteady), when
	// HasInterval; it gives a level measured once an interval of its own
	// (batchinterval.go). Unsettled marks a step whose auto warm-up never
	// found the end of its transient.
	HalfWidthPct float64
	HasInterval  bool
	Unsettled    bool
}

// Series is one curve: target × workload × pool setting (× clients).
type Series struct {
	Target   string
	Workload string
	Pool     string // "match" or a number
	Clients  int    // K; 1 when unknown
	Topology string // standalone, replset, sharded or ""
	Hosts    int    // number of hosts (mongos for sharded); 1 when unknown
	// ReadPreference is the series' value on the --read-preference axis
	// ("" when not swept); HostsReached the most servers its steps' ops
	// went to, and HostPools the most servers they kept a pool to (from
	// pool.hosts; 0 in files without it).
	ReadPreference string
	HostsReached   int
	HostPools      int
	Points         []Point
	// Warnings found while building the series (skipped steps, mixed
	// files); Analyze carries them into Report.Warnings.
	Warnings []string
}

// Options tune the analysis; the zero value is not valid, use DefaultOptions.
type Options struct {
	Plateau   float64       // fraction of peak for the plateau knee (0.95)
	MinGain   float64       // marginal gain threshold per doubling (0.10)
	SLOP99    time.Duration // 0 = no SLO knee
	Bootstrap int           // bootstrap resamples (1000)
	Seed      int64         // for reproducible bootstrap
	// Headroom is the recommended concurrency as a fraction of the knee
	// (1 = run at the knee; the pool cap then keeps bursts from pushing the
	// server past it). Values outside (0, 1] mean 1.
	Headroom float64
}

// DefaultOptions are the documented defaults of `poolsweep analyze`.
func DefaultOptions() Options {
	return Options{Plateau: 0.95, MinGain: 0.10, Bootstrap: 1000, Seed: 1, Headroom: 1}
}

// Level is one concurrency level aggregated over trials.
type Level struct {
	Concurrency int
	Connections int
	Trials      int
	QPS         float64 // median over trials
	QPSLow      float64 // 95% interval (= QPS with one trial)
	QPSHigh     float64
	QPSMean     float64
	P99Ms       *float64 // median; nil when unknown
	// ServerInFlight is the median of the trials' server in-flight
	// operations; nil unless every trial of the level has one.
	ServerInFlight *float64
	Bound          string
	// PoolWaitP99Ms and MeanLatencyMs are medians over trials (0 when
	// unknown); MaxPoolSize is the largest configured pool seen. They feed
	// the pool-bound test.
	PoolWaitP99Ms float64
	MeanLatencyMs float64
	MaxPoolSize   int
}

// Peak is the highest median throughput.
type Peak struct {
	Concurrency int
	QPS         float64
}

// Knee is the consensus knee and its uncertainty.
type Knee struct {
	Found       bool
	Concurrency int // 0 when not found
	Low         int
	High        int
	QPS         float64
	Confidence  string // "high", "medium", "low", "unconfirmed", "none"
	Statement   string
	// Stability is the fraction of bootstrap resamples whose consensus knee
	// is this one; nil when no bootstrap ran (fewer than 3 trials a level).
	Stability *float64
	Resamples int
	// LoadHostLimited lists the concurrency levels, among those that
	// decided the knee (or, with no knee, those from the peak on), where at
	// least half the trials were labelled client-bound: their numbers are
	// the load host's, not the server's. Confidence is then at most low.
	LoadHostLimited []int
}

// Method is one knee method's answer; Concurrency is nil when the method
// found no knee or was not run, and Note says why.
type Method struct {
	Concurrency *int   `json:"concurrency"`
	Note        string `json:"note,omitempty"`
}

// USL is a Universal Scalability Law fit X(N) = λN / (1 + σ(N−1) + κN(N−1)).
// A fit whose R² is below MinUSLR2 is Fitted but Rejected: its parameters
// and R² are kept, its peak (NStar, PeakQPS) and Bound are not.
type USL struct {
	Fitted   bool
	Skipped  string // why, when not fitted
	Rejected string // why the fit is not used, when fitted
	Lambda   float64
	Sigma    float64
	Kappa    float64
	NStar    *float64 // nil (JSON null) when κ = 0: no finite peak
	// PeakQPS is the fitted throughput at N*. With no finite peak it is the
	// asymptote λ/σ the curve approaches (σ > 0) or 0 (a straight line); the
	// JSON then has peak_qps null and asymptote_qps.
	PeakQPS float64
	R2      float64
	Bound   string // "contention", "coherency", "linear"
	Points  int    // trial points fitted
}

// Accepted says the fit describes the curve: fitted, with R² at least
// MinUSLR2. Only an accepted fit is drawn or stated as a peak.
func (u USL) Accepted() bool { return u.Fitted && u.Rejected == "" }

// Eval is the fitted throughput at concurrency n.
func (u USL) Eval(n float64) float64 {
	return u.Lambda * n / (1 + u.Sigma*(n-1) + u.Kappa*n*(n-1))
}

// Methods groups each method's answer.
type Methods struct {
	Plateau  Method
	Kneedle  Method
	Marginal Method
	SLO      Method
	// ServerInFlight is where the server's in-flight operations stop
	// rising; it joins the consensus when the server reports latency.
	ServerInFlight Method
	USL            USL
}

// Retrograde says throughput fell past the peak by more than the noise.
type Retrograde struct {
	From    int     `json:"from"` // first concurrency past the peak that is significantly lower
	DropPct float64 `json:"drop_pct"`
	To      int     `json:"to"` // the level with the largest drop
}

// Recommendation is what to configure.
type Recommendation struct {
	Concurrency int // per client
	MaxPoolSize int // per client per host
	// HostsReached is how many servers the ops went to (a replica set's
	// members by read preference, mongos), so a client holds up to
	// MaxPoolSize × HostsReached connections in use; 0 when not known.
	HostsReached int
	Why          string
	PoolBound    bool
}

// Report is the analysis of one series.
type Report struct {
	Target         string
	Workload       string
	Pool           string
	Clients        int
	Levels         []Level
	Peak           Peak
	Knee           Knee
	Methods        Methods
	Retrograde     *Retrograde
	Recommendation Recommendation
	BoundPastKnee  string
	Verdict        string
	Warnings       []string
}
