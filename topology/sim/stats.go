package sim

import "time"

// The counters a test or a diagnostic reads from a running deployment
// (Stats): each listening server's, and each shard's slot pools.

// SlotStats are the counted totals of one slot pool.
type SlotStats struct {
	Total    int           // slots
	Acquired int64         // ops that held a slot
	MaxQueue int           // longest wait queue seen
	Wait     time.Duration // total time ops waited for a slot
	Held     time.Duration // total time slots were held
}

// ServerStats are the counters of one listening server: the standalone or
// the routers, then the shards' own servers.
type ServerStats struct {
	Host                                            string
	Process                                         string // "mongod" or "mongos"
	ConnectionsCurrent                              int64
	ConnectionsCreated                              int64
	Requests                                        int64
	Insert, Query, Update, Delete, GetMore, Command int64
	BytesIn, BytesOut                               int64
	// Slots is the router's own pool; zero on a standalone (see Shards[0]).
	Slots SlotStats
	// Router→shard connections (routers only).
	PoolInUse, PoolAvailable, PoolCreated int
}

// ShardStats are the counters of one shard (or of the standalone's data, or
// of one replica-set member's, named by its host).
type ShardStats struct {
	Name      string
	Reads     SlotStats // the read pool
	Writes    SlotStats // the write pool
	OpenConns int64     // connections conn_cost is charged for
	Documents int
}

// MemberStats are one replica-set member's replication state.
type MemberStats struct {
	Host    string
	Primary bool
	// Applied is the primary's time of the last write this member has
	// applied (its optime's wall time, to the nanosecond).
	Applied time.Time
	// Behind is how far Applied trails the newest write the set logged:
	// the member's replication lag, 0 when it is caught up.
	Behind time.Duration
	// Pending counts the logged writes it has not applied yet.
	Pending int
	// Applier is its oplog applier's pool (repl_writers slots).
	Applier SlotStats
}

// Stats is a snapshot of every counter, for tests and diagnostics.
type Stats struct {
	Servers []ServerStats
	Shards  []ShardStats
	Members []MemberStats // a replica set's, in member order
}

// Stats returns a snapshot of the deployment's counters.
func (d *Deployment) Stats() Stats {
	var st Stats
	for _, f := range d.listening() {
		s := ServerStats{
			Host: f.host, Process: f.process(),
			ConnectionsCurrent: f.tel.connCurrent.Load(), ConnectionsCreated: f.tel.connCreated.Load(),
			Requests: f.tel.numRequests.Load(),
			Insert:   f.tel.insert.Load(), Query: f.tel.query.Load(), Update: f.tel.update.Load(),
			Delete: f.tel.delete.Load(), GetMore: f.tel.getmore.Load(), Command: f.tel.command.Load(),
			BytesIn: f.tel.bytesIn.Load(), BytesOut: f.tel.bytesOut.Load(),
		}
		if f.exec != nil {
			s.Slots = slotStats(f.exec.snapshot())
		}
		if f.rpools != nil {
			c := f.rpools.totals()
			s.PoolInUse, s.PoolAvailable, s.PoolCreated = c.inUse, c.available, c.created
		}
		st.Servers = append(st.Servers, s)
	}
	if d.rs != nil {
		st.Members = d.rs.stats()
	}
	for _, sh := range d.shards {
		sh.store.mu.Lock()
		docs := 0
		for _, colls := range sh.store.dbs {
			for _, c := range colls {
				docs += len(c.docs)
			}
		}
		sh.store.mu.Unlock()
		st.Shards = append(st.Shards, ShardStats{Name: sh.name, Reads: slotStats(sh.reads.snapshot()), Writes: slotStats(sh.writes.snapshot()),
			OpenConns: sh.openConns.Load(), Documents: docs})
	}
	return st
}

func slotStats(s slotSnapshot) SlotStats {
	return SlotStats{Total: s.Total, Acquired: s.Acquired, MaxQueue: s.MaxQueued, Wait: s.WaitTotal, Held: s.HoldTotal}
}
