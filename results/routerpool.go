package results

// checkRouterPool holds a router's pools to its shard hosts to their
// meaning: counts of connections and pools are never negative. MaxSize is
// the server's own setting, whose "no limit" is -1 on some versions, so
// it is only held to be a number.
func checkRouterPool(c *check, field string, s *ServerSample) {
	if s == nil || s.ConnPool == nil {
		return
	}
	cp := s.ConnPool
	field += ".conn_pool."
	c.optNonNeg(field+"refreshing", cp.Refreshing)
	for _, host := range sortedKeys(cp.ShardHosts) {
		h := cp.ShardHosts[host]
		if h == nil {
			continue
		}
		f := field + "shard_hosts." + host + "."
		c.optNonNeg(f+"in_use", h.InUse)
		c.optNonNeg(f+"available", h.Available)
		c.optNonNeg(f+"created", h.Created)
		c.optNonNeg(f+"refreshing", h.Refreshing)
		c.optNonNeg(f+"leased", h.Leased)
		c.optNonNeg(f+"busiest_in_use", h.BusiestInUse)
		c.optNonNeg(f+"busiest_refreshing", h.BusiestRefreshing)
		if h.Pools != nil {
			c.count(f+"pools", int64(*h.Pools))
		}
	}
	if st := cp.Settings; st != nil {
		c.optNonNeg(field+"settings.max_connecting", st.MaxConnecting)
		c.optNonNeg(field+"settings.task_executor_pool_size", st.PoolSize)
		if st.MaxSize != nil {
			c.finite(field+"settings.max_size", *st.MaxSize)
		}
	}
}
