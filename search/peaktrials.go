package search

import (
	"fmt"
	"strconv"

	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
)

// Trials where the comparison is decided. A sweep of several
// targets is usually meant to say which deployment carries more, and that
// is decided at their peaks: when two targets' peaks have overlapping
// throughput intervals, the ratio of the peaks may be either side of 1.
// Once every series' own knee needs no more trials, such a pair's peak
// with fewer trials is measured again, up to --trials, until the two
// intervals stand apart.

// peakDecision is the next extra trial at a target's peak, for the series
// of equal workload, pool and clients on different targets; ok is false
// when every such pair of peaks stands apart or is measured --trials
// times. k is the index of the series to measure; ds holds each series'
// analysis, as its own decision was made on it.
func (t *Trials) peakDecision(done []results.StepResult, ds []trialDecision, tried map[string]bool) (int, plan.StepSpec, bool) {
	type peak struct {
		lv     knee.Level
		trials int
	}
	peaks := make([]*peak, len(t.series))
	for i, s := range t.series {
		if !ds[i].reportOK {
			continue
		}
		r, steps := ds[i].report, s.stepsOf(done)
		for _, l := range r.Levels {
			if l.Concurrency == r.Peak.Concurrency {
				peaks[i] = &peak{lv: l, trials: trials(steps)[l.Concurrency]}
			}
		}
	}
	for i, a := range t.series {
		for j := i + 1; j < len(t.series); j++ {
			b := t.series[j]
			pa, pb := peaks[i], peaks[j]
			if pa == nil || pb == nil || a.target.Name == b.target.Name || a.workload != b.workload || a.pool != b.pool || a.clients != b.clients {
				continue
			}
			if pa.lv.QPSHigh < pb.lv.QPSLow || pb.lv.QPSHigh < pa.lv.QPSLow {
				continue // the peaks stand apart
			}
			// The side with fewer trials at its peak; on a tie, the first.
			k, s, p, other, op := i, a, pa, b, pb
			if pb.trials < pa.trials {
				k, s, p, other, op = j, b, pb, a, pa
			}
			if p.trials >= t.maxTrials {
				continue
			}
			sp := t.seriesStep(s, p.lv.Concurrency, p.trials+1)
			if tried[sp.Key()] {
				continue
			}
			sp.ExtraTrial = &results.ExtraTrial{Neighbour: op.lv.Concurrency, NeighbourTarget: other.target.Name,
				Interval:          []float64{p.lv.QPSLow, p.lv.QPSHigh},
				NeighbourInterval: []float64{op.lv.QPSLow, op.lv.QPSHigh},
				Why: fmt.Sprintf("the peak throughput intervals of %s (at %d) and %s (at %d) overlap, where the deployments' comparison is decided: trial %d of at most %d",
					s.target.Name, p.lv.Concurrency, other.target.Name, op.lv.Concurrency, sp.Trial, t.maxTrials)}
			return k, sp, true
		}
	}
	return 0, plan.StepSpec{}, false
}

// seriesStep is the step spec of series s at concurrency c, trial n.
func (t *Trials) seriesStep(s series, c, n int) plan.StepSpec {
	size := c
	if s.pool != "match" {
		size, _ = strconv.Atoi(s.pool)
	}
	return plan.StepSpec{Target: s.target.Name, Workload: s.workload, Concurrency: c, MaxPoolSize: size, PoolSetting: s.pool,
		Clients: s.clients, Trial: n}
}
