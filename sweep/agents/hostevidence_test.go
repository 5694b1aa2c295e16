package agents

import (
	"strings"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/results"
)

// agentsStarved is the evidence, from the agents' own records of merged
// step m (their client telemetry, judged by bound.ClientLimited), that
// the load host rather than the coordination set the agents' timing: ""
// when no agent's record shows it.
func agentsStarved(files []*results.Results, m results.StepResult) string {
	var why []string
	for _, r := range files {
		for _, s := range r.Steps {
			if s.Concurrency != m.Concurrency || s.Trial != m.Trial || s.Target != m.Target {
				continue
			}
			if ok, reason := bound.ClientLimited(&s); ok {
				why = append(why, reason)
			}
		}
	}
	return strings.Join(why, "; ")
}
