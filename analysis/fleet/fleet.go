package fleet

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/conncost"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/openloop"
	"github.com/poolsweep/poolsweep/results"
)

// Defaults and bounds of the plan's inputs.
const (
	// DefaultConnMemoryMiB is the server memory one connection costs: about
	// 1 MiB on mongod (see the package documentation).
	DefaultConnMemoryMiB = 1.0
	// monitoringPerInstance is the connections a driver opens to each host
	// of a 4.4 or later server besides its pool: the monitor and the
	// round-trip monitor (monitorsOf decides it per target).
	monitoringPerInstance = 2
	// maxRows bounds the table.
	maxRows = 12
)

// Options are what the plan is asked.
type Options struct {
	// Instances is the fleet's size, N ≥ 1.
	Instances int
	// Concurrency is each instance's callers; 0 means the measured knee's
	// concurrency per client.
	Concurrency int
	// MaxConnections is the connection limit per host; 0 means learn it
	// from the results' telemetry.
	MaxConnections int
	// ConnMemoryMiB is the server memory per connection; 0 means
	// DefaultConnMemoryMiB, an assumption the plan says is one.
	ConnMemoryMiB float64
	// Costs, when not nil, is a connection sweep's measured cost of a
	// connection (conncost.Estimate): its memory per connection and its
	// monitors per client replace the assumed ones. CostsFrom names the
	// file it was measured in.
	Costs     *conncost.Cost
	CostsFrom string
	// Limit, when not nil, is a named limit per host (--limit atlas:M30);
	// MaxConnections, when given, comes first.
	Limit *LimitSpec
	// Trace, when not nil, is an autoscaling fleet's instance counts over
	// time: each series adds its Scaling at the recommended pool.
	Trace *Trace
	// Storm, when not nil, is a storm run (poolsweep storm) of the same
	// deployment: its connection-setup saturation is put beside the knee
	// (Setup). One of another deployment is a *MismatchError.
	Storm *results.Results
}

// ErrNothing says the results hold nothing a plan can be made of.
var ErrNothing = errors.New("no closed- or open-loop series to plan from")

// Plan is the fleet's budget for every series of the analysis.
type Plan struct {
	Instances     int     `json:"instances"`
	ConnMemoryMiB float64 `json:"conn_memory_mib"`
	Memory        Memory  `json:"memory"`
	// CPU is the measured server CPU per idle connection; nil unless a
	// connection sweep gave it.
	CPU    *CPU         `json:"cpu_per_connection,omitempty"`
	Series []SeriesPlan `json:"series"`
	Open   []OpenPlan   `json:"open"`
}

// Routing is how the fleet's connections reach a target's hosts.
type Routing struct {
	Target   string   `json:"target"`
	Topology string   `json:"topology"`
	Hosts    []string `json:"hosts"`
	// Serving is k, the hosts that share the load (see the package
	// documentation); ReadPreference is the replica set's, from the
	// target's URI ("" when none was given: primary).
	Serving        int    `json:"serving"`
	ReadPreference string `json:"read_preference,omitempty"`
	// Why says how Serving was decided.
	Why string `json:"why"`
}

// Limit is the connection limit per host and where it comes from.
type Limit struct {
	PerHost *int   `json:"per_host"` // nil when unknown
	Source  string `json:"source"`
}

// Row is one pool size's outcome for the fleet.
type Row struct {
	MaxPoolSize        int      `json:"max_pool_size"`
	ConnectionsPerHost int      `json:"connections_per_host"` // N·(P + monitoring)
	LimitPct           *float64 `json:"limit_pct"`            // nil when the limit is unknown
	MemoryMiBPerHost   float64  `json:"memory_mib_per_host"`
	InFlightPerHost    float64  `json:"in_flight_per_host"` // n / k
	OpsPerS            float64  `json:"ops_per_s"`
	CallsPerS          float64  `json:"calls_per_s"`
	ConnTimeMs         float64  `json:"conn_time_ms"` // n / X per call
	PoolQueue          float64  `json:"pool_queue"`   // calls
	PoolWaitMs         float64  `json:"pool_wait_ms"` // per call
	Extrapolated       bool     `json:"extrapolated,omitempty"`
	PastKnee           bool     `json:"past_knee,omitempty"`
	OverLimit          bool     `json:"over_limit,omitempty"`
}

// Recommendation is the pool size to configure and why.
type Recommendation struct {
	MaxPoolSize        int      `json:"max_pool_size"`
	ConnectionsPerHost int      `json:"connections_per_host"`
	LimitPct           *float64 `json:"limit_pct"`
	Statement          string   `json:"statement"`
	Reasons            []string `json:"reasons"`
}

// RouterPools are a router's measured connections to its shards at the
// knee (connPoolStats), for a sharded target.
type RouterPools struct {
	Router  string   `json:"router"`
	InUse   *float64 `json:"in_use"`
	Created *float64 `json:"created"`
}

// SeriesPlan is the plan for one closed-loop series.
type SeriesPlan struct {
	Routing
	Workload string `json:"workload,omitempty"`
	Pool     string `json:"pool"`
	// Measured is what the plan starts from.
	MeasuredClients int     `json:"measured_clients"`
	KneeFound       bool    `json:"knee_found"`
	KneeConcurrency int     `json:"knee_concurrency"` // per client
	KneeConfidence  string  `json:"knee_confidence"`
	KneeInFlight    float64 `json:"knee_in_flight"`          // over all clients
	KneePerHost     float64 `json:"knee_in_flight_per_host"` // / k
	KneeOpsPerS     float64 `json:"knee_ops_per_s"`
	OpsPerCall      float64 `json:"ops_per_call"`
	// Monitors is the connections each instance holds to every host
	// beside its pool, and MonitorsSource why (see monitorsOf).
	Monitors       int    `json:"monitors_per_instance"`
	MonitorsSource string `json:"monitors_source"`
	// FitPool is the largest maxPoolSize whose connections, monitors
	// counted, stay within the limit per host; nil when the limit is
	// unknown, 0 when not even 1 fits.
	FitPool *int `json:"largest_pool_within_limit,omitempty"`
	// Demand is each instance's callers (C).
	Demand       int            `json:"demand_per_instance"`
	DemandSource string         `json:"demand_source"`
	Limit        Limit          `json:"limit"`
	Rows         []Row          `json:"rows"`
	Recommended  Recommendation `json:"recommendation"`
	RouterPools  []RouterPools  `json:"router_pools,omitempty"`
	// Setup is the storm run's connection setup beside the knee; nil
	// without one (or when it measured another target).
	Setup *Setup `json:"connection_setup,omitempty"`
	// Scaling is the autoscaling fleet's trace at the recommended pool;
	// nil without a trace.
	Scaling  *Scaling `json:"scaling,omitempty"`
	Warnings []string `json:"warnings,omitempty"`
}

// mostClients keeps, of the open-loop series that differ only in their
// client count (a connection sweep: one rate shared by 10, 100, 1000
// clients), the one with the most clients: a fleet of instances is most
// like the most clients measured, and one plan per level would say the
// same thing several times.
func mostClients(reports []openloop.Report) []openloop.Report {
	type key struct{ target, workload string }
	best := map[key]int{}
	for i, r := range reports {
		k := key{r.Target, r.Workload}
		if j, ok := best[k]; !ok || r.Clients > reports[j].Clients {
			best[k] = i
		}
	}
	var out []openloop.Report
	for i, r := range reports {
		if best[key{r.Target, r.Workload}] == i {
			out = append(out, r)
		}
	}
	return out
}

// Make plans the fleet for every series of a (the analysis of rs).
func Make(rs []*results.Results, a *analysis.Analysis, o Options) (*Plan, error) {
	if o.Instances < 1 {
		return nil, fmt.Errorf("instances: %d is not a fleet", o.Instances)
	}
	mem := memoryOf(o)
	o.ConnMemoryMiB = mem.MiB
	p := &Plan{Instances: o.Instances, ConnMemoryMiB: mem.MiB, Memory: mem, CPU: cpuOf(o)}
	for _, r := range a.Series {
		if len(r.Levels) == 0 {
			continue
		}
		p.Series = append(p.Series, planSeries(rs, r, o))
	}
	for _, r := range mostClients(a.Open) {
		if op, ok := planOpen(rs, r, o); ok {
			p.Open = append(p.Open, op)
		}
	}
	if len(p.Series) == 0 && len(p.Open) == 0 {
		return nil, ErrNothing
	}
	if o.Storm != nil {
		if err := p.attachSetup(o.Storm, rs); err != nil {
			return nil, err
		}
	}
	if o.Trace != nil {
		for i := range p.Series {
			p.Series[i].Scaling = scalingOf(o.Trace, &p.Series[i], o.Storm)
		}
	}
	return p, nil
}

// planSeries plans one closed-loop series.
func planSeries(rs []*results.Results, r knee.Report, o Options) SeriesPlan {
	sp := SeriesPlan{Routing: routing(rs, r.Target), Workload: r.Workload, Pool: r.Pool,
		MeasuredClients: max(r.Clients, 1), OpsPerCall: opsPerCall(rs)}
	k := sp.Serving
	c := newCurve(r.Levels, sp.MeasuredClients, k)
	sp.KneeConfidence = r.Knee.Confidence
	if r.Knee.Found {
		sp.KneeFound, sp.KneeConcurrency = true, r.Knee.Concurrency
		sp.KneeInFlight = inFlight(r.Knee.Concurrency, levelPool(r.Levels, r.Knee.Concurrency), sp.MeasuredClients, k)
		sp.KneeOpsPerS = r.Knee.QPS
	} else {
		last := r.Levels[len(r.Levels)-1]
		sp.KneeConcurrency = last.Concurrency
		sp.KneeInFlight = inFlight(last.Concurrency, last.MaxPoolSize, sp.MeasuredClients, k)
		sp.KneeOpsPerS = last.QPS
		sp.Warnings = append(sp.Warnings, fmt.Sprintf("no knee within the tested range: the plan takes the highest level measured (%d calls in flight) as the knee, a lower bound", int(sp.KneeInFlight)))
	}
	sp.KneePerHost = sp.KneeInFlight / float64(k)
	sp.Demand, sp.DemandSource = o.Concurrency, "--concurrency"
	if sp.Demand < 1 {
		sp.Demand = max(r.Recommendation.Concurrency, sp.KneeConcurrency, 1)
		sp.DemandSource = "the measured client's concurrency at its knee"
	}
	sp.Limit = limitOf(rs, r.Target, o)
	sp.Monitors, sp.MonitorsSource = monitorsOf(rs, r.Target, o)
	if lim := sp.Limit.PerHost; lim != nil {
		fit := fitPool(*lim, o.Instances, sp.Monitors)
		sp.FitPool = &fit
	}
	for _, pool := range candidatePools(o.Instances, sp.Demand, sp.KneePerHost) {
		sp.Rows = append(sp.Rows, row(c, o, sp, pool))
	}
	sp.Recommended = recommend(c, o, &sp)
	if sp.Topology == "sharded" {
		sp.RouterPools = routerPools(rs, r.Target, sp.KneeConcurrency, r.Pool)
	}
	if sp.Topology == "replset" && k > 1 && opsPerCallHasWrites(rs) {
		sp.Warnings = append(sp.Warnings, "the workload writes: writes go to the primary alone, so its share is above the even split over the serving members assumed here")
	}
	return sp
}

// row is the fleet's outcome at pool size pool.
func row(c curve, o Options, sp SeriesPlan, pool int) Row {
	n := float64(o.Instances)
	k := float64(sp.Serving)
	demand := n * float64(sp.Demand)
	held := math.Min(demand, n*float64(pool)*k)
	x, extra := c.at(held)
	calls := x / sp.OpsPerCall
	rw := Row{
		MaxPoolSize:        pool,
		ConnectionsPerHost: o.Instances * (pool + sp.Monitors),
		MemoryMiBPerHost:   float64(o.Instances*(pool+sp.Monitors)) * o.ConnMemoryMiB,
		InFlightPerHost:    held / k,
		OpsPerS:            x,
		CallsPerS:          calls,
		Extrapolated:       extra,
		PoolQueue:          demand - held,
		PastKnee:           held/k > sp.KneePerHost+1e-9,
	}
	if calls > 0 {
		rw.ConnTimeMs = held / calls * 1000
		rw.PoolWaitMs = rw.PoolQueue / calls * 1000
	}
	if lim := sp.Limit.PerHost; lim != nil && *lim > 0 {
		pct := 100 * float64(rw.ConnectionsPerHost) / float64(*lim)
		rw.LimitPct = &pct
		rw.OverLimit = rw.ConnectionsPerHost > *lim
	}
	return rw
}

// candidatePools are the table's pool sizes: powers of two up to past the
// demand and the knee's share, with the knee's share itself.
func candidatePools(instances, demand int, kneePerHost float64) []int {
	share := max(int(math.Floor(kneePerHost/float64(instances))), 1)
	top := max(demand, 2*share, 2)
	var out []int
	for p := 1; p <= top && len(out) < maxRows-2; p *= 2 {
		out = append(out, p)
	}
	out = append(out, share, demand)
	slices.Sort(out)
	return slices.Compact(out)
}

// recommend picks the largest pool that keeps the fleet at or below the
// knee per host and within the limit.
func recommend(c curve, o Options, sp *SeriesPlan) Recommendation {
	n := o.Instances
	share := int(math.Floor(sp.KneePerHost / float64(n)))
	var reasons []string
	pool := share
	if pool < 1 {
		pool = 1
		reasons = append(reasons, fmt.Sprintf("%s pass the knee's %.0f calls in flight per host even at maxPoolSize 1: fewer instances, or a larger deployment, would keep it at the knee", instancesText(n), sp.KneePerHost))
	} else {
		reasons = append(reasons, fmt.Sprintf("the knee is %.0f calls in flight per host (concurrency %d × %d client(s) measured, over %d host(s)): %d instances × %d = %d ≤ %.0f",
			sp.KneePerHost, sp.KneeConcurrency, sp.MeasuredClients, sp.Serving, n, pool, n*pool, sp.KneePerHost))
	}
	if lim := sp.Limit.PerHost; lim != nil {
		fit := fitPool(*lim, n, sp.Monitors)
		if fit < pool {
			if fit < 1 {
				reasons = append(reasons, fmt.Sprintf("even maxPoolSize 1 needs %d connections per host, over the limit of %d: the fleet cannot connect in full", n*(1+sp.Monitors), *lim))
			} else {
				reasons = append(reasons, fmt.Sprintf("the connection limit of %d per host (%s) allows at most %d per instance after %d monitoring connections", *lim, sp.Limit.Source, fit, sp.Monitors))
				pool = fit
			}
		}
	} else {
		reasons = append(reasons, "the server's connection limit is unknown (no connections in the telemetry): give --max-connections to check it")
	}
	rec := Recommendation{MaxPoolSize: pool, ConnectionsPerHost: n * (pool + sp.Monitors)}
	at := row(c, o, *sp, pool)
	rec.LimitPct = at.LimitPct
	next := row(c, o, *sp, pool*2)
	reasons = append(reasons, fmt.Sprintf("at %d: %.0f ops/s expected, %.1f ms per call in a connection, %.0f calls queued in the pools (%.1f ms wait)", pool, at.OpsPerS, at.ConnTimeMs, at.PoolQueue, at.PoolWaitMs))
	more := next.InFlightPerHost > at.InFlightPerHost
	if more && next.PastKnee {
		reasons = append(reasons, fmt.Sprintf("at %d: %.0f ops/s (%+.0f%%) for %d connections per host; the server holds %.0f calls in flight per host, past the knee, %.1f ms per call in a connection",
			pool*2, next.OpsPerS, pctChange(at.OpsPerS, next.OpsPerS), next.ConnectionsPerHost, next.InFlightPerHost, next.ConnTimeMs))
	}
	hostWord := "host"
	if sp.Topology == "sharded" {
		hostWord = "mongos"
	}
	rec.Statement = fmt.Sprintf("%s: maxPoolSize %d per host (%d connections per %s", instancesText(n), pool, rec.ConnectionsPerHost, hostWord)
	if rec.LimitPct != nil {
		rec.Statement += fmt.Sprintf(", %s of its limit", pctText(*rec.LimitPct))
	}
	rec.Statement += fmt.Sprintf(", %.0f MiB)", float64(rec.ConnectionsPerHost)*o.ConnMemoryMiB)
	if more && next.PastKnee {
		rec.Statement += fmt.Sprintf("; at %d per host the fleet holds %.0f calls in flight per host against the knee's %.0f: %+.0f%% throughput, %.1f ms per call in a connection instead of %.1f",
			pool*2, next.InFlightPerHost, sp.KneePerHost, pctChange(at.OpsPerS, next.OpsPerS), next.ConnTimeMs, at.ConnTimeMs)
	}
	rec.Reasons = reasons
	return rec
}

// instancesText is "1 instance", "40 instances".
func instancesText(n int) string {
	if n == 1 {
		return "1 instance"
	}
	return fmt.Sprintf("%d instances", n)
}

func pctChange(from, to float64) float64 {
	if from == 0 {
		return 0
	}
	return 100 * (to - from) / from
}

// pctText writes a share of a limit: "12 %", "0.004 %".
func pctText(p float64) string {
	switch {
	case p >= 10:
		return fmt.Sprintf("%.0f %%", p)
	case p >= 0.1:
		return fmt.Sprintf("%.1f %%", p)
	}
	return fmt.Sprintf("%.2g %%", p)
}
