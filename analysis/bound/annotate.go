package bound

import "github.com/poolsweep/poolsweep/results"

// annotate fills the judgement fields of a finished step: littlesLaw (over
// all clients: Concurrency × Clients in flight against the step's total
// calls/s and mean call latency), its warning in Warnings when the check
// fails, and Bound/BoundReason from c. prev is the step before it in the
// same series, or nil. Call it after Server, Client, Pool, Latency and the
// counts are set; it reads nothing else and does no I/O.
func annotate(step, prev *results.StepResult, c Classifier) {
	if step == nil {
		return
	}
	k := max(step.Clients, 1)
	ll := littlesLaw(step.Concurrency*k, step.CallsPerS, step.Latency.Mean)
	step.LittlesLaw = &ll
	if w := littlesLawWarning(ll); w != "" {
		step.Warnings = append(step.Warnings, w)
	}
	step.Bound, step.BoundReason = c.Classify(step, prev)
}
