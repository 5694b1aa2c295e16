package sim

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// os=windows: the servers answer as MongoDB on Windows does, in the
// replies that differ by platform. The evidence is mongodb/mongo's
// src/mongo/util/processinfo_windows.cpp (ProcessInfo::getExtraInfo) and
// the issue-33 captures of Windows servers, whose serverStatus.process
// is the executable's path.

// windowsProcess is serverStatus.process of a server installed by
// MongoDB's Windows installer and run as a service: the executable's
// path, under the version's folder.
func windowsProcess(v serverVersion, name string) string {
	return `C:\Program Files\MongoDB\Server\` + v.name + `\bin\` + name + ".exe"
}

// windowsExtraInfo is extra_info as a Windows server reports it: no CPU
// time at all (getExtraInfo has none there, unlike Linux's getrusage
// fields), page_faults, and from GlobalMemoryStatusEx the commit limit
// (totalPageFileMB), what of it is free (availPageFileMB) and the RAM
// (ramMB), all int32. Here they are read from this machine's nearest
// equivalents: the process's page faults (getrusage: minor and major, as
// Windows counts soft and hard faults together) and /proc/meminfo's
// CommitLimit, CommitLimit − Committed_AS and MemTotal. usagePageFileMB
// (the process's own commit charge) has no equivalent read here and is
// left out, as is any field that cannot be read.
func windowsExtraInfo() bson.E {
	extra := bson.D{{Key: "note", Value: "fields vary by platform"}}
	if ru, ok := selfUsage(); ok {
		extra = append(extra, bson.E{Key: "page_faults", Value: int32(ru.minorFaults + ru.majorFaults)})
	}
	if m, ok := meminfoMB("CommitLimit", "Committed_AS", "MemTotal"); ok {
		extra = append(extra,
			bson.E{Key: "totalPageFileMB", Value: int32(m["CommitLimit"])},
			bson.E{Key: "availPageFileMB", Value: int32(max(0, m["CommitLimit"]-m["Committed_AS"]))},
			bson.E{Key: "ramMB", Value: int32(m["MemTotal"])})
	}
	return bson.E{Key: "extra_info", Value: extra}
}

// meminfoMB reads the named /proc/meminfo fields, in MB; false unless
// every one is there.
func meminfoMB(names ...string) (map[string]int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return nil, false
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		if kb, err := strconv.ParseInt(fields[1], 10, 64); err == nil {
			out[strings.TrimSuffix(fields[0], ":")] = kb / 1024
		}
	}
	for _, n := range names {
		if _, ok := out[n]; !ok {
			return nil, false
		}
	}
	return out, true
}
