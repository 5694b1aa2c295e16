package results

import "time"

// Search modes (--search).
const (
	SearchKnee = "knee" // locate the knee on a log₂ grid of concurrency
	SearchPool = "pool" // then the smallest maxPoolSize at the knee that keeps its throughput
)

// Reasons a search chose a probe (SearchInfo.Reason).
const (
	ReasonCoarse = "coarse" // one of the first, widely spaced probes
	ReasonBisect = "bisect" // halves the bracket the knee lies in
	ReasonRefine = "refine" // a grid level inside the knee's range or beside it
	ReasonRepeat = "repeat" // another trial where the answer is still noise
	ReasonPeak   = "peak"   // locates the peak of a retrograde curve
	ReasonPool   = "pool"   // a smaller maxPoolSize at the knee concurrency
)

// SearchPlan is an adaptive search's settings. It is recorded in the
// results header (plan.search) so that --resume refuses a different
// search, and so that readers know the steps were chosen, not a grid.
type SearchPlan struct {
	Mode string `json:"mode"` // knee or pool
	// Resolution is the factor between neighbouring levels of the grid
	// the search places its probes on (√2 by default).
	Resolution float64 `json:"resolution"`
	// Levels is that grid: from the lowest to the highest concurrency
	// given, each level Resolution times the one before, rounded.
	Levels []int `json:"levels"`
	// BudgetS is the wall-time budget in seconds; 0 means none.
	BudgetS float64 `json:"budget_s,omitempty"`
	// SLOP99Ms is the p99 a pool size must meet (--slo-p99); 0 means none.
	SLOP99Ms float64 `json:"slo_p99_ms,omitempty"`
	// PoolMin and PoolMax bound the sizes the pool search tries (--pool
	// MIN..MAX); 0 means no bound (from 1, up to the knee's concurrency).
	PoolMin int `json:"pool_min,omitempty"`
	PoolMax int `json:"pool_max,omitempty"`
}

// Budget is the search's wall-time budget; 0 means none.
func (s *SearchPlan) Budget() time.Duration {
	if s == nil {
		return 0
	}
	return time.Duration(s.BudgetS * float64(time.Second))
}

// SearchInfo says why a search measured a step, and what it knew when it
// chose it. It travels from the planner's StepSpec into the step record.
type SearchInfo struct {
	Mode   string `json:"mode"`   // knee or pool
	Reason string `json:"reason"` // coarse, bisect, refine, repeat, peak or pool
	// Probe is the step's place in its series' search, from 1.
	Probe int `json:"probe"`
	// Bracket is where the answer lay when the probe was chosen: the knee
	// is above Bracket[0] and at most Bracket[1] (concurrency); for a pool
	// probe, the smallest good maxPoolSize is above Bracket[0] and at most
	// Bracket[1]. Null before the first answer.
	Bracket []int `json:"bracket"`
	// Knee is the knee the analysis gave then; null when it had none.
	Knee *int `json:"knee"`
	// Confidence is that knee's confidence (high, medium, low,
	// unconfirmed, none).
	Confidence string `json:"confidence,omitempty"`
	// Why says it in a sentence.
	Why string `json:"why,omitempty"`
}

// ExtraTrial is why a grid whose --trials is a maximum measured a level
// again: its throughput interval overlapped its neighbour's where the knee
// is decided (the level below the knee and the knee; with no knee, the top
// two levels), as the analysis gave them when the trial was chosen.
//
// With several targets a level may also be measured again because its
// target's peak overlapped another target's peak, where the comparison of
// the deployments is decided: NeighbourTarget then names that
// target, and Neighbour is its peak's level.
type ExtraTrial struct {
	// Neighbour is the level whose interval overlapped this one's.
	Neighbour int `json:"neighbour"`
	// NeighbourTarget, when set, is the other target whose peak's
	// interval overlapped this target's peak; empty for a neighbour of
	// the same series.
	NeighbourTarget string `json:"neighbour_target,omitempty"`
	// Interval and NeighbourInterval are the two levels' ops/s intervals
	// then, [low, high].
	Interval          []float64 `json:"interval"`
	NeighbourInterval []float64 `json:"neighbour_interval"`
	// Knee is the knee the analysis gave then; null when it had none.
	Knee *int `json:"knee"`
	// Why says it in a sentence.
	Why string `json:"why,omitempty"`
}
