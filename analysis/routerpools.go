package analysis

import (
	"maps"
	"slices"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// RouterPool is one router's pools to one shard host in one closed-loop
// step, as analyze, the report and the router-pool figure show it. Nil
// numbers are not reported.
type RouterPool struct {
	Target, Workload  string
	Concurrency, Pool int
	Clients, Trial    int
	// PerClient is the connections one client used: min(concurrency,
	// maxPoolSize), the figure's x.
	PerClient int
	Router    string
	ShardHost string
	// Pools is the task-executor pools holding the host (nil: the reply
	// lists none); InUse and Idle are over all of them, PerPoolInUse the
	// busiest pool's (or InUse over the pools; nil where their number is
	// unknown), what MaxSize caps.
	Pools            *int
	InUse, Idle      *float64
	PerPoolInUse     *float64
	Opening, Created *float64
	// NeverUsed are connections closed without carrying an operation in
	// the window.
	NeverUsed     *float64
	MaxSize       *float64 // nil: no limit, or not read (MaxSizeNote says which)
	MaxSizeNote   string
	MaxConnecting *float64
	Bound         string
}

// RouterPools lists the routers' pools to the shard hosts in each
// closed-loop step of rs that sampled them, in the files' step order,
// each router and shard host in name order.
func RouterPools(rs []*results.Results) []RouterPool {
	var out []RouterPool
	for _, r := range rs {
		for i := range r.Steps {
			s := &r.Steps[i]
			if !knee.OnCurve(s) || s.Server == nil {
				continue
			}
			for _, router := range slices.Sorted(maps.Keys(s.Server.Hosts)) {
				h := s.Server.Hosts[router]
				if h == nil || h.ConnPool == nil {
					continue
				}
				cp := h.ConnPool
				for _, host := range slices.Sorted(maps.Keys(cp.ShardHosts)) {
					ph := cp.ShardHosts[host]
					if ph == nil {
						continue
					}
					out = append(out, routerPoolRow(s, router, host, ph, cp.Settings))
				}
			}
		}
	}
	return out
}

func routerPoolRow(s *results.StepResult, router, host string, ph *results.RouterPoolHost, set *results.RouterPoolSettings) RouterPool {
	row := RouterPool{Target: s.Target, Workload: s.Workload, Concurrency: s.Concurrency, Pool: s.MaxPoolSize,
		Clients: max(s.Clients, 1), Trial: s.Trial, PerClient: s.Concurrency, Router: router, ShardHost: host,
		Pools: ph.Pools, InUse: ph.InUse, Idle: ph.Available, Opening: ph.Refreshing, Created: ph.Created, NeverUsed: ph.WasNeverUsed, Bound: s.Bound}
	if s.MaxPoolSize > 0 {
		row.PerClient = min(s.Concurrency, s.MaxPoolSize)
	}
	row.PerPoolInUse = ph.BusiestInUse
	if n, ok := ph.PoolCount(set); row.PerPoolInUse == nil && ph.InUse != nil && ok {
		row.PerPoolInUse = new(*ph.InUse / float64(n))
	}
	switch m, ok := set.MaxSizeLimit(); {
	case ok:
		row.MaxSize = &m
	case set == nil || set.MaxSize == nil:
		row.MaxSizeNote = "not read"
		if set != nil && set.NotRead != "" {
			row.MaxSizeNote = set.NotRead
		}
	default:
		row.MaxSizeNote = "no limit"
	}
	if set != nil {
		row.MaxConnecting = set.MaxConnecting
	}
	return row
}
