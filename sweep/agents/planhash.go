package agents

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/sweep"
)

// PlanHash identifies what every agent of a run must share: the session's
// plan as expanded, its workloads, its targets' names and the number of
// agents. Two processes given the same flags get the same hash on any
// host.
func PlanHash(s *sweep.Session, agents int) string {
	b, _ := json.Marshal(struct {
		Plan      results.PlanInfo     `json:"plan"`
		Workloads results.WorkloadInfo `json:"workloads"`
		Labels    []string             `json:"labels"`
		Targets   []string             `json:"targets"`
		Agents    int                  `json:"agents"`
	}{sweep.NewPlanInfo(s.Plan, len(s.Steps())), sweep.NewWorkloadInfo(s.Workloads), s.WorkloadLabels(), s.TargetNames(), agents})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}
