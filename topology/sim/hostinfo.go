package sim

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdHostInfo answers hostInfo as mongod and mongos of the spec's version
// do, so that a client can learn the server's core count and memory:
// system.{currentTime, hostname, cpuAddrSize, memSizeMB, memLimitMB (4.2+),
// numCores, numCoresAvailableToProcess (8.0+), cpuArch, numaEnabled},
// os.{type, name, version} and extra.pageSize. numCores is the spec's cores,
// or this machine's when the spec leaves it out (numCoresAvailableToProcess
// likewise: the simulator sets no affinity). memSizeMB is the host's
// memory, memLimitMB the cgroup's limit when lower, as mongod reports them;
// both are left out where /proc/meminfo is not there to read, never invented.
func cmdHostInfo(f *frontend, _ context.Context, _ *connState, _ *cmd) (bson.D, error) {
	cores := f.d.spec.Cores
	if cores == 0 {
		cores = runtime.NumCPU()
	}
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	system := bson.D{
		{Key: "currentTime", Value: bson.NewDateTimeFromTime(time.Now())},
		{Key: "hostname", Value: host + ":" + portOf(f.host)},
		{Key: "cpuAddrSize", Value: int32(strconv.IntSize)},
	}
	v := f.d.version
	if mb, ok := memSizeMB(); ok {
		width := func(n int64) any {
			if v.memMB32 {
				return int32(n)
			}
			return n
		}
		system = append(system, bson.E{Key: "memSizeMB", Value: width(mb)})
		if v.memLimit {
			system = append(system, bson.E{Key: "memLimitMB", Value: width(min(mb, cgroupMemLimitMB(mb)))})
		}
	}
	system = append(system, bson.E{Key: "numCores", Value: int32(cores)})
	if v.coresAvailable {
		system = append(system, bson.E{Key: "numCoresAvailableToProcess", Value: int32(cores)})
	}
	system = append(system,
		bson.E{Key: "cpuArch", Value: cpuArch()},
		bson.E{Key: "numaEnabled", Value: false})
	return bson.D{
		{Key: "system", Value: system},
		{Key: "os", Value: bson.D{
			{Key: "type", Value: f.osType()},
			{Key: "name", Value: "poolsweep simulator"},
			{Key: "version", Value: v.release()},
		}},
		{Key: "extra", Value: bson.D{{Key: "pageSize", Value: int64(os.Getpagesize())}}},
	}, nil
}

// portOf returns the port of host:port, as mongod's hostname field carries it.
func portOf(hostport string) string {
	if i := strings.LastIndexByte(hostport, ':'); i >= 0 {
		return hostport[i+1:]
	}
	return ""
}

// cpuArch names the architecture as mongod does (uname's names).
func cpuArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x86_64"
	case "arm64":
		return "aarch64"
	case "386":
		return "i686"
	default:
		return runtime.GOARCH
	}
}

// osType names the OS family as mongod does: the spec's (os=windows), or
// this machine's.
func (f *frontend) osType() string {
	if f.d.spec.OS == "windows" {
		return "Windows"
	}
	switch runtime.GOOS {
	case "linux":
		return "Linux"
	case "darwin":
		return "Darwin"
	case "windows":
		return "Windows"
	default:
		return runtime.GOOS
	}
}

// memSizeMB reads MemTotal from /proc/meminfo.
func memSizeMB() (int64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				return 0, false
			}
			return kb / 1024, true
		}
	}
	return 0, false
}

// cgroupMemLimitMB reads the memory limit of this process's cgroup (v2
// memory.max, or v1 memory.limit_in_bytes); unlimited or unreadable gives
// host, the host's memory, as mongod then reports memLimitMB = memSizeMB.
func cgroupMemLimitMB(host int64) int64 {
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 {
			return host
		}
		return n >> 20
	}
	return host
}
