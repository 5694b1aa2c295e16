package plan

import (
	"fmt"
	"time"

	"github.com/poolsweep/poolsweep/analysis/steady"
	"github.com/poolsweep/poolsweep/results"
)

// Auto warm-ups and windows: their defaults and limits.
const (
	// AutoBatch is the length of the rate batches MSER-5 and the batch
	// means read.
	AutoBatch = 100 * time.Millisecond
	// AutoConfidence is the confidence of a window's interval.
	AutoConfidence = 0.95
	// MinPrecisionPct and MaxPrecisionPct bound --precision.
	MinPrecisionPct = 0.1
	MaxPrecisionPct = 50.0
	// MaxMinCalls bounds --min-calls.
	MaxMinCalls = 100_000_000
)

// Defaults of the auto flags.
const (
	DefaultMinWarmup   = time.Second
	DefaultMaxWarmup   = 60 * time.Second
	DefaultMinDuration = 2 * time.Second
	DefaultMaxDuration = 60 * time.Second
	DefaultPrecision   = 2.0 // %
	// DefaultMinCalls: a p99 from 1,000 calls rests on the 10 slowest.
	DefaultMinCalls = 1000
)

// AutoWarmupMin is the shortest an auto warm-up can be whatever
// --min-warmup says: MSER-5 needs six means of five batches to tell
// (steady.MinMSERMeans × steady.MSERBatch batches), 3 s. A --max-warmup
// below it could only ever end unsettled, so it is refused.
const AutoWarmupMin = steady.MinMSERMeans * steady.MSERBatch * AutoBatch

// AutoWindowMin is the shortest an auto window can be: its interval is
// taken from steady.MinBatches batch means, 1 s. A --max-duration below
// it never has an interval.
const AutoWindowMin = steady.MinBatches * AutoBatch

// validateAuto checks the auto settings and their fit with the rest of the
// plan; each error names the flag.
func (p Plan) validateAuto() error {
	a := p.Auto
	if a == nil {
		return nil
	}
	switch {
	case a.BatchS != AutoBatch.Seconds() || a.Confidence != AutoConfidence:
		return fmt.Errorf("auto windows: batches of %gs at %g confidence are not this version's (%s, %g)", a.BatchS, a.Confidence, AutoBatch, AutoConfidence)
	case a.Warmup && a.MaxWarmupS < a.MinWarmupS:
		return fmt.Errorf("--max-warmup: %gs is below --min-warmup %gs", a.MaxWarmupS, a.MinWarmupS)
	case a.Window && a.MaxDurationS < a.MinDurationS:
		return fmt.Errorf("--max-duration: %gs is below --min-duration %gs", a.MaxDurationS, a.MinDurationS)
	case a.Window && (a.PrecisionPct < MinPrecisionPct || a.PrecisionPct > MaxPrecisionPct):
		return fmt.Errorf("--precision: %g%% is not between %g%% and %g%%", a.PrecisionPct, MinPrecisionPct, MaxPrecisionPct)
	case a.Warmup && a.MaxWarmupS < AutoWarmupMin.Seconds():
		return fmt.Errorf("--max-warmup: %gs is below the %s an auto warm-up needs (MSER-5 reads %d means of %d batches of %s); give at least %s, or a fixed --warmup",
			a.MaxWarmupS, AutoWarmupMin, steady.MinMSERMeans, steady.MSERBatch, AutoBatch, AutoWarmupMin)
	case a.Window && a.MaxDurationS < AutoWindowMin.Seconds():
		return fmt.Errorf("--max-duration: %gs is below the %s an auto window needs (its interval reads %d batches of %s); give at least %s, or a fixed --duration",
			a.MaxDurationS, AutoWindowMin, steady.MinBatches, AutoBatch, AutoWindowMin)
	}
	return nil
}

// NewAutoPlan is the auto settings; warmup and window say which of the two
// end from the data. Bounds of a part that is fixed are left out.
func NewAutoPlan(warmup, window bool, minWarmup, maxWarmup, minDuration, maxDuration time.Duration, precisionPct float64, minCalls int64) *results.AutoPlan {
	if !warmup && !window {
		return nil
	}
	a := &results.AutoPlan{Warmup: warmup, Window: window, BatchS: AutoBatch.Seconds(), Confidence: AutoConfidence}
	if warmup {
		a.MinWarmupS, a.MaxWarmupS = minWarmup.Seconds(), maxWarmup.Seconds()
	}
	if window {
		a.MinDurationS, a.MaxDurationS, a.PrecisionPct, a.MinCalls = minDuration.Seconds(), maxDuration.Seconds(), precisionPct, minCalls
	}
	return a
}

// StepLengths is the shortest and the longest a step's warm-up and window
// together may take: equal, the fixed lengths, when neither is auto; with
// auto, from their minimums (an auto warm-up lasts at least AutoWarmupMin)
// to their maximums; a profile step's, its profile and the drain of its
// last calls. Opening connections and checks come on top.
func (p Plan) StepLengths() (shortest, longest time.Duration) {
	if p.IsProfile() {
		// A profile step has no warm-up or window of its own: it lasts
		// its profile, then drains the calls still running.
		d := p.Profile.Duration() + p.profileDrain()
		return d, d
	}
	warmLo, warmHi := p.Warmup, p.Warmup
	winLo, winHi := p.Duration, p.Duration
	if a := p.Auto; a != nil {
		sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
		if a.Warmup {
			warmLo = max(p.Warmup, AutoWarmupMin)
			warmHi = max(warmLo, sec(a.MaxWarmupS))
		}
		if a.Window {
			winHi = max(winLo, sec(a.MaxDurationS))
		}
	}
	return warmLo + winLo, warmHi + winHi
}

// LongestStep is the longest a step's warm-up and window together may
// take: the fixed lengths, or the auto phases at their maximums (an
// agents' leader ends them sooner for every agent at once). It is what
// waiting for a step to end must allow: agents' barriers, and the grace
// --spawn gives its agents once their leader has ended, each of which may
// be in a step that runs to its longest.
func (p Plan) LongestStep() time.Duration {
	_, longest := p.StepLengths()
	return longest
}

// TrialsAtMost says the plan's Trials is a maximum: in a
// closed-loop grid with auto windows every trial carries its own
// batch-means interval, so every level is measured once, and further
// trials are taken only where neighbouring levels' intervals overlap
// where the knee is decided (search.Trials). A search decides its trials
// itself; fixed windows, the open loop and interleaved targets (whose
// trials compare pairs target by target) measure every level Trials
// times.
func (p Plan) TrialsAtMost() bool {
	return p.Search == nil && len(p.Rate) == 0 && p.Auto != nil && p.Auto.Window && p.Trials > 1 && p.Order != OrderInterleaved
}
