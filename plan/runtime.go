package plan

import (
	"fmt"
	"time"
)

// MaxRunTime is the longest a run may be planned to take with every part
// at its longest: each step's warm-up and window at their fixed lengths
// or their auto maximums (--max-warmup, --max-duration) with opening its
// connections, or each storm at its --timeout with its fixed waits. A
// week, as --budget's most. Lists, trials and targets are each bounded;
// their product is bounded here, so that no plan of a thousand levels ×
// a thousand trials × a day each is accepted and left to run for ever.
const MaxRunTime = 7 * 24 * time.Hour

// StepOverhead is the rough allowance of one step beside its warm-up and
// window: checking the target, opening the pool (at the driver's
// maxConnecting, about 1,000 connections a second on a local network)
// and tearing down.
func StepOverhead(sp StepSpec) time.Duration {
	conns := min(sp.Concurrency, sp.MaxPoolSize) * max(sp.Clients, 1)
	return 500*time.Millisecond + time.Duration(conns)*time.Millisecond
}

// LongestS is how long steps take, in seconds, each at its longest
// (StepLengths) with its overhead: the upper end of the plan line's wall
// time. Seconds in a float, so that no product of bounded lists
// overflows a Duration.
func (p Plan) LongestS(steps []StepSpec) float64 {
	_, longest := p.StepLengths()
	s := 0.0
	for _, sp := range steps {
		s += (longest + StepOverhead(sp)).Seconds()
	}
	return s
}

// CheckRunTime refuses a run of n parts (what: "steps", "storms") that
// take up to totalS seconds together, when that is more than MaxRunTime.
// flags names what multiplied them, as the error's subject.
func CheckRunTime(flags string, n int, what string, totalS float64) error {
	if totalS <= MaxRunTime.Seconds() {
		return nil
	}
	return fmt.Errorf("%s: %d %s take up to %s at their longest, more than the %s a run may be planned for",
		flags, n, what, fmtLong(totalS), fmtLong(MaxRunTime.Seconds()))
}

// fmtLong writes a long run in hours, with days beside.
func fmtLong(s float64) string {
	h := s / 3600
	return fmt.Sprintf("%.0fh (%.1f days)", h, h/24)
}
