package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"
)

// The router_* pool keys: each router's own pools to its shards, under
// the meaning of a mongos's parameters (routerpool.go):
//
//	router_pools=T           taskExecutorPoolSize (default 1)
//	router_pool_max=M        ShardingTaskExecutorPoolMaxSize (default 32767; 4.0: unlimited)
//	router_pool_min=N        ShardingTaskExecutorPoolMinSize (default 1; 0 keeps none open)
//	router_max_connecting=C  ShardingTaskExecutorPoolMaxConnecting (default 2)
//	router_host_timeout=D    ShardingTaskExecutorPoolHostTimeoutMS (default 5m)
//
// A spec sets them as a mongos's --setParameter does at startup; a real
// mongos refuses a host timeout under 80s unless its refresh parameters
// are lowered too, which the simulator, not modeling refreshes, leaves to
// its setParameter (routerpool.go).

// routerPoolKeys are the keys, in specKeys' order.
var routerPoolKeys = []string{"router_pools", "router_pool_max", "router_pool_min", "router_max_connecting", "router_host_timeout"}

// maxRouterHostTimeout bounds router_host_timeout: an int of milliseconds
// on the server.
const maxRouterHostTimeout = math.MaxInt32 * time.Millisecond

func routerPoolKey(k string) bool { return slices.Contains(routerPoolKeys, k) }

// routerPoolSeen records router_pool_min (whose 0 is a value, not the
// default) and refuses a written 0 for the keys whose 0 means the default.
func (s *Spec) routerPoolSeen(seen map[string]bool) error {
	s.RouterPoolMinSet = seen["router_pool_min"]
	zero := map[string]bool{
		"router_pools": s.RouterPools == 0, "router_pool_max": s.RouterPoolMax == 0,
		"router_max_connecting": s.RouterMaxConnecting == 0, "router_host_timeout": s.RouterHostTimeout == 0,
	}
	for _, k := range routerPoolKeys {
		if seen[k] && zero[k] {
			return fmt.Errorf("%w: %s=0: must be at least 1 (leave it out for the version's default)", ErrSpec, k)
		}
	}
	return nil
}

// validateRouterPools checks the keys: only with shards, and in range.
func (s Spec) validateRouterPools() error {
	bad := func(key string, n int, most int) error {
		return fmt.Errorf("%w: %s=%d: must be between 1 and %d", ErrSpec, key, n, most)
	}
	set := s.RouterPools != 0 || s.RouterPoolMax != 0 || s.RouterPoolMin != 0 || s.RouterPoolMinSet ||
		s.RouterMaxConnecting != 0 || s.RouterHostTimeout != 0
	if !s.Sharded() {
		if set {
			return fmt.Errorf("%w: router_pools, router_pool_max, router_pool_min, router_max_connecting and router_host_timeout need shards=N", ErrSpec)
		}
		return nil
	}
	switch {
	case s.RouterPools < 0 || s.RouterPools > maxRouterPools:
		return bad("router_pools", s.RouterPools, maxRouterPools)
	case s.RouterPoolMax < 0:
		return bad("router_pool_max", s.RouterPoolMax, math.MaxInt32)
	case s.RouterPoolMin < 0 || s.RouterPoolMin > math.MaxInt32:
		return fmt.Errorf("%w: router_pool_min=%d: must be between 0 and %d", ErrSpec, s.RouterPoolMin, math.MaxInt32)
	case s.RouterPoolMin != 0 && !s.RouterPoolMinSet:
		return fmt.Errorf("%w: RouterPoolMin is set but RouterPoolMinSet is not", ErrSpec)
	case s.RouterMaxConnecting < 0 || s.RouterMaxConnecting > math.MaxInt32:
		return bad("router_max_connecting", s.RouterMaxConnecting, math.MaxInt32)
	case s.RouterHostTimeout < 0 || s.RouterHostTimeout > maxRouterHostTimeout || s.RouterHostTimeout%time.Millisecond != 0:
		return fmt.Errorf("%w: router_host_timeout=%s: must be whole milliseconds between 1ms and %s", ErrSpec, fmtDuration(s.RouterHostTimeout), maxRouterHostTimeout)
	}
	if s.RouterPoolMax > math.MaxInt32 {
		return bad("router_pool_max", s.RouterPoolMax, math.MaxInt32)
	}
	return nil
}

// routerPoolString is the keys for Spec.String, each only when set, so
// specs that leave them out print as before.
func (s Spec) routerPoolString() []string {
	var parts []string
	if s.RouterPools > 0 {
		parts = append(parts, "router_pools="+strconv.Itoa(s.RouterPools))
	}
	if s.RouterPoolMax > 0 {
		parts = append(parts, "router_pool_max="+strconv.Itoa(s.RouterPoolMax))
	}
	if s.RouterPoolMinSet {
		parts = append(parts, "router_pool_min="+strconv.Itoa(s.RouterPoolMin))
	}
	if s.RouterMaxConnecting > 0 {
		parts = append(parts, "router_max_connecting="+strconv.Itoa(s.RouterMaxConnecting))
	}
	if s.RouterHostTimeout > 0 {
		parts = append(parts, "router_host_timeout="+fmtDuration(s.RouterHostTimeout))
	}
	return parts
}

// RouterPoolLimit is how many ops all routers together can have in
// flight to one shard host: routers · router_pools · router_pool_max, as
// each router's taskExecutorPoolSize pools hold at most MaxSize
// connections to the host and an op holds one while the shard works. So
// the routers carry at most RouterPoolLimit / service ops/s per shard
// host. It is +Inf for a standalone spec, or when router_pool_max is left
// at its default (32767 per pool, or unlimited on 4.0), which no test
// reaches.
func (s Spec) RouterPoolLimit() float64 {
	if !s.Sharded() || s.RouterPoolMax <= 0 {
		return math.Inf(1)
	}
	return float64(s.Routers * max(s.RouterPools, DefaultRouterPools) * s.RouterPoolMax)
}
