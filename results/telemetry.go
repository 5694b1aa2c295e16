package results

// ServerTelemetry is what the server(s) said about themselves during the
// window; nil fields mean "not reported by this server", never zero.
type ServerTelemetry struct {
	// Hosts are the hosts of the URI: a standalone, a replica set's
	// members, or a sharded cluster's mongos routers.
	Hosts         map[string]*ServerSample `json:"hosts"`
	Total         *ServerSample            `json:"total"`
	SamplerErrors int                      `json:"sampler_errors"`
	SamplerError  string                   `json:"sampler_error,omitempty"`
	Shards        []string                 `json:"shards,omitempty"`
	// Replication is each secondary's replication lag during the window,
	// from the primary's replSetGetStatus; absent on a target that is no
	// replica set, or when no primary answered it.
	Replication []MemberLag `json:"replication,omitempty"`
	// ShardsSampled says, for a sharded cluster, whether its shards'
	// primaries were sampled behind the routers (nil for other
	// topologies); ShardsNotSampled says why not.
	ShardsSampled    *bool  `json:"shards_sampled,omitempty"`
	ShardsNotSampled string `json:"shards_not_sampled,omitempty"`
	// ShardHosts are the shards' primaries, sampled directly, keyed by
	// shard name (listShards _id); ShardTotal adds them up as Total adds up
	// Hosts.
	ShardHosts map[string]*ShardSample `json:"shard_hosts,omitempty"`
	ShardTotal *ServerSample           `json:"shard_total,omitempty"`
}

// ShardSample is one shard's primary during the window.
type ShardSample struct {
	Host   string        `json:"host"`
	Sample *ServerSample `json:"sample"`
}

// ServerSample is one host's (or the sum of all hosts') window summary.
type ServerSample struct {
	// Version is the server's own (serverStatus.version); empty on Total.
	Version        string             `json:"version,omitempty"`
	Connections    *ConnCounts        `json:"connections"`
	OpcountersPerS map[string]float64 `json:"opcounters_per_s"`
	ReadLatencyUS  *float64           `json:"read_latency_us"`
	WriteLatencyUS *float64           `json:"write_latency_us"`
	// ReadOpsPerS and WriteOpsPerS are the ops the latencies are means of
	// (opLatencies.{reads,writes}.ops): one per command, where opcounters
	// count documents (an insertMany of 1,000 is 1,000 inserts).
	ReadOpsPerS  *float64     `json:"read_ops_per_s"`
	WriteOpsPerS *float64     `json:"write_ops_per_s"`
	Queue        *QueueCounts `json:"queue"`
	// ActiveClients is globalLock.activeClients readers + writers: the
	// ops holding the global lock (its total counts internal threads too).
	ActiveClients *float64      `json:"active_clients"`
	Tickets       *TicketCounts `json:"tickets"`
	CPUPct        *float64      `json:"cpu_pct"`
	RSSMB         *float64      `json:"rss_mb"`
	// ResidentMB is serverStatus mem.resident over the window (mean), as
	// the server reports it: RSSMB, where poolsweep started the server
	// and reads its process itself, is that process's instead. Absent
	// where the server reports no mem, and on Total.
	ResidentMB *float64 `json:"resident_mb,omitempty"`
	// ReportedCPUPct is CPUPct as the server reports it (extra_info's
	// user and system time), which /proc of a server poolsweep started
	// does not replace; absent where the server reports none, and on
	// Total.
	ReportedCPUPct  *float64        `json:"reported_cpu_pct,omitempty"`
	NetInBytesPerS  *float64        `json:"net_in_bytes_per_s"`
	NetOutBytesPerS *float64        `json:"net_out_bytes_per_s"`
	ConnPool        *ConnPoolCounts `json:"conn_pool,omitempty"`
	// Establishment is the server's connection-establishment rate limiter
	// (8.2; 8.0.12 and 7.0.23 backports) over the window; nil where the
	// server reports none of it.
	Establishment *EstablishmentCounts `json:"establishment,omitempty"`
	Samples       int                  `json:"samples"`
	// InFlight is the server's mean ops in flight over the window by
	// Little's law (its read+write ops/s × their mean server latency, queue
	// wait included); nil when the server reports no opLatencies.
	InFlight *float64 `json:"in_flight"`
	// Cores is the host's core count from hostInfo (per host; nil on Total
	// and where the server does not answer).
	Cores *int `json:"cores"`
	// CoresMayMissQuota: hostInfo shows a memory limit below the host's
	// memory (a container, likely), and its core count is the host's, which
	// a CPU quota does not change: the CPU rule may miss a quota.
	CoresMayMissQuota bool `json:"cores_may_miss_quota,omitempty"`
}

// ConnCounts is serverStatus.connections over the window.
type ConnCounts struct {
	Current     *float64 `json:"current"`
	Available   *float64 `json:"available"`
	CreatedPerS *float64 `json:"created_per_s"`
	// Peak is the most connections one sample saw open, and Limit the
	// most current + available one reported (the server's connection
	// limit); per host only (absent on the total, where a sum of peaks
	// taken at different moments would mean nothing).
	Peak  *float64 `json:"peak,omitempty"`
	Limit *float64 `json:"limit,omitempty"`
}

// EstablishmentCounts is what the server's connection-establishment rate
// limiter (ingressConnectionEstablishmentRatePerSec and its burst and
// queue depth) did over the window: connections.queuedForEstablishment
// (mean), and the growth of queues.ingressSessionEstablishment's counters
// (connections.establishmentRateLimit.rejected for Rejected when the
// queue section is absent). A field the server does not report is nil,
// never 0.
type EstablishmentCounts struct {
	QueuedMean *float64 `json:"queued_mean"` // connections waiting for a token, mean
	Attempted  *float64 `json:"attempted"`   // connections that asked for a token
	Admitted   *float64 `json:"admitted"`    // given one, at once or after queueing
	Queued     *float64 `json:"queued"`      // that waited in the queue
	Rejected   *float64 `json:"rejected"`    // refused: the queue was full
	// Interrupted left the queue without a token (the client went away,
	// or the server shut down).
	Interrupted *float64 `json:"interrupted"`
}

// Limited says whether the limiter queued or rejected any connection.
func (e *EstablishmentCounts) Limited() bool {
	return e != nil && (e.Queued != nil && *e.Queued > 0 || e.Rejected != nil && *e.Rejected > 0 || e.QueuedMean != nil && *e.QueuedMean > 0)
}

// QueueCounts is globalLock.currentQueue, averaged over the window.
type QueueCounts struct {
	Readers *float64 `json:"readers"`
	Writers *float64 `json:"writers"`
}

// TicketCounts is the execution tickets (queues.execution or
// wiredTiger.concurrentTransactions) over the window, read and write
// apart: they are separate pools, and one exhausted while the other is
// idle is saturation a sum would hide.
type TicketCounts struct {
	Read  *TicketSide `json:"read,omitempty"`
	Write *TicketSide `json:"write,omitempty"`
	// InUse, Available and Queued are both sides added up, as files written
	// before per-side tickets hold them; poolsweep no longer writes them.
	InUse     *float64 `json:"in_use,omitempty"`
	Available *float64 `json:"available,omitempty"`
	Queued    *float64 `json:"queued,omitempty"`
}

// TicketSide is one side's tickets, averaged over the window.
type TicketSide struct {
	InUse     *float64 `json:"in_use"`
	Available *float64 `json:"available"`
	Total     *float64 `json:"total"`
	// Queued is the mean queue length the server reports (7.0+: on the
	// side, or its normalPriority and lowPriority blocks added).
	Queued *float64 `json:"queued"`
	// QueuedFromTime is the mean number of ops waiting over the whole
	// window by Little's law: the growth of totalTimeQueuedMicros (both
	// priorities) over the window's length (7.0+).
	QueuedFromTime *float64 `json:"queued_from_time"`
}

// Side is one side of the tickets (read or write); nil when t is nil.
func (t *TicketCounts) Side(read bool) *TicketSide {
	switch {
	case t == nil:
		return nil
	case read:
		return t.Read
	default:
		return t.Write
	}
}

// SideQueued is the mean number of one side's ops (reads or writes)
// waiting at the server over the window: the tickets' own queue where the
// server reports it (7.0+), else globalLock.currentQueue's readers or
// writers; nil when neither is reported.
func (s *ServerSample) SideQueued(read bool) *float64 {
	if s == nil {
		return nil
	}
	if ts := s.Tickets.Side(read); ts != nil && ts.Queued != nil {
		return ts.Queued
	}
	if s.Queue != nil {
		if read {
			return s.Queue.Readers
		}
		return s.Queue.Writers
	}
	return nil
}

// Queued is the mean number of ops waiting at the server over the window,
// both sides added (SideQueued), or, in a file written before per-side
// tickets, its summed ticket queue; nil when none is reported.
func (s *ServerSample) Queued() *float64 {
	if s == nil {
		return nil
	}
	r, w := s.SideQueued(true), s.SideQueued(false)
	switch {
	case r != nil && w != nil:
		q := *r + *w
		return &q
	case r != nil:
		return r
	case w != nil:
		return w
	case s.Tickets != nil:
		return s.Tickets.Queued
	}
	return nil
}

// ConnPoolCounts is a router's connection pools to its shards
// (connPoolStats, summed over the shards' hosts once listShards has named
// them; before that, the totals, which include the config servers).
type ConnPoolCounts struct {
	InUse     *float64 `json:"in_use"`
	Available *float64 `json:"available"`
	Created   *float64 `json:"created"`
	// Leased are connections checked out of the pool for a while (5.0+).
	Leased *float64 `json:"leased"`
	// Refreshing are connections being opened or health-checked, mean: a
	// pool opens at most MaxConnecting at once, so refreshing held at that
	// limit says the pool's growth was its limit.
	Refreshing *float64 `json:"refreshing,omitempty"`
	// ShardHosts are the router's pools to each shard host (per router;
	// absent on the total, where hosts of different routers would add up
	// to no one pool).
	ShardHosts map[string]*RouterPoolHost `json:"shard_hosts,omitempty"`
	// Settings are the router's pool settings as getParameter read them in
	// the window; nil where it was not asked (not a router, or an older
	// file).
	Settings *RouterPoolSettings `json:"settings,omitempty"`
}

// RouterPoolHost is a router's connections to one shard host over the
// window: the hosts entry of connPoolStats for the counts, and its pools
// entries for how they spread over the task executor's pools
// (NetworkInterfaceTL-TaskExecutorPool-N), each of which holds at most
// ShardingTaskExecutorPoolMaxSize connections to the host. Counts are
// means, Created the growth in the window; nil is not reported.
type RouterPoolHost struct {
	InUse      *float64 `json:"in_use"`
	Available  *float64 `json:"available"`
	Created    *float64 `json:"created"`
	Refreshing *float64 `json:"refreshing"`
	Leased     *float64 `json:"leased"`
	// WasNeverUsed are connections to the host closed without carrying an
	// operation during the window (wasNeverUsed, 7.0+ behind a feature
	// flag): churn. nil: not reported.
	WasNeverUsed *float64 `json:"was_never_used,omitempty"`
	// Pools is how many task-executor pools hold connections to the host
	// (the most seen in one sample); nil where the reply lists no pools.
	Pools *int `json:"pools,omitempty"`
	// BusiestInUse and BusiestRefreshing are the most in use and the most
	// being opened in one of those pools, mean over the samples: the
	// numbers a pool's MaxSize and MaxConnecting cap. nil without pools.
	BusiestInUse      *float64 `json:"busiest_in_use,omitempty"`
	BusiestRefreshing *float64 `json:"busiest_refreshing,omitempty"`
}

// PoolCount is how many task-executor pools hold connections to the
// host: as connPoolStats lists them, else taskExecutorPoolSize as read;
// false where neither says (4.0's 0 means one per core, a count the
// router does not give).
func (h *RouterPoolHost) PoolCount(set *RouterPoolSettings) (int, bool) {
	switch {
	case h != nil && h.Pools != nil && *h.Pools > 0:
		return *h.Pools, true
	case set != nil && set.PoolSize != nil && *set.PoolSize >= 1:
		return int(*set.PoolSize), true
	}
	return 0, false
}

// RouterPoolSettings are a router's pool settings (getParameter), the
// last value read in the window; nil is not read.
type RouterPoolSettings struct {
	// MaxSize is ShardingTaskExecutorPoolMaxSize as the server gives it:
	// -1 (before 5.0) or 2^63-1 and above mean no limit (see MaxSizeLimit).
	MaxSize *float64 `json:"max_size"`
	// MaxConnecting is ShardingTaskExecutorPoolMaxConnecting (default 2).
	MaxConnecting *float64 `json:"max_connecting"`
	// PoolSize is taskExecutorPoolSize: the pools per shard host (0 on
	// 4.0 means one per core).
	PoolSize *float64 `json:"task_executor_pool_size"`
	// NotRead says why getParameter gave none of them (the server's error
	// code name, or that the server does not know them).
	NotRead string `json:"not_read,omitempty"`
}

// MaxSizeLimit is the most connections one pool may hold to one host;
// false where the router sets no limit or it was not read.
func (s *RouterPoolSettings) MaxSizeLimit() (float64, bool) {
	if s == nil || s.MaxSize == nil || *s.MaxSize <= 0 || *s.MaxSize >= 1<<31 {
		return 0, false
	}
	return *s.MaxSize, true
}

// ClientTelemetry is this process, and the load host it runs on, during
// the window. The host fields are nil where the platform has no source.
type ClientTelemetry struct {
	CPUPct     float64 `json:"cpu_pct"`
	CPUs       int     `json:"cpus"`
	GCPauseMS  float64 `json:"gc_pause_ms"`
	Goroutines int     `json:"goroutines"`

	// CPUPressurePct is PSI "some" for CPU (/proc/pressure/cpu): the share
	// of wall time in which at least one runnable task waited for a CPU.
	CPUPressurePct *float64 `json:"cpu_pressure_pct"`
	// HostCPUs is how many CPUs HostCPUPct and OthersCPUPct are shares of.
	HostCPUs *int `json:"host_cpus"`
	// HostCPUPct is the host's busy CPU (/proc/stat), in % of all cores.
	HostCPUPct *float64 `json:"host_cpu_pct"`
	// OthersCPUPct is the host's busy CPU not spent by this process, in %
	// of all cores.
	OthersCPUPct *float64 `json:"others_cpu_pct"`
	// SchedLatencyP50MS and SchedLatencyP99MS are how long this process's
	// runnable goroutines waited to run (runtime/metrics
	// /sched/latencies:seconds over the window).
	SchedLatencyP50MS *float64 `json:"sched_latency_p50_ms"`
	SchedLatencyP99MS *float64 `json:"sched_latency_p99_ms"`
	// RunQueueWaitPct is the share of the time this process's threads
	// wanted a CPU that they spent waiting for one (Linux
	// /proc/self/task/*/schedstat): the starvation the OS imposed on us,
	// which the Go scheduler's own latency cannot see while our threads
	// sleep in epoll.
	RunQueueWaitPct *float64 `json:"run_queue_wait_pct"`
}
