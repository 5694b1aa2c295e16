package fleet

import (
	"fmt"
	"github.com/poolsweep/poolsweep/analysis/openloop"
	"math"

	"github.com/poolsweep/poolsweep/results"
)

// poissonQuantile is the share of time an instance's in-flight calls
// must fit its pool (see the package documentation).
const poissonQuantile = 0.999

// OpenPlan is the rate form of the plan, from an open-loop series.
type OpenPlan struct {
	Routing
	Workload        string `json:"workload,omitempty"`
	MeasuredClients int    `json:"measured_clients"`
	// CarriedRate is the highest offered rate carried (calls/s over all
	// clients) and MeasuredPool the smallest pool per client that carried it.
	CarriedRate  int     `json:"carried_rate"`
	MeasuredPool int     `json:"measured_pool"`
	Rule         string  `json:"rule"`
	P99Ms        float64 `json:"p99_ms"`
	// PerInstanceRate is CarriedRate / N; ServiceMs the measured mean time
	// a call held connections (open_loop.service_ms.mean), and
	// InFlightPerHost the mean in flight per instance per host.
	PerInstanceRate float64 `json:"per_instance_rate"`
	ServiceMs       float64 `json:"service_ms"`
	InFlightPerHost float64 `json:"in_flight_per_instance_per_host"`
	Limit           Limit   `json:"limit"`
	// Monitors is each instance's connections to every host beside its
	// pool (see SeriesPlan).
	Monitors       int    `json:"monitors_per_instance"`
	MonitorsSource string `json:"monitors_source"`
	// FitPool is the largest maxPoolSize within the limit (see SeriesPlan).
	FitPool     *int           `json:"largest_pool_within_limit,omitempty"`
	Recommended Recommendation `json:"recommendation"`
	Setup       *Setup         `json:"connection_setup,omitempty"`
	Warnings    []string       `json:"warnings,omitempty"`
}

// planOpen plans the fleet from one open-loop series; false when no rate
// was carried.
func planOpen(rs []*results.Results, r openloop.Report, o Options) (OpenPlan, bool) {
	if r.CarriedRate == nil || r.MaxPoolSize == nil {
		return OpenPlan{}, false
	}
	op := OpenPlan{Routing: routing(rs, r.Target), Workload: r.Workload, MeasuredClients: max(r.Clients, 1),
		CarriedRate: *r.CarriedRate, MeasuredPool: *r.MaxPoolSize, Rule: r.Rule}
	for _, p := range r.Pools {
		if p.MaxPoolSize != op.MeasuredPool {
			continue
		}
		for _, l := range p.Levels {
			if l.Rate == op.CarriedRate {
				op.P99Ms = l.P99Ms
			}
		}
	}
	op.ServiceMs = serviceMs(rs, r.Target, op.CarriedRate, op.MeasuredPool)
	n, k := o.Instances, op.Serving
	op.PerInstanceRate = float64(op.CarriedRate) / float64(n)
	op.InFlightPerHost = op.PerInstanceRate / float64(k) * op.ServiceMs / 1000
	pool := max(poissonAtLeast(op.InFlightPerHost, poissonQuantile), 1)
	op.Limit = limitOf(rs, r.Target, o)
	op.Monitors, op.MonitorsSource = monitorsOf(rs, r.Target, o)
	rec := Recommendation{MaxPoolSize: pool, ConnectionsPerHost: n * (pool + op.Monitors)}
	rec.Reasons = append(rec.Reasons,
		fmt.Sprintf("the deployment carried %d calls/s (%s) with maxPoolSize %d per client over %d client(s): %.1f calls/s per instance", op.CarriedRate, r.Rule, op.MeasuredPool, op.MeasuredClients, op.PerInstanceRate),
		fmt.Sprintf("a call held connections %.2f ms on average (open_loop.service_ms): %.3f calls in flight per instance per host (Little's law, over %d serving host(s))", op.ServiceMs, op.InFlightPerHost, k),
		fmt.Sprintf("taken as Poisson (M/G/∞), %d connections hold them %.1f %% of the time", pool, 100*poissonQuantile))
	if lim := op.Limit.PerHost; lim != nil {
		fit := fitPool(*lim, n, op.Monitors)
		op.FitPool = &fit
		pct := 100 * float64(rec.ConnectionsPerHost) / float64(*lim)
		rec.LimitPct = &pct
		if rec.ConnectionsPerHost > *lim {
			rec.Reasons = append(rec.Reasons, fmt.Sprintf("%d connections per host (%d monitoring per instance) is over the limit of %d (%s)", rec.ConnectionsPerHost, op.Monitors, *lim, op.Limit.Source))
		}
	}
	rec.Statement = fmt.Sprintf("%s at %s calls/s per instance", instancesText(n), rateText(op.PerInstanceRate))
	if op.P99Ms > 0 {
		rec.Statement += fmt.Sprintf(" and p99 ≤ %s ms", rateText(op.P99Ms))
	}
	rec.Statement += fmt.Sprintf(": maxPoolSize %d per host (%d connections per host", pool, rec.ConnectionsPerHost)
	if rec.LimitPct != nil {
		rec.Statement += ", " + pctText(*rec.LimitPct) + " of its limit"
	}
	rec.Statement += ")"
	op.Recommended = rec
	if op.ServiceMs == 0 {
		op.Warnings = append(op.Warnings, "no service time recorded at the carried rate: the pool is the smallest possible, not a measured one")
	}
	return op, true
}

// serviceMs is the mean open_loop.service_ms.mean of the steps at rate and
// pool (their trials).
func serviceMs(rs []*results.Results, target string, rate, pool int) float64 {
	var sum float64
	var n int
	for _, r := range rs {
		for i := range r.Steps {
			st := &r.Steps[i]
			if st.Target == target && st.Mode == results.ModeOpen && st.Open != nil && st.Rate == rate && st.MaxPoolSize == pool && st.TargetFailed == nil && !st.Interrupted {
				sum += st.Open.Service.Mean
				n++
			}
		}
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// poissonAtLeast is the smallest k with P(Poisson(mean) ≤ k) ≥ q.
func poissonAtLeast(mean, q float64) int {
	if mean <= 0 || math.IsNaN(mean) {
		return 0
	}
	term := math.Exp(-mean)
	cdf := term
	k := 0
	for cdf < q && k < 1_000_000 {
		k++
		term *= mean / float64(k)
		cdf += term
		if term == 0 && cdf < q {
			// exp(-mean) underflowed: the normal approximation.
			return int(math.Ceil(mean + 3.1*math.Sqrt(mean)))
		}
	}
	return k
}

// rateText writes a rate or a latency without needless decimals.
func rateText(v float64) string {
	if v >= 100 || v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}
