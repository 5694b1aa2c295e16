package report

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// lengthsText is how the plan's steps chose their warm-ups and windows,
// and what they took: a fixed length as it is; an auto warm-up or window
// by its rule and bounds, with the range the measured steps took and how
// many ended short of the rule. PlanInfo's WarmupS and DurationS are the
// minimums of an auto plan, so printing them as the lengths would say
// the run did what it did not.
func lengthsText(p results.PlanInfo, steps []results.StepResult) string {
	a := p.Auto
	warm := "warm-up " + secs(p.WarmupS)
	if a != nil && a.Warmup {
		lo := a.MinWarmupS
		if lo <= 0 {
			lo = p.WarmupS
		}
		// MSER-5 needs its batches whatever --min-warmup asked for.
		lo = max(lo, plan.AutoWarmupMin.Seconds())
		warm = fmt.Sprintf("warm-up until MSER-5 finds the end of the transient (%s to %s", secs(lo), secs(a.MaxWarmupS))
		var took []float64
		unsettled := 0
		for i := range steps {
			s := &steps[i]
			if s.Steady == nil || s.Steady.WarmupMode != results.WindowAuto {
				continue
			}
			if s.Phases != nil {
				took = append(took, s.Phases.Warmup)
			}
			if s.Steady.Settled != nil && !*s.Steady.Settled {
				unsettled++
			}
		}
		warm += tookText(took)
		if unsettled > 0 {
			warm += fmt.Sprintf("; %d never settled", unsettled)
		}
		warm += ")"
	}
	win := "window " + secs(p.DurationS)
	if a != nil && a.Window {
		lo := a.MinDurationS
		if lo <= 0 {
			lo = p.DurationS
		}
		win = fmt.Sprintf("window until the throughput is known to ±%g%% (%s to %s, %d calls or more", a.PrecisionPct, secs(lo), secs(a.MaxDurationS), a.MinCalls)
		var took []float64
		short := map[string]int{}
		for i := range steps {
			s := &steps[i]
			if s.Steady == nil || s.Steady.WindowMode != results.WindowAuto {
				continue
			}
			took = append(took, s.DurationS)
			if e := s.Steady.WindowEnd; e != "precision" && e != "" {
				short[e]++
			}
		}
		win += tookText(took)
		for _, e := range []string{"max-duration", results.WindowEndOutOfReach, results.WindowEndOverloaded} {
			if n := short[e]; n > 0 {
				win += fmt.Sprintf("; %d ended %s", n, map[string]string{
					"max-duration":              "at the maximum",
					results.WindowEndOutOfReach: "with the precision out of reach",
					results.WindowEndOverloaded: "overloaded",
				}[e])
			}
		}
		win += ")"
	}
	return warm + ", " + win
}

// tookText is "; took LO–HI" over the lengths ts in seconds ("; took X"
// when they are one length), or nothing for none.
func tookText(ts []float64) string {
	if len(ts) == 0 {
		return ""
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, t := range ts {
		lo, hi = min(lo, t), max(hi, t)
	}
	if secs(lo) == secs(hi) {
		return "; took " + secs(lo)
	}
	return "; took " + strings.TrimSuffix(secs(lo), "s") + "–" + secs(hi)
}

// secs is s seconds to a tenth, as "2.5s".
func secs(s float64) string {
	return strconv.FormatFloat(math.Round(s*10)/10, 'f', -1, 64) + "s"
}
