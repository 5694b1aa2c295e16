package bound

import (
	"fmt"

	"github.com/poolsweep/poolsweep/results"
)

// littlesLawOpen checks an open-loop step (mode "open"): the calls in
// flight in the client, time-averaged over the window by the runner, must
// come back as achieved calls/s × the mean time a call spends in the
// client (its corrected latency less its start lag, the time before it
// started). ExpectedInFlight is the runner's count, MeasuredInFlight the
// product. A large gap means a queue that grew or drained during the
// window (more offered than carried: the arithmetic holds only in a steady
// state) or a measuring fault. OK is false when the deviation exceeds
// littlesLawTolerancePct, or when there is nothing to check.
func littlesLawOpen(o *results.OpenLoopStats) results.LittlesLaw {
	if o == nil {
		return results.LittlesLaw{}
	}
	return littlesCheck(o.InFlightMean, o.AchievedPerS*max(o.Corrected.Mean-o.StartLag.Mean, 0)/1000)
}

// littlesLawOpenWarning is the step warning for a failed open-loop check,
// or "" when it passed or could not run.
func littlesLawOpenWarning(l results.LittlesLaw) string {
	return littlesWarning(l, "Little's law (open loop): %.1f calls in flight on average but achieved calls/s × time in the client gives %.1f (%+.0f%%): "+
		"the backlog grew or drained during the window (more offered than carried), or the timing is wrong")
}

// annotateOpen replaces, on an open-loop step that annotate has judged,
// the closed-loop Little's law check (which takes the concurrency, here
// max-in-flight, as the calls in flight) with the open-loop one, and
// labels a step whose load host fell behind its schedule client-bound.
// warned is len(step.Warnings) before annotate ran, so the closed-loop
// warning is taken back. Closed-loop steps are left as they are.
func annotateOpen(step *results.StepResult, warned int) {
	if step == nil || step.Open == nil {
		return
	}
	if warned >= 0 && warned <= len(step.Warnings) {
		step.Warnings = step.Warnings[:warned:warned]
	}
	ll := littlesLawOpen(step.Open)
	step.LittlesLaw = &ll
	if w := littlesLawOpenWarning(ll); w != "" {
		step.Warnings = append(step.Warnings, w)
	}
	if step.Open.ClientBehind && step.Bound != BoundClient {
		step.Bound = BoundClient
		step.BoundReason = fmt.Sprintf("the load host fell behind its arrival schedule (start lag p99 %.2f ms, %d arrivals not issued, %.0f ms behind at the close): these numbers are partly the client's",
			step.Open.StartLag.P99, step.Open.NotIssued, step.Open.BehindAtCloseMs)
	}
}
