package bound

import (
	"fmt"
	"maps"
	"slices"

	"github.com/poolsweep/poolsweep/results"
)

// defaultMaxConnecting is ShardingTaskExecutorPoolMaxConnecting's default
// on every version that has it, used when getParameter was refused.
const defaultMaxConnecting = 2

// routerHosts are the URI's hosts of a sharded cluster: its mongos
// routers, in a stable order. A host is a router when it reported
// connPoolStats, or when the target's shards were looked for behind it.
func routerHosts(t *results.ServerTelemetry) []judgedHost {
	if t == nil {
		return nil
	}
	var out []judgedHost
	for _, h := range slices.Sorted(maps.Keys(t.Hosts)) {
		if s := t.Hosts[h]; s != nil && isRouter(t, s) {
			out = append(out, judgedHost{"router " + h, s, true})
		}
	}
	return out
}

// isRouter says whether s, one of t's URI hosts, is a mongos router.
func isRouter(t *results.ServerTelemetry, s *results.ServerSample) bool {
	return s.ConnPool != nil || t.ShardsSampled != nil
}

// routerCPU: a router's CPU at ServerCPUFrac of its cores. Every
// operation passes through a router, so a full one limits the cluster
// whatever its shards could carry.
func (c Classifier) routerCPU(s *results.StepResult) (bool, string) {
	for _, h := range routerHosts(s.Server) {
		if n, src := c.cores(h.sample); n > 0 && h.sample.CPUPct != nil {
			frac := *h.sample.CPUPct / (float64(n) * 100)
			if frac >= c.ServerCPUFrac {
				return true, fmt.Sprintf("%s: CPU %.0f%% is %.0f%% of %d cores (%s; ≥ %.0f%%)",
					h.name, *h.sample.CPUPct, frac*100, n, src, c.ServerCPUFrac*100)
			}
		}
	}
	return false, ""
}

// perPool is one router's pools to one shard host, per task-executor
// pool: the busiest pool's numbers where the reply lists its pools, else
// the host's counts spread over taskExecutorPoolSize pools; how says which.
// ok is false where the number of pools is unknown: the host's counts
// then say nothing of one pool.
type perPool struct {
	inUse, idle, refreshing *float64
	pools                   int
	how                     string
}

func poolShareOf(h *results.RouterPoolHost, set *results.RouterPoolSettings) (perPool, bool) {
	n, ok := h.PoolCount(set)
	if !ok {
		return perPool{}, false
	}
	p := perPool{pools: n}
	per := func(v *float64) *float64 {
		if v == nil {
			return nil
		}
		return new(*v / float64(n))
	}
	p.idle = per(h.Available)
	if h.BusiestInUse != nil {
		p.inUse, p.refreshing, p.how = h.BusiestInUse, h.BusiestRefreshing, fmt.Sprintf("its busiest of %d task-executor pools", n)
		if p.refreshing == nil {
			p.refreshing = per(h.Refreshing)
		}
		return p, true
	}
	p.inUse, p.refreshing = per(h.InUse), per(h.Refreshing)
	p.how = fmt.Sprintf("each of %d task-executor pools on average", n)
	return p, true
}

// routerPool: a router's pools to a shard host were the limit. Either
// full — in use at RouterPoolFullFrac of ShardingTaskExecutorPoolMaxSize
// with at most RouterIdleMax idle per pool, so each further operation to
// that host waits for a connection (connPoolStats reports no waiters in
// any version: in use at the maximum with none idle is the evidence) —
// or growing no faster than MaxConnecting lets it: connections being
// opened (refreshing) at RouterConnectingFrac of
// ShardingTaskExecutorPoolMaxConnecting per pool, some created in the
// window, none idle. A router with no MaxSize (the default) never fills.
func (c Classifier) routerPool(s *results.StepResult) (bool, string) {
	for _, h := range routerHosts(s.Server) {
		cp := h.sample.ConnPool
		if cp == nil {
			continue
		}
		for _, host := range slices.Sorted(maps.Keys(cp.ShardHosts)) {
			ph := cp.ShardHosts[host]
			if ph == nil {
				continue
			}
			p, ok := poolShareOf(ph, cp.Settings)
			if !ok {
				continue
			}
			noneIdle := p.idle == nil || *p.idle <= c.RouterIdleMax
			idle := "idle not reported"
			if p.idle != nil {
				idle = fmt.Sprintf("%.1f idle", *p.idle)
			}
			if m, ok := cp.Settings.MaxSizeLimit(); ok && p.inUse != nil && *p.inUse >= c.RouterPoolFullFrac*m && noneIdle {
				return true, fmt.Sprintf("%s's pools to %s full: %.1f in use in %s against ShardingTaskExecutorPoolMaxSize %.0f, %s",
					h.name, host, *p.inUse, p.how, m, idle)
			}
			mc, src := float64(defaultMaxConnecting), "the default, not read"
			if set := cp.Settings; set != nil && set.MaxConnecting != nil && *set.MaxConnecting > 0 {
				mc, src = *set.MaxConnecting, "getParameter"
			}
			if p.refreshing != nil && *p.refreshing >= c.RouterConnectingFrac*mc && ph.Created != nil && *ph.Created > 0 && noneIdle {
				return true, fmt.Sprintf("%s's pools to %s grew at ShardingTaskExecutorPoolMaxConnecting: %.1f being opened in %s against %.0f (%s), %.0f created in the window, %s",
					h.name, host, *p.refreshing, p.how, mc, src, *ph.Created, idle)
			}
		}
	}
	return false, ""
}
