package knee

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/internal/textfmt"
)

// recommend turns the knee into settings: the concurrency per client and
// the driver's maxPoolSize per client per host.
//
// The knee concurrency (times Options.Headroom) is the concurrency; the pool
// is that concurrency divided over the mongos of a sharded target, because
// the driver keeps one pool per host and spreads operations across mongos.
// Capping the pool there makes bursts wait in the client (cheap) instead of
// pushing the server past the peak. A replica set's pool is not divided:
// the driver keeps one per member, and the read preference decides how
// many of them the ops reach (perHost says so, from the pools per host
// the steps recorded).
func recommend(r Report, s Series, o Options) Recommendation {
	var rec Recommendation
	if len(r.Levels) == 0 || r.Peak.QPS <= 0 {
		rec.Why = "nothing to recommend without measurements."
		return rec
	}
	hosts := 1
	if s.Topology == "sharded" && s.Hosts > 1 {
		hosts = s.Hosts
	}
	k := r.Clients
	top := r.Levels[len(r.Levels)-1].Concurrency

	var first string
	base := r.Knee.Concurrency
	switch {
	case r.Knee.Found:
		rec.Concurrency = max(1, int(math.Round(o.Headroom*float64(base))))
		share := 100 * r.Knee.QPS / r.Peak.QPS
		if rec.Concurrency == base && base == r.Peak.Concurrency {
			first = fmt.Sprintf("Concurrency %d per client is both the knee and the peak (%s ops/s)", base, textfmt.Thousands(r.Peak.QPS))
		} else if rec.Concurrency == base {
			first = fmt.Sprintf("Concurrency %d per client is the knee (%.0f%% of the %s ops/s peak at %d)", base, share, textfmt.Thousands(r.Peak.QPS), r.Peak.Concurrency)
		} else {
			first = fmt.Sprintf("Concurrency %d per client is %.0f%% of the knee at %d (%.0f%% of the %s ops/s peak at %d)",
				rec.Concurrency, o.Headroom*100, base, share, textfmt.Thousands(r.Peak.QPS), r.Peak.Concurrency)
		}
	case len(r.Levels) > 1 && r.Peak.Concurrency == top:
		// Still rising: the top tested level is a lower bound, not an answer.
		rec.Concurrency = top
		first = fmt.Sprintf("No knee up to %d per client, so %d is a lower bound: throughput was still rising, test higher concurrency", top, top)
	default:
		rec.Concurrency = r.Peak.Concurrency
		first = fmt.Sprintf("Concurrency %d per client gave the highest throughput (%s ops/s), but no knee could be located", r.Peak.Concurrency, textfmt.Thousands(r.Peak.QPS))
	}
	if slo := r.Methods.SLO.Concurrency; slo != nil && *slo < rec.Concurrency {
		rec.Concurrency = *slo
		first = fmt.Sprintf("Concurrency %d per client is the highest-throughput level whose p99 meets the %s SLO, below the knee at %d", *slo, o.SLOP99, base)
		if !r.Knee.Found {
			first = fmt.Sprintf("Concurrency %d per client is the highest-throughput level whose p99 meets the %s SLO", *slo, o.SLOP99)
		}
	}
	if r.Retrograde != nil && r.Knee.Found {
		first += fmt.Sprintf("; past the peak throughput fell %.0f%% by %d", r.Retrograde.DropPct, r.Retrograde.To)
	}
	rec.MaxPoolSize = (rec.Concurrency + hosts - 1) / hosts

	var second []string
	second = append(second, fmt.Sprintf("cap maxPoolSize at %d per client per host so bursts queue in the pool, not at the server", rec.MaxPoolSize))
	if hosts > 1 {
		second = append(second, fmt.Sprintf("the target is sharded over %d mongos, so each client's %d split into %d per mongos", hosts, rec.Concurrency, rec.MaxPoolSize))
	}
	if s.Topology == "replset" && s.HostsReached > 0 {
		rec.HostsReached = s.HostsReached
		second = append(second, perHost(s, rec.MaxPoolSize))
	}
	if k > 1 {
		second = append(second, fmt.Sprintf("the %d clients share the total: %d operations in flight", k, k*rec.Concurrency))
	}
	rec.Why = first + ". " + textfmt.Capitalise(strings.Join(second, "; ")) + "."

	if pb := poolBound(r); pb != "" {
		rec.PoolBound = true
		rec.Why += " " + pb
	}
	return rec
}

// perHost says what maxPoolSize per host means on a replica set: the
// driver keeps a pool to every member, and the ops reach those the read
// preference (and the writes, the primary) send them to.
func perHost(s Series, pool int) string {
	how := "with the URI's read preference"
	if s.ReadPreference != "" {
		how = "with " + s.ReadPreference
	}
	members := ""
	if s.HostPools > s.HostsReached {
		members = fmt.Sprintf(" of the set's %d members", s.HostPools)
	}
	host := "hosts"
	if s.HostsReached == 1 {
		host = "host"
	}
	return fmt.Sprintf("maxPoolSize is per host: %s the ops reach %d %s%s, so up to %d connections per client",
		how, s.HostsReached, host, members, pool*s.HostsReached)
}

// poolBound says, when most levels from the knee on (all levels when there
// is none) ran more workers than pool connections and spent most of their
// p99 waiting for a connection, that the knee is the pool's and not the
// server's.
func poolBound(r Report) string {
	from := 0
	if r.Knee.Found {
		for i, l := range r.Levels {
			if l.Concurrency == r.Knee.Concurrency {
				from = i
				break
			}
		}
	}
	n, bound := 0, 0
	var first *Level
	for i := from; i < len(r.Levels); i++ {
		l := &r.Levels[i]
		n++
		lat := l.MeanLatencyMs
		if l.P99Ms != nil {
			lat = *l.P99Ms
		}
		waits := l.MaxPoolSize > 0 && l.Concurrency > l.MaxPoolSize && lat > 0 && l.PoolWaitP99Ms >= PoolWaitShare*lat
		if waits || l.Bound == "pool" {
			bound++
			if first == nil {
				first = l
			}
		}
	}
	if n == 0 || 2*bound < n || first == nil {
		return ""
	}
	detail := ""
	if first.MaxPoolSize > 0 && first.PoolWaitP99Ms > 0 {
		detail = fmt.Sprintf(" (at concurrency %d with maxPoolSize %d, p99 pool wait %s ms)", first.Concurrency, first.MaxPoolSize, textfmt.Ms(first.PoolWaitP99Ms))
	}
	return fmt.Sprintf("The run was pool-bound%s: this knee is the pool's, not the server's; rerun with the pool matching concurrency to find the server's.", detail)
}

// verdict is the short paragraph a person reads first.
func verdict(r Report) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", SeriesName(r))
	if r.Peak.QPS <= 0 {
		b.WriteString("no throughput was measured.")
		return b.String()
	}
	fmt.Fprintf(&b, "throughput peaks at %s ops/s at concurrency %d", textfmt.Thousands(r.Peak.QPS), r.Peak.Concurrency)
	if r.Clients > 1 {
		b.WriteString(" per client")
	}
	if rg := r.Retrograde; rg != nil {
		fmt.Fprintf(&b, " and falls %.0f%% by %d (retrograde: more concurrency, less throughput)", rg.DropPct, rg.To)
	}
	b.WriteString(". ")
	b.WriteString(textfmt.Capitalise(r.Knee.Statement) + ".")
	if u := r.Methods.USL; u.Accepted() {
		fmt.Fprintf(&b, " USL fit (R² %.3f): %s-bound", u.R2, u.Bound)
		if u.NStar != nil {
			fmt.Fprintf(&b, ", fitted peak %s ops/s at N*≈%.0f", textfmt.Thousands(u.PeakQPS), *u.NStar)
		} else {
			b.WriteString(", no finite peak (κ = 0)")
		}
		b.WriteString(".")
	} else if u.Fitted {
		fmt.Fprintf(&b, " USL fit rejected (R² %.3f, below %g).", u.R2, MinUSLR2)
	}
	if r.BoundPastKnee != "" {
		fmt.Fprintf(&b, " Past the knee the steps were mostly %s-bound.", r.BoundPastKnee)
	}
	fmt.Fprintf(&b, " Recommendation: concurrency %d per client, maxPoolSize %d per client per host.",
		r.Recommendation.Concurrency, r.Recommendation.MaxPoolSize)
	if r.Recommendation.PoolBound {
		b.WriteString(" The run was pool-bound.")
	}
	return b.String()
}

// SeriesName is how a series is named in prose, with any non-printing
// character of its names escaped.
func SeriesName(r Report) string {
	var parts []string
	if r.Pool != "" {
		parts = append(parts, "pool="+textfmt.Escape(r.Pool))
	}
	if r.Workload != "" {
		parts = append(parts, "workload="+textfmt.Escape(r.Workload))
	}
	if r.Clients > 1 {
		parts = append(parts, strconv.Itoa(r.Clients)+" clients")
	}
	if len(parts) == 0 {
		return textfmt.Escape(r.Target)
	}
	return textfmt.Escape(r.Target) + " (" + strings.Join(parts, ", ") + ")"
}
