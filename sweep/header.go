package sweep

import (
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/version"

	"github.com/poolsweep/poolsweep/internal/buildinfo"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// newRunHeader describes a run before its first step: plan, workloads,
// targets (their URIs already redacted by the caller) and this machine.
func newRunHeader(runID string, plan plan.Plan, workloads []workload.Workload, targets []results.TargetHeader, steps int) results.RunHeader {
	return results.RunHeader{Kind: results.KindRun, Schema: results.SchemaVersion, RunID: runID, ToolVersion: buildinfo.Version(), StartedAt: time.Now().UTC(),
		Workload: NewWorkloadInfo(workloads), Plan: NewPlanInfo(plan, steps), Client: NewClientInfo(), Targets: targets}
}

// NewTargetHeader describes a target as the results header records it:
// its name, its URI with every secret redacted, and what topology.Detect
// found it to be.
func NewTargetHeader(name, uri string, info topology.Info) results.TargetHeader {
	return results.TargetHeader{Name: name, URI: topology.Redact(uri), Topology: info.Topology, SetName: info.SetName,
		ServerVersion: info.ServerVersion, ServerKind: info.ServerKind, Hosts: info.Hosts, Shards: info.Shards,
		SimSpec: info.SimSpec, Note: info.Note}
}

// NewWorkloadInfo describes the workload(s) of a run: one workload with its
// mix, or several series by their labels (--mixes: several mixes, named
// "mixes"; --read-preference and --write-concern: one mix, several ways
// of sending it), with the axes' values.
func NewWorkloadInfo(ws []workload.Workload) results.WorkloadInfo {
	w := ws[0]
	info := results.WorkloadInfo{Name: w.Name, Distribution: w.Distribution, Records: w.Records, FieldCount: w.FieldCount,
		FieldLength: w.FieldLength, MaxScanLength: w.MaxScanLength, Database: w.Database, Collection: w.Collection,
		File: w.File, OpsPerCall: w.OpsPerCall()}
	if w.Replay != nil {
		info.Replay = w.Replay.Info()
	}
	mixes := map[string]bool{}
	for _, x := range ws {
		mixes[x.Name+fmt.Sprint(x.Mix)] = true
		if x.ReadPreference != "" && !slices.Contains(info.ReadPreferences, x.ReadPreference) {
			info.ReadPreferences = append(info.ReadPreferences, x.ReadPreference)
		}
		if x.WriteConcern != "" && !slices.Contains(info.WriteConcerns, x.WriteConcern) {
			info.WriteConcerns = append(info.WriteConcerns, x.WriteConcern)
		}
		if len(ws) > 1 {
			info.Mixes = append(info.Mixes, x.Label)
		}
	}
	if len(mixes) > 1 {
		info.Name = "mixes"
		return info
	}
	info.Mix = map[string]float64{}
	for _, m := range w.Mix {
		info.Mix[m.Op] = m.Weight
	}
	return info
}

// NewPlanInfo is the plan as recorded in the header.
func NewPlanInfo(p plan.Plan, steps int) results.PlanInfo {
	order := p.Order
	if order == "" {
		order = plan.OrderSequential
	}
	var own []results.TargetLevels
	for _, t := range slices.Sorted(maps.Keys(p.TargetConcurrency)) {
		own = append(own, results.TargetLevels{Target: t, Concurrency: p.TargetConcurrency[t]})
	}
	info := results.PlanInfo{Concurrency: p.Concurrency, TargetConcurrency: own, Pool: p.Pool.Given, Pools: p.Pool.Sizes, Clients: p.Clients, ClientLevels: p.ClientLevels, Trials: p.Trials,
		WarmupS: p.Warmup.Seconds(), DurationS: p.Duration.Seconds(), OpTimeoutS: p.OpTimeout.Seconds(), Order: order, Steps: steps,
		Rate: p.Rate, Arrivals: p.Arrivals, MaxInFlight: p.MaxInFlight, Search: p.Search, Auto: p.Auto,
		TrialsAtMost: p.TrialsAtMost(), Events: p.Events}
	if p.Profile != nil {
		info.Profile = p.Profile.Spec
	}
	if a := p.PoolAxes; a != nil {
		info.Cold, info.MinPool, info.MaxConnecting = a.Cold, a.MinPool, a.MaxConnecting
		info.MaxIdleMS, info.TimeoutMS = millis(a.MaxIdle), millis(a.Timeout)
		info.ServerSelectionTimeoutMS, info.HeartbeatMS = millis(a.ServerSelectionTimeout), millis(a.Heartbeat)
		for _, r := range a.Retry {
			info.Retry = append(info.Retry, results.OnOff(r))
		}
	}
	return info
}

// millis writes lengths in whole milliseconds, as the drivers' options
// take them.
func millis(ds []time.Duration) []int64 {
	var out []int64
	for _, d := range ds {
		out = append(out, d.Milliseconds())
	}
	return out
}

// NewClientInfo describes this load-generating machine and process.
func NewClientInfo() results.ClientInfo {
	host, _ := os.Hostname()
	return results.ClientInfo{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), DriverVersion: version.Driver, OS: runtime.GOOS, Arch: runtime.GOARCH, Hostname: host}
}

// NewRunID names a run by its start time and a random suffix.
func NewRunID(now time.Time, random uint16) string {
	return now.UTC().Format("20060102-150405") + "-" + leftPad(strconv.FormatUint(uint64(random), 16), 4)
}

func leftPad(s string, n int) string {
	for len(s) < n {
		s = "0" + s
	}
	return s
}
