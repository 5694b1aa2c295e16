package knee

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/results"
)

// One trial with an interval of its own: a step whose window
// kept its rate in batches carries the 95% half-width of its throughput
// by batch means (results.StepSteady). A level measured once then gets
// that interval instead of none, and the knee's confidence comes from
// resampling each level within it: a parametric bootstrap, the batch
// means' mean being near normal by the central limit theorem.

// halfWidthPct is a step's relative batch-means half-width, 0 when it has
// no usable interval.
func halfWidthPct(st *results.StepResult) float64 {
	pct, ok := st.Steady.ThroughputHalfWidthPct()
	if !ok {
		return 0
	}
	return pct
}

// withBatchInterval gives a level of one trial with a batch-means interval
// that interval, keeps each trial's standard error (trialSD, beside vals:
// ps is in their order), and counts its trials whose warm-up never
// settled.
func withBatchInterval(l *level, ps []Point) {
	l.trialSD = make([]float64, len(ps))
	for i, p := range ps {
		if p.Unsettled {
			l.unsettled++
		}
		if p.HasInterval && !math.IsNaN(p.HalfWidthPct) {
			l.trialSD[i] = p.QPS * p.HalfWidthPct / 100 / 1.96
		}
	}
	if len(ps) != 1 || !ps[0].HasInterval || math.IsNaN(ps[0].HalfWidthPct) {
		return
	}
	hw := l.QPS * ps[0].HalfWidthPct / 100
	l.QPSLow, l.QPSHigh = max(0, l.QPS-hw), l.QPS+hw
	l.batchSD = hw / 1.96
}

// batchIntervals says whether the knee can be resampled within the trials'
// own batch-means intervals: every trial of the levels that decide the
// knee (decidingTrials' levels: the knee, its neighbours, the peak) has
// one. A trial off that set without an interval of its own is given the
// widest relative one of the others (it is resampled no less than they
// are). The caller decides when this applies: every level measured once,
// or levels with different trial counts (a grid whose --trials is a
// maximum, or a search), fewer than 3 on some level that decides the knee.
func batchIntervals(levels []level, e estimate) bool {
	widest := 0.0
	for _, l := range levels {
		for i, sd := range l.trialSD {
			if sd > 0 && l.vals[i] > 0 {
				widest = max(widest, sd/l.vals[i])
			}
		}
	}
	if widest == 0 {
		return false
	}
	deciding := []int{e.knee - 1, e.knee, e.knee + 1, e.peak}
	if e.knee < 0 {
		deciding = deciding[:0]
		for i := range levels {
			deciding = append(deciding, i)
		}
	}
	for _, i := range deciding {
		if i < 0 || i >= len(levels) {
			continue
		}
		for j, sd := range levels[i].trialSD {
			if sd == 0 && levels[i].vals[j] > 0 {
				return false
			}
		}
	}
	for i := range levels {
		l := &levels[i]
		for j := range l.trialSD {
			if l.trialSD[j] == 0 {
				l.trialSD[j] = widest * l.vals[j]
			}
		}
		if l.Trials == 1 && l.batchSD == 0 {
			l.batchSD = widest * l.QPS
		}
	}
	return true
}

// unequalTrials says the levels were not all measured the same number of
// times.
func unequalTrials(levels []level) bool {
	for _, l := range levels {
		if l.Trials != levels[0].Trials {
			return true
		}
	}
	return false
}

// batchBootstrap draws o.Bootstrap resamples and returns each resample's
// knee index (-1 for none). A level of one trial is drawn from a normal
// distribution around it with its batch-means standard error; a level of
// several has its trials resampled, each drawn within its own interval,
// and their median taken (the level's value, as aggregate gives it): the
// trials' bootstrap and the batch means' in one, for levels with
// different trial counts. Such a level's interval becomes the 95%
// percentile interval of its resampled medians, as in bootstrap.
func batchBootstrap(levels []level, lx []float64, sif int, o Options, rng *rand.Rand) []int {
	knees := make([]int, o.Bootstrap)
	ys := make([]float64, len(levels))
	meds := make([][]float64, len(levels))
	var draw []float64
	for b := range knees {
		for i, l := range levels {
			if len(l.vals) <= 1 {
				ys[i] = max(0, l.QPS+l.batchSD*rng.NormFloat64())
				continue
			}
			draw = draw[:0]
			for range l.vals {
				k := rng.IntN(len(l.vals))
				draw = append(draw, l.vals[k]+l.trialSD[k]*rng.NormFloat64())
			}
			ys[i] = max(0, stats.Median(draw))
			meds[i] = append(meds[i], ys[i])
		}
		knees[b] = estimateKnee(lx, ys, sif, o, false).knee
	}
	for i := range levels {
		if len(meds[i]) > 0 {
			s := stats.Summarize(levels[i].vals).WithInterval(meds[i], stats.DefaultConfidence)
			levels[i].QPSLow, levels[i].QPSHigh = s.Low, s.High
		}
	}
	return knees
}

// batchConfidence is the knee's confidence from the batch bootstrap, by
// the same thresholds as the trials' bootstrap.
func batchConfidence(levels []level, e estimate, stability float64, span, resamples int) (string, string) {
	fewest, most := levels[0].Trials, levels[0].Trials
	for _, l := range levels {
		fewest, most = min(fewest, l.Trials), max(most, l.Trials)
	}
	c := "low"
	switch {
	case stability >= 0.8 && span <= 1:
		c = "high"
	case stability >= 0.5 && span <= 2:
		c = "medium"
	}
	if fewest == most {
		return c, fmt.Sprintf("%s confidence: %.0f%% of %d resamples within each level's batch-means interval (1 trial per level) give the same knee",
			c, stability*100, resamples)
	}
	return c, fmt.Sprintf("%s confidence: %.0f%% of %d resamples of each level's trials, each within its batch-means interval (%d to %d trials per level), give the same knee",
		c, stability*100, resamples, fewest, most)
}

// capUnsettled lowers a knee's confidence to low when a level that decided
// it (from..to) holds a step whose warm-up never settled: its window may
// hold part of the transient.
func capUnsettled(k *Knee, conf string, levels []level, from, to int) string {
	var at []int
	for i := max(from, 0); i <= to && i < len(levels); i++ {
		if levels[i].unsettled > 0 {
			at = append(at, levels[i].Concurrency)
		}
	}
	if len(at) == 0 {
		return conf
	}
	if k.Confidence == "high" || k.Confidence == "medium" {
		k.Confidence = "low"
		conf = "low confidence (capped; " + conf + ")"
	}
	return fmt.Sprintf("%s; the warm-up never settled at concurrency %v (see the steps' warnings)", conf, at)
}
