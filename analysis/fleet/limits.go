package fleet

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"

	"github.com/poolsweep/poolsweep/results"
)

// header is the target's header entry in the first file that names it.
func header(rs []*results.Results, target string) (results.TargetHeader, bool) {
	for _, r := range rs {
		for _, t := range r.Header.Targets {
			if t.Name == target {
				return t, true
			}
		}
	}
	return results.TargetHeader{}, false
}

// routing says which hosts share a target's load (k).
func routing(rs []*results.Results, target string) Routing {
	rt := Routing{Target: target, Serving: 1, Why: "one host"}
	t, ok := header(rs, target)
	if !ok {
		rt.Why = "the target is not in the header: one host assumed"
		return rt
	}
	rt.Topology, rt.Hosts = t.Topology, slices.Clone(t.Hosts)
	hosts := max(len(t.Hosts), 1)
	switch t.Topology {
	case "sharded":
		rt.Serving = hosts
		rt.Why = fmt.Sprintf("the driver spreads operations over the %d mongos it was given; each instance has a pool per mongos", hosts)
	case "replset":
		rt.ReadPreference = readPreference(t.URI)
		pref := rt.ReadPreference
		if pref == "" {
			pref = "primary"
		}
		switch strings.ToLower(pref) {
		case "secondary", "secondarypreferred":
			rt.Serving = max(hosts-1, 1)
		case "nearest":
			rt.Serving = hosts
		}
		rt.Why = fmt.Sprintf("readPreference %s over %d members: %d serve the reads (writes go to the primary)", pref, hosts, rt.Serving)
	}
	return rt
}

// readPreference is the readPreference option of a (redacted) URI, or "".
func readPreference(uri string) string {
	_, query, ok := strings.Cut(uri, "?")
	if !ok {
		return ""
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		return ""
	}
	for k, v := range q {
		if strings.EqualFold(k, "readPreference") && len(v) > 0 {
			return v[len(v)-1]
		}
	}
	return ""
}

// learnLimit is the connection limit per host: override when given, else
// serverStatus connections.current + available from the target's steps,
// the smallest over its hosts (each host's largest over the steps).
func learnLimit(rs []*results.Results, target string, override int) Limit {
	if override > 0 {
		return Limit{PerHost: &override, Source: "--max-connections"}
	}
	per := map[string]int{}
	for _, r := range rs {
		for i := range r.Steps {
			st := &r.Steps[i]
			if st.Target != target || st.Server == nil {
				continue
			}
			for h, s := range st.Server.Hosts {
				if s == nil || s.Connections == nil || s.Connections.Current == nil || s.Connections.Available == nil {
					continue
				}
				lim := int(math.Round(*s.Connections.Current + *s.Connections.Available))
				per[h] = max(per[h], lim)
			}
		}
	}
	if len(per) == 0 {
		return Limit{Source: "not reported: the steps' telemetry has no serverStatus connections"}
	}
	hosts := make([]string, 0, len(per))
	for h := range per {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	low := hosts[0]
	for _, h := range hosts {
		if per[h] < per[low] {
			low = h
		}
	}
	lim := per[low]
	return Limit{PerHost: &lim, Source: fmt.Sprintf("serverStatus connections.current + available on %s", low)}
}

// opsPerCall is the workload's operations per call (1 when not recorded).
func opsPerCall(rs []*results.Results) float64 {
	for _, r := range rs {
		if o := r.Header.Workload.OpsPerCall; o > 0 {
			return o
		}
	}
	return 1
}

// opsPerCallHasWrites says whether the workload's mix has writes.
func opsPerCallHasWrites(rs []*results.Results) bool {
	for _, r := range rs {
		for op, share := range r.Header.Workload.Mix {
			if share > 0 && op != "read" && op != "find" && op != "scan" {
				return true
			}
		}
	}
	return false
}

// routerPools are each router's connections to its shards at the knee's
// steps (connPoolStats), medians not needed: the largest seen.
func routerPools(rs []*results.Results, target string, kneeConcurrency int, pool string) []RouterPools {
	by := map[string]*RouterPools{}
	for _, r := range rs {
		for i := range r.Steps {
			st := &r.Steps[i]
			if st.Target != target || st.Concurrency != kneeConcurrency || st.PoolSetting != pool || st.Server == nil {
				continue
			}
			for h, s := range st.Server.Hosts {
				if s == nil || s.ConnPool == nil {
					continue
				}
				rp := by[h]
				if rp == nil {
					rp = &RouterPools{Router: h}
					by[h] = rp
				}
				rp.InUse = maxPtr(rp.InUse, s.ConnPool.InUse)
				rp.Created = maxPtr(rp.Created, s.ConnPool.Created)
			}
		}
	}
	var out []RouterPools
	for _, rp := range by {
		out = append(out, *rp)
	}
	slices.SortFunc(out, func(a, b RouterPools) int { return strings.Compare(a.Router, b.Router) })
	return out
}

func maxPtr(a, b *float64) *float64 {
	switch {
	case b == nil:
		return a
	case a == nil || *b > *a:
		v := *b
		return &v
	}
	return a
}
