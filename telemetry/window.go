package telemetry

import (
	"github.com/poolsweep/poolsweep/results"
)

// hostWindow is one host's window summary plus the raw op counts that the
// cross-host total needs to weight latencies.
type hostWindow struct {
	sample                *results.ServerSample
	readOps, writeOps     float64 // server-side ops in the window (opLatencies)
	readLatUS, writeLatUS float64 // summed latency in the window, µs
	latOK                 [2]bool // read, write deltas usable
}

// elapsedSeconds is the time between two snapshots. The server's own
// uptimeMillis is preferred because it does not include our round trips;
// this process's clock is the fallback.
func elapsedSeconds(a, b snapshot) float64 {
	if a.uptimeMillis != nil && b.uptimeMillis != nil && *b.uptimeMillis > *a.uptimeMillis {
		return (*b.uptimeMillis - *a.uptimeMillis) / 1000
	}
	return b.at.Sub(a.at).Seconds()
}

// delta returns b−a, or nil when either is missing or the counter went
// backwards (a restarted server: its rate over this window is unknown).
func delta(a, b *float64) *float64 {
	if a == nil || b == nil || *b < *a {
		return nil
	}
	d := *b - *a
	return &d
}

// perSecond returns d/secs, or nil.
func perSecond(d *float64, secs float64) *float64 {
	if d == nil || secs <= 0 {
		return nil
	}
	r := *d / secs
	return &r
}

// mean averages a gauge over the snapshots that report it.
func mean(snaps []snapshot, get func(*snapshot) *float64) *float64 {
	var sum float64
	n := 0
	for i := range snaps {
		if v := get(&snaps[i]); v != nil {
			sum += *v
			n++
		}
	}
	if n == 0 {
		return nil
	}
	m := sum / float64(n)
	return &m
}

// most is the largest of the snapshots' values; nil when none is set.
func most(snaps []snapshot, get func(*snapshot) *float64) *float64 {
	var m *float64
	for i := range snaps {
		if v := get(&snaps[i]); v != nil && (m == nil || *v > *m) {
			m = v
		}
	}
	return m
}

// sumBoth is a + b; nil unless both are set.
func sumBoth(a, b *float64) *float64 {
	if a == nil || b == nil {
		return nil
	}
	return ptr(*a + *b)
}

// sumPtr adds the non-nil values; nil when none is set.
func sumPtr(vs ...*float64) *float64 {
	var s float64
	set := false
	for _, v := range vs {
		if v != nil {
			s += *v
			set = true
		}
	}
	if !set {
		return nil
	}
	return &s
}

func ptr(f float64) *float64 { return &f }

// summarizeHost turns one host's snapshots, oldest first, into its window
// summary. Gauges (connections, queues, tickets, router pool) are means over
// every snapshot; counters become rates between the first and the last.
//
// InFlight is Little's law on the server's own books: the latency the server
// summed over its read and write ops during the window, divided by the
// window, is its mean number of those ops in flight (ops/s × mean latency,
// queue wait included). The sampler's serverStatus, hostInfo and
// connPoolStats are commands, which opLatencies counts apart from reads and
// writes, so nothing of ours is in it. Both halves must be reported: one
// alone would undercount a mixed workload.
//
// shardHosts, when known, are the hosts of the cluster's shards: a router's
// pools are counted to them only (connPoolStats totals include the config
// servers'); nil counts the totals.
func summarizeHost(snaps []snapshot, shardHosts map[string]bool) hostWindow {
	s := &results.ServerSample{Samples: len(snaps)}
	hw := hostWindow{sample: s}
	if len(snaps) == 0 {
		return hw
	}
	first, last := snaps[0], snaps[len(snaps)-1]
	s.Version = last.version
	secs := 0.0
	if len(snaps) > 1 {
		secs = elapsedSeconds(first, last)
	}

	if first.opcounters != nil && last.opcounters != nil && secs > 0 {
		s.OpcountersPerS = map[string]float64{}
		for _, k := range opcounterNames {
			a, okA := first.opcounters[k]
			b, okB := last.opcounters[k]
			if !okA || !okB || b < a {
				continue
			}
			d := b - a
			if k == "command" {
				// serverStatus, connPoolStats, listShards, heartbeats and
				// handshakes of the sampler are not the workload's.
				d -= last.ownCommands - first.ownCommands
				if d < 0 {
					d = 0
				}
			}
			s.OpcountersPerS[k] = d / secs
		}
	}

	conn := &results.ConnCounts{
		Current:     mean(snaps, func(x *snapshot) *float64 { return x.connCurrent }),
		Available:   mean(snaps, func(x *snapshot) *float64 { return x.connAvailable }),
		CreatedPerS: perSecond(delta(first.connTotalCreated, last.connTotalCreated), secs),
	}
	s.Connections = orNil(conn, connFields)
	if s.Connections != nil {
		// What an event's peak is read against: the most seen open, and
		// the server's limit.
		s.Connections.Peak = most(snaps, func(x *snapshot) *float64 { return x.connCurrent })
		s.Connections.Limit = most(snaps, func(x *snapshot) *float64 { return sumBoth(x.connCurrent, x.connAvailable) })
	}

	if dOps, dLat := delta(first.readOps, last.readOps), delta(first.readLatency, last.readLatency); dOps != nil && dLat != nil {
		hw.readOps, hw.readLatUS, hw.latOK[0] = *dOps, *dLat, true
		if *dOps > 0 {
			s.ReadLatencyUS = ptr(*dLat / *dOps)
		}
	}
	if dOps, dLat := delta(first.writeOps, last.writeOps), delta(first.writeLatency, last.writeLatency); dOps != nil && dLat != nil {
		hw.writeOps, hw.writeLatUS, hw.latOK[1] = *dOps, *dLat, true
		if *dOps > 0 {
			s.WriteLatencyUS = ptr(*dLat / *dOps)
		}
	}

	if secs > 0 {
		if hw.latOK[0] {
			s.ReadOpsPerS = ptr(hw.readOps / secs)
		}
		if hw.latOK[1] {
			s.WriteOpsPerS = ptr(hw.writeOps / secs)
		}
		if hw.latOK[0] && hw.latOK[1] {
			s.InFlight = ptr((hw.readLatUS + hw.writeLatUS) / (secs * 1e6))
		}
	}

	q := &results.QueueCounts{
		Readers: mean(snaps, func(x *snapshot) *float64 { return x.queueReaders }),
		Writers: mean(snaps, func(x *snapshot) *float64 { return x.queueWriters }),
	}
	s.Queue = orNil(q, queueFields)
	s.ActiveClients = mean(snaps, func(x *snapshot) *float64 { return sumPtr(x.activeReaders, x.activeWriters) })
	s.Tickets = ticketWindow(snaps, secs)

	if secs > 0 {
		// Both halves are needed: user time alone would understate the CPU.
		du, ds := delta(first.cpuUserUS, last.cpuUserUS), delta(first.cpuSysUS, last.cpuSysUS)
		if du != nil && ds != nil {
			s.CPUPct = ptr((*du + *ds) / (secs * 1e6) * 100)
			s.ReportedCPUPct = s.CPUPct
		}
		if d := delta(first.netIn, last.netIn); d != nil {
			s.NetInBytesPerS = perSecond(ptr(max(0, *d-(last.ownBytesIn-first.ownBytesIn))), secs)
		}
		if d := delta(first.netOut, last.netOut); d != nil {
			s.NetOutBytesPerS = perSecond(ptr(max(0, *d-(last.ownBytesOut-first.ownBytesOut))), secs)
		}
	}
	s.RSSMB = mean(snaps, func(x *snapshot) *float64 { return x.residentMB })
	s.ResidentMB = s.RSSMB

	pool := func(x *snapshot) poolCounts { return poolToShards(x, shardHosts) }
	cp := &results.ConnPoolCounts{
		InUse:     mean(snaps, func(x *snapshot) *float64 { return pool(x).inUse }),
		Available: mean(snaps, func(x *snapshot) *float64 { return pool(x).available }),
		// Connections the router opened to its shards during the window:
		// the lifetime total is meaningless for one step.
		Created:    delta(pool(&first).created, pool(&last).created),
		Leased:     mean(snaps, func(x *snapshot) *float64 { return pool(x).leased }),
		Refreshing: mean(snaps, func(x *snapshot) *float64 { return pool(x).refreshing }),
	}
	s.ConnPool = orNil(cp, poolFields)
	if s.ConnPool != nil {
		s.ConnPool.ShardHosts = routerPoolHosts(snaps, shardHosts)
		s.ConnPool.Settings = routerPoolSettings(snaps)
	}
	s.Establishment = establishmentWindow(snaps)
	return hw
}

// routerPoolHosts is a router's pools to each shard host over the window
// (hosts and pools entries of connPoolStats); nil while the shards are
// not known, since the hosts then include the config servers.
func routerPoolHosts(snaps []snapshot, shardHosts map[string]bool) map[string]*results.RouterPoolHost {
	if shardHosts == nil {
		return nil
	}
	first, last := &snaps[0], &snaps[len(snaps)-1]
	var out map[string]*results.RouterPoolHost
	for host := range shardHosts {
		counts := func(x *snapshot) *poolCounts {
			if p, ok := x.poolHosts[host]; ok {
				return &p
			}
			return nil
		}
		field := func(get func(*poolCounts) *float64) func(*snapshot) *float64 {
			return func(x *snapshot) *float64 {
				if p := counts(x); p != nil {
					return get(p)
				}
				return nil
			}
		}
		created := field(func(p *poolCounts) *float64 { return p.created })
		grew := func(get func(*poolCounts) *float64) *float64 {
			f := field(get)
			return delta(f(first), f(last))
		}
		h := &results.RouterPoolHost{
			InUse:        mean(snaps, field(func(p *poolCounts) *float64 { return p.inUse })),
			Available:    mean(snaps, field(func(p *poolCounts) *float64 { return p.available })),
			Created:      delta(created(first), created(last)),
			Refreshing:   mean(snaps, field(func(p *poolCounts) *float64 { return p.refreshing })),
			Leased:       mean(snaps, field(func(p *poolCounts) *float64 { return p.leased })),
			WasNeverUsed: grew(func(p *poolCounts) *float64 { return p.wasNeverUsed }),
		}
		exec := func(get func(execPools) *float64) func(*snapshot) *float64 {
			return func(x *snapshot) *float64 {
				if e, ok := x.poolExec[host]; ok {
					return get(e)
				}
				return nil
			}
		}
		if n := most(snaps, exec(func(e execPools) *float64 { return ptr(float64(e.n)) })); n != nil {
			pools := int(*n)
			h.Pools = &pools
			h.BusiestInUse = mean(snaps, exec(func(e execPools) *float64 { return e.busiestInUse }))
			h.BusiestRefreshing = mean(snaps, exec(func(e execPools) *float64 { return e.busiestRefresh }))
		}
		if h.InUse == nil && h.Available == nil && h.Created == nil && h.Refreshing == nil && h.Pools == nil {
			continue // the router holds no pool to this host
		}
		if out == nil {
			out = map[string]*results.RouterPoolHost{}
		}
		out[host] = h
	}
	return out
}

// routerPoolSettings is the last getParameter reading of the router's
// pool settings in the window; nil where none was asked.
func routerPoolSettings(snaps []snapshot) *results.RouterPoolSettings {
	for i := len(snaps) - 1; i >= 0; i-- {
		if p := snaps[i].poolParams; p != nil {
			return &results.RouterPoolSettings{MaxSize: p.maxSize, MaxConnecting: p.maxConnecting, PoolSize: p.poolSize, NotRead: p.notRead}
		}
	}
	return nil
}

// establishmentWindow is what the server's connection-establishment rate
// limiter did over the window: its queue's mean length and the growth of
// its counters; rejections from connections.establishmentRateLimit when
// the queue's section is absent. nil where the server reports none.
func establishmentWindow(snaps []snapshot) *results.EstablishmentCounts {
	first, last := &snaps[0], &snaps[len(snaps)-1]
	grew := func(get func(*snapshot) *float64) *float64 { return delta(get(first), get(last)) }
	e := &results.EstablishmentCounts{
		QueuedMean:  mean(snaps, func(x *snapshot) *float64 { return x.estQueued }),
		Attempted:   grew(func(x *snapshot) *float64 { return x.ingress.attempted }),
		Admitted:    grew(func(x *snapshot) *float64 { return x.ingress.admitted }),
		Queued:      grew(func(x *snapshot) *float64 { return x.ingress.queued }),
		Rejected:    grew(func(x *snapshot) *float64 { return x.ingress.rejected }),
		Interrupted: grew(func(x *snapshot) *float64 { return x.ingress.interrupted }),
	}
	if e.Rejected == nil {
		e.Rejected = grew(func(x *snapshot) *float64 { return x.estRejected })
	}
	return orNil(e, establishmentFields)
}

// poolToShards is a router's pools to the shards' hosts, added up; with
// no shard hosts known, the totals.
func poolToShards(x *snapshot, shardHosts map[string]bool) poolCounts {
	if shardHosts == nil || x.poolHosts == nil {
		if x.poolTotal == nil {
			return poolCounts{}
		}
		return *x.poolTotal
	}
	var sum poolCounts
	for host, p := range x.poolHosts {
		if !shardHosts[host] {
			continue
		}
		sum.inUse = sumPtr(sum.inUse, p.inUse)
		sum.available = sumPtr(sum.available, p.available)
		sum.created = sumPtr(sum.created, p.created)
		sum.leased = sumPtr(sum.leased, p.leased)
		sum.refreshing = sumPtr(sum.refreshing, p.refreshing)
	}
	return sum
}

// ticketWindow summarises the admission tickets, each side apart: gauges
// are means over the snapshots; QueuedFromTime is the growth of the side's
// totalTimeQueuedMicros over the window, which counts every op's wait and
// not only the moments sampled.
func ticketWindow(snaps []snapshot, secs float64) *results.TicketCounts {
	t := &results.TicketCounts{
		Read:  sideWindow(snaps, secs, func(x *snapshot) *ticketSide { return x.ticketsRead }),
		Write: sideWindow(snaps, secs, func(x *snapshot) *ticketSide { return x.ticketsWrite }),
	}
	if t.Read == nil && t.Write == nil {
		return nil
	}
	return t
}

func sideWindow(snaps []snapshot, secs float64, side func(*snapshot) *ticketSide) *results.TicketSide {
	field := func(get func(*ticketSide) *float64) func(*snapshot) *float64 {
		return func(x *snapshot) *float64 {
			if ts := side(x); ts != nil {
				return get(ts)
			}
			return nil
		}
	}
	ts := &results.TicketSide{
		InUse:     mean(snaps, field(func(t *ticketSide) *float64 { return t.out })),
		Available: mean(snaps, field(func(t *ticketSide) *float64 { return t.available })),
		Total:     mean(snaps, field(func(t *ticketSide) *float64 { return t.total })),
		Queued:    mean(snaps, field(func(t *ticketSide) *float64 { return t.queueLength })),
	}
	if len(snaps) > 1 && secs > 0 {
		queuedMicros := field(func(t *ticketSide) *float64 { return t.queuedMicros })
		if d := delta(queuedMicros(&snaps[0]), queuedMicros(&snaps[len(snaps)-1])); d != nil {
			ts.QueuedFromTime = ptr(*d / (secs * 1e6))
		}
	}
	return orNil(ts, sideFields)
}

// totalOf adds the hosts' summaries: rates, gauges, in-flight ops, CPU (in
// % of one core, so three busy hosts may show 250%) and RSS are sums over the
// hosts that report them; latencies are weighted by each host's op count.
// Cores stay per host (hosts may share a machine). A field no host reports
// stays nil.
func totalOf(hosts []hostWindow) *results.ServerSample {
	t := &results.ServerSample{}
	var rOps, rLat, wOps, wLat float64
	var rOK, wOK bool
	collect := func(get func(*results.ServerSample) *float64) *float64 {
		vs := make([]*float64, 0, len(hosts))
		for _, h := range hosts {
			vs = append(vs, get(h.sample))
		}
		return sumPtr(vs...)
	}
	for _, h := range hosts {
		s := h.sample
		t.Samples += s.Samples
		if s.OpcountersPerS != nil {
			if t.OpcountersPerS == nil {
				t.OpcountersPerS = map[string]float64{}
			}
			for k, v := range s.OpcountersPerS {
				t.OpcountersPerS[k] += v
			}
		}
		if h.latOK[0] {
			rOps += h.readOps
			rLat += h.readLatUS
			rOK = true
		}
		if h.latOK[1] {
			wOps += h.writeOps
			wLat += h.writeLatUS
			wOK = true
		}
	}
	if rOK && rOps > 0 {
		t.ReadLatencyUS = ptr(rLat / rOps)
	}
	if wOK && wOps > 0 {
		t.WriteLatencyUS = ptr(wLat / wOps)
	}

	t.Connections = sumGroup(hosts, func(s *results.ServerSample) *results.ConnCounts { return s.Connections }, connFields)
	t.Queue = sumGroup(hosts, func(s *results.ServerSample) *results.QueueCounts { return s.Queue }, queueFields)
	t.Tickets = &results.TicketCounts{
		Read:  sumGroup(hosts, func(s *results.ServerSample) *results.TicketSide { return s.Tickets.Side(true) }, sideFields),
		Write: sumGroup(hosts, func(s *results.ServerSample) *results.TicketSide { return s.Tickets.Side(false) }, sideFields),
	}
	if t.Tickets.Read == nil && t.Tickets.Write == nil {
		t.Tickets = nil
	}
	t.ReadOpsPerS = collect(func(s *results.ServerSample) *float64 { return s.ReadOpsPerS })
	t.WriteOpsPerS = collect(func(s *results.ServerSample) *float64 { return s.WriteOpsPerS })
	t.ConnPool = sumGroup(hosts, func(s *results.ServerSample) *results.ConnPoolCounts { return s.ConnPool }, poolFields)
	t.Establishment = sumGroup(hosts, func(s *results.ServerSample) *results.EstablishmentCounts { return s.Establishment }, establishmentFields)
	t.ActiveClients = collect(func(s *results.ServerSample) *float64 { return s.ActiveClients })
	t.InFlight = collect(func(s *results.ServerSample) *float64 { return s.InFlight })
	t.CPUPct = collect(func(s *results.ServerSample) *float64 { return s.CPUPct })
	t.RSSMB = collect(func(s *results.ServerSample) *float64 { return s.RSSMB })
	t.NetInBytesPerS = collect(func(s *results.ServerSample) *float64 { return s.NetInBytesPerS })
	t.NetOutBytesPerS = collect(func(s *results.ServerSample) *float64 { return s.NetOutBytesPerS })
	return t
}

// The groups of counters a server sample holds, each field listed in a
// fixed order, so that one group's fields can be summed over hosts and a
// group no host reports stays nil.
func connFields(c *results.ConnCounts) []**float64 {
	return []**float64{&c.Current, &c.Available, &c.CreatedPerS}
}

func queueFields(q *results.QueueCounts) []**float64 { return []**float64{&q.Readers, &q.Writers} }

func sideFields(k *results.TicketSide) []**float64 {
	return []**float64{&k.InUse, &k.Available, &k.Total, &k.Queued, &k.QueuedFromTime}
}

func establishmentFields(e *results.EstablishmentCounts) []**float64 {
	return []**float64{&e.QueuedMean, &e.Attempted, &e.Admitted, &e.Queued, &e.Rejected, &e.Interrupted}
}

func poolFields(p *results.ConnPoolCounts) []**float64 {
	return []**float64{&p.InUse, &p.Available, &p.Created, &p.Leased, &p.Refreshing}
}

// orNil is g, or nil when none of its counters is reported.
func orNil[T any](g *T, fields func(*T) []**float64) *T {
	for _, f := range fields(g) {
		if *f != nil {
			return g
		}
	}
	return nil
}

// sumGroup adds up one group of counters over the hosts: each field is the
// sum over the hosts that report it.
func sumGroup[T any](hosts []hostWindow, group func(*results.ServerSample) *T, fields func(*T) []**float64) *T {
	var out T
	for i, f := range fields(&out) {
		var vs []*float64
		for _, h := range hosts {
			if g := group(h.sample); g != nil {
				vs = append(vs, *fields(g)[i])
			}
		}
		*f = sumPtr(vs...)
	}
	return orNil(&out, fields)
}
