package sim

import (
	"os"
	"strconv"
	"strings"

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
// (int64) from 4.2, from getrusage; mem.resident and mem.virtual in MB
// (int32) from /proc/self/statm. A section that cannot be read here is left
// out, never invented.
func processSections(v serverVersion) bson.D {
	var out bson.D
	if ru, ok := selfUsage(); ok {
		extra := bson.D{{Key: "note", Value: "fields vary by platform"}}
		if v.cpuTimes {
			extra = append(extra,
				bson.E{Key: "user_time_us", Value: ru.userMicros},
				bson.E{Key: "system_time_us", Value: ru.systemMicros},
				bson.E{Key: "maximum_resident_set_kb", Value: ru.maxRSSKB},
				bson.E{Key: "page_faults", Value: ru.majorFaults})
		} else {
			extra = append(extra, bson.E{Key: "page_faults", Value: int32(ru.majorFaults)})
		}
		out = append(out, bson.E{Key: "extra_info", Value: extra})
	}
	if resident, virtual, ok := selfMemoryMB(); ok {
		out = append(out, bson.E{Key: "mem", Value: bson.D{
			{Key: "bits", Value: int32(strconv.IntSize)},
			{Key: "resident", Value: int32(resident)},
			{Key: "virtual", Value: int32(virtual)},
			{Key: "supported", Value: true},
		}})
	}
	return out
}

// rusage is the part of getrusage(RUSAGE_SELF) serverStatus reports.
type rusage struct {
	userMicros, systemMicros, maxRSSKB, majorFaults int64
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
