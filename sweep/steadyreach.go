package sweep

import (
	"fmt"

	"github.com/poolsweep/poolsweep/analysis/steady"
	"github.com/poolsweep/poolsweep/plan"
)

// noteOutOfReach records why a window ended as out of reach (the stall
// rule, analysis/steady's OutOfReach): the half-width it had, the one
// projected at the maximum, and the precision asked for. what names the
// series ("throughput", "corrected latency").
func (w *windowOutcome) noteOutOfReach(rule steady.WindowRule, what string) {
	w.projected = steady.Project(w.iv, rule.MaxValues, rule.Confidence)
	w.reason = reachReason(what, w.iv, w.projected, rule)
}

// reachReason says it in words.
func reachReason(what string, iv steady.Interval, projected float64, rule steady.WindowRule) string {
	maxD := fmtSeconds(float64(rule.MaxValues) * plan.AutoBatch.Seconds())
	return fmt.Sprintf("precision out of reach: the %s's half-width was ±%.1f%% after %s and would still be ±%.1f%% at --max-duration %s, over %g× the ±%g%% asked for; the window ended with the half-width it had",
		what, 100*iv.Relative(), fmtSeconds(float64(iv.Batches*iv.BatchSize)*plan.AutoBatch.Seconds()), 100*projected, maxD, steady.ReachFactor, 100*rule.Precision)
}
