package sim

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// AloneInProcess tells Start that the deployment is the only thing running
// in this process (poolsweep serve --sim, or a test's simulator child), so
// that serverStatus may report the process's own CPU time and memory
// (extra_info, mem) as a real server's: every CPU second of the process is
// the simulator's. Without it those sections are left out, since a
// simulator started inside the process that drives the load could not tell
// its CPU time from the client's.
func AloneInProcess() Option {
	return func(o *startOptions) { o.alone = true }
}

// processSections are serverStatus's extra_info and mem for this process,
// as the version reports them on Linux: extra_info.{user,system}_time_us
// (int64) from 4.2, from getrusage; mem.bits, resident and virtual in MB
// (int32) from /proc/self/statm, and supported. Every server reports both
// (real mongos and replica-set members do, and mongostat needs mem); the
// servers of a deployment share one process, so each reports its share
// of it (processShare): a standalone the whole process. A section that
// cannot be read here is left out, never invented.
func (f *frontend) processSections(v serverVersion) bson.D {
	var out bson.D
	if f.d.spec.OS == "windows" {
		out = append(out, windowsExtraInfo())
	} else if ru, ok := selfUsage(); ok {
		user, sys := f.d.processShare(f, ru)
		// hello_cost: each hello this server answered, as CPU time of
		// its own beside the process's.
		user += f.tel.hellos.Load() * f.d.spec.HelloCost.Microseconds()
		extra := bson.D{{Key: "note", Value: "fields vary by platform"}}
		if v.cpuTimes {
			extra = append(extra,
				bson.E{Key: "user_time_us", Value: user},
				bson.E{Key: "system_time_us", Value: sys},
				bson.E{Key: "maximum_resident_set_kb", Value: ru.maxRSSKB},
				bson.E{Key: "page_faults", Value: ru.majorFaults})
		} else {
			extra = append(extra, bson.E{Key: "page_faults", Value: int32(ru.majorFaults)})
		}
		out = append(out, bson.E{Key: "extra_info", Value: extra})
	}
	if resident, virtual, ok := selfMemoryMB(); ok {
		n := int64(len(f.d.listening()))
		out = append(out, f.modelMem(resident<<20/n, virtual<<20/n))
	} else if f.d.spec.ConnMem > 0 {
		out = append(out, f.modelMem(0, 0))
	}
	return out
}

// modelMem is serverStatus.mem for a server whose process holds resident
// and virtual bytes: with conn_mem, each connection open to this server
// adds conn_mem to both, as a real server's memory grows with each
// connection's thread and buffers. The fields are whole MB, rounded down,
// as a real server reports them. Inside the process that drives the load
// (no AloneInProcess) the process's own memory is the client's too, so a
// spec with conn_mem reports its connections' memory alone there: the
// growth with connections, which is what a connection sweep measures.
func (f *frontend) modelMem(resident, virtual int64) bson.E {
	if m := f.d.spec.ConnMem; m > 0 {
		conns := f.tel.connCurrent.Load()
		if f.shardServer {
			conns += f.shard.openConns.Load()
		}
		resident += conns * m
		virtual += conns * m
	}
	return bson.E{Key: "mem", Value: bson.D{
		{Key: "bits", Value: int32(strconv.IntSize)},
		{Key: "resident", Value: int32(resident >> 20)},
		{Key: "virtual", Value: int32(virtual >> 20)},
		{Key: "supported", Value: true},
	}}
}

// processLedger apportions the process's CPU time among a deployment's
// listening servers: each growth of the process's user and system time
// is shared in proportion to the model time each server worked since the
// last share (its slots' hold time: service time on a data server,
// router_cost on a router; evenly when none worked). Each server's counter
// only grows, and the servers' add up to the process's.
type processLedger struct {
	mu        sync.Mutex
	user, sys int64 // the process's totals when last shared
	work      map[*frontend]time.Duration
	userOf    map[*frontend]int64
	sysOf     map[*frontend]int64
}

// processShare returns f's share of the process's CPU time (µs) ru says.
// Memory is shared evenly instead (processSections): what each server's
// store and connections hold is not counted apart.
func (d *Deployment) processShare(f *frontend, ru rusage) (user, sys int64) {
	servers := d.listening()
	if len(servers) == 1 {
		return ru.userMicros, ru.systemMicros
	}
	l := &d.ledger
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.work == nil {
		l.work, l.userOf, l.sysOf = map[*frontend]time.Duration{}, map[*frontend]int64{}, map[*frontend]int64{}
	}
	du, ds := ru.userMicros-l.user, ru.systemMicros-l.sys
	if du > 0 || ds > 0 {
		worked := make([]time.Duration, len(servers))
		var total time.Duration
		for i, s := range servers {
			w := s.worked()
			worked[i] = max(0, w-l.work[s])
			total += worked[i]
			l.work[s] = w
		}
		for i, s := range servers {
			share := 1 / float64(len(servers))
			if total > 0 {
				share = float64(worked[i]) / float64(total)
			}
			l.userOf[s] += int64(float64(max(du, 0)) * share)
			l.sysOf[s] += int64(float64(max(ds, 0)) * share)
		}
		l.user, l.sys = max(l.user, ru.userMicros), max(l.sys, ru.systemMicros)
	}
	return l.userOf[f], l.sysOf[f]
}

// worked is the model time f's own slots have been held: a router's pool,
// or a data server's read and write slots.
func (f *frontend) worked() time.Duration {
	if f.router {
		return f.exec.snapshot().HoldTotal
	}
	return f.shard.reads.snapshot().HoldTotal + f.shard.writes.snapshot().HoldTotal
}

// rusage is the part of getrusage(RUSAGE_SELF) serverStatus reports.
type rusage struct {
	userMicros, systemMicros, maxRSSKB, majorFaults int64
	minorFaults                                     int64 // os=windows counts them with the major ones
}

// selfMemoryMB reads this process's resident and virtual size from
// /proc/self/statm (pages).
func selfMemoryMB() (resident, virtual int64, ok bool) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, 0, false
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0, 0, false
	}
	size, err1 := strconv.ParseInt(f[0], 10, 64)
	rss, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, false
	}
	page := int64(os.Getpagesize())
	return rss * page >> 20, size * page >> 20, true
}
