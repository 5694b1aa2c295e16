package storm

import (
	"time"

	"github.com/poolsweep/poolsweep/internal/buildinfo"
	"github.com/poolsweep/poolsweep/results"
)

// Header is the run header of a storm run: its plan in plan.storm, the
// target, and the machine; the sweep's plan fields are left empty.
func Header(runID string, p results.StormPlan, trials int, target results.TargetHeader, client results.ClientInfo) results.RunHeader {
	return results.RunHeader{Kind: results.KindRun, Schema: results.SchemaVersion, RunID: runID, ToolVersion: buildinfo.Version(),
		StartedAt: time.Now().UTC(), Workload: results.WorkloadInfo{Name: "storm"},
		Plan: results.PlanInfo{Concurrency: []int{}, Clients: maxOf(p.Clients), Trials: trials, OpTimeoutS: p.TimeoutS,
			Steps: len(p.Clients) * len(p.MaxConnecting) * trials, Storm: &p},
		Client: client, Targets: []results.TargetHeader{target}}
}

func maxOf(xs []int) int {
	m := 0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
