package knee

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/poolsweep/poolsweep/results"
)

// One trial with an interval of its own (issue 25): a step whose window
// kept its rate in batches carries the 95% half-width of its throughput
// by batch means (results.StepSteady). A level measured once then gets
// that interval instead of none, and the knee's confidence comes from
// resampling each level within it: a parametric bootstrap, the batch
// means' mean being near normal by the central limit theorem.

// halfWidthPct is a step's relative batch-means half-width, 0 when it has
// no usable interval.
func halfWidthPct(st *results.StepResult) float64 {
	if !st.Steady.Precise() {
		return 0
	}
	return *st.Steady.HalfWidthPct
}

// withBatchInterval gives a level of one trial with a batch-means interval
// that interval, and counts its trials whose warm-up never settled.
func withBatchInterval(l *level, ps []Point) {
	for _, p := range ps {
		if p.Unsettled {
			l.unsettled++
		}
	}
	if len(ps) != 1 || !ps[0].HasInterval || math.IsNaN(ps[0].HalfWidthPct) {
		return
	}
	hw := l.QPS * ps[0].HalfWidthPct / 100
	l.QPSLow, l.QPSHigh = max(0, l.QPS-hw), l.QPS+hw
	l.batchSD = hw / 1.96
}

// batchIntervals says whether every level was measured once and the
// levels that decide the knee (decidingTrials' levels: the knee, its
// neighbours, the peak) have batch-means intervals, so that a knee from one
// trial per level can be resampled. A level off that set without an
// interval of its own is given the widest relative one of the others (it
// is resampled no less than they are).
func batchIntervals(levels []level, e estimate) bool {
	widest := 0.0
	for _, l := range levels {
		if l.Trials != 1 {
			return false
		}
		if l.batchSD > 0 && l.QPS > 0 {
			widest = max(widest, l.batchSD/l.QPS)
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
		if i >= 0 && i < len(levels) && levels[i].batchSD == 0 && levels[i].QPS > 0 {
			return false
		}
	}
	for i := range levels {
		if levels[i].batchSD == 0 {
			levels[i].batchSD = widest * levels[i].QPS
		}
	}
	return true
}

// batchBootstrap draws o.Bootstrap resamples, each level's throughput from
// a normal distribution around it with its batch-means standard error, and
// returns each resample's knee index (-1 for none).
func batchBootstrap(levels []level, lx []float64, sif int, o Options, rng *rand.Rand) []int {
	knees := make([]int, o.Bootstrap)
	ys := make([]float64, len(levels))
	for b := range knees {
		for i, l := range levels {
			ys[i] = max(0, l.QPS+l.batchSD*rng.NormFloat64())
		}
		knees[b] = estimateKnee(lx, ys, sif, o, false).knee
	}
	return knees
}

// batchConfidence is the knee's confidence from the batch bootstrap, by
// the same thresholds as the trials' bootstrap.
func batchConfidence(levels []level, e estimate, stability float64, span, resamples int) (string, string) {
	c := "low"
	switch {
	case stability >= 0.8 && span <= 1:
		c = "high"
	case stability >= 0.5 && span <= 2:
		c = "medium"
	}
	return c, fmt.Sprintf("%s confidence: %.0f%% of %d resamples within each level's batch-means interval (1 trial per level) give the same knee",
		c, stability*100, resamples)
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
