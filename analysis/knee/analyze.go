package knee

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Thresholds that are properties of the method, not user choices.
const (
	// kneedleMinDiff is how far (as a fraction of the normalised range) the
	// knee must sit above the chord from the first level to the top. Satopää's
	// online threshold (S × mean Δx) assumes a dense grid; sweeps have 3–20
	// levels, where it rejects obvious knees, so a fixed floor is used.
	kneedleMinDiff = 0.1
	// retrogradeMinDrop is the smallest fall past the peak worth reporting,
	// whatever the noise.
	retrogradeMinDrop = 0.05
	// minUSLLevels is the fewest distinct concurrency levels a USL fit needs:
	// three parameters and at least two degrees of freedom.
	minUSLLevels = 5
	// MinUSLR2 is the least share of the throughput's variance (over every
	// trial) a USL fit must explain to be used: below it the law does not
	// describe the curve, and its peak and limiting term would be read off
	// a shape that is not there. A fit below it is reported as rejected,
	// with its R², and is not drawn, stated as a fitted peak, or used to
	// aim the search.
	MinUSLR2 = 0.8
)

// PoolWaitShare is the share of p99 latency spent waiting for a pool
// connection above which a step counts as pool-bound (and, in the open
// loop, above which pool wait dominates).
const PoolWaitShare = 0.5

// AnalyzeAll analyses every series with the same options, in order.
func AnalyzeAll(series []Series, o Options) []Report {
	out := make([]Report, 0, len(series))
	for _, s := range series {
		out = append(out, Analyze(s, o))
	}
	return out
}

// Analyze runs every method on one series and forms the consensus knee,
// its uncertainty and the recommendation. It never fails: what it could not
// do is said in the report's notes and warnings.
func Analyze(s Series, o Options) Report {
	o = normalise(o)
	r := Report{
		Target:   s.Target,
		Workload: s.Workload,
		Pool:     s.Pool,
		Clients:  max(s.Clients, 1),
		Warnings: slices.Clone(s.Warnings),
	}
	levels, warns := aggregate(s.Points)
	r.Warnings = append(r.Warnings, warns...)
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x9e3779b97f4a7c15))

	xs := make([]int, len(levels))
	lx := make([]float64, len(levels))
	ys := make([]float64, len(levels))
	for i, l := range levels {
		xs[i], lx[i], ys[i] = l.Concurrency, math.Log2(float64(l.Concurrency)), l.QPS
	}
	sif, sifNote := serverInFlightKnee(levels, lx, o)
	est := estimateKnee(lx, ys, sif, o, true)
	minTrials := decidingTrials(levels, est)

	// The bootstrap resamples trials within each level; each resample's
	// medians give one consensus knee and one median per level. Only
	// meaningful with ≥3 trials on the levels that decide the knee; levels
	// with fewer keep min/max.
	var boot []int
	if len(levels) > 0 && o.Bootstrap > 0 && minTrials >= 3 {
		boot = bootstrap(levels, lx, sif, o, rng)
	}
	// One trial per level, or levels with different trial counts and
	// fewer than 3 on some that decide the knee (a grid whose --trials is
	// a maximum, a search): resampled within the trials' own batch-means
	// intervals, where they have them.
	batch := len(levels) > 0 && o.Bootstrap > 0 && minTrials < 3 && (minTrials == 1 || unequalTrials(levels)) && batchIntervals(levels, est)
	if batch {
		boot = batchBootstrap(levels, lx, sif, o, rng) // batchinterval.go
	}
	for i := range levels {
		r.Levels = append(r.Levels, levels[i].Level)
	}
	if len(levels) == 0 {
		r.Levels = []Level{}
		r.Knee = Knee{Confidence: "none", Statement: "no usable measurements"}
		r.Methods = emptyMethods("no usable measurements")
		r.Recommendation.Why = "nothing to recommend without measurements."
		r.Verdict = fmt.Sprintf("%s: no usable measurements.", SeriesName(r))
		return r
	}

	r.Peak = Peak{Concurrency: xs[est.peak], QPS: ys[est.peak]}
	r.Methods.Plateau = method(xs, est.plateau, est.plateauNote)
	r.Methods.Kneedle = method(xs, est.kneedle, est.kneedleNote)
	r.Methods.Marginal = method(xs, est.marginal, est.marginalNote)
	r.Methods.SLO = sloKnee(r.Levels, o)
	r.Methods.ServerInFlight = method(xs, sif, sifNote)
	r.Methods.USL = fitUSL(levels)
	r.Retrograde = retrograde(r.Levels, est.peak)
	r.Knee = consensus(r, levels, est, boot, minTrials, batch)
	if r.Knee.Found {
		r.BoundPastKnee = boundPast(s.Points, r.Knee.Concurrency)
	}
	r.Recommendation = recommend(r, s, o)
	if minTrials == 1 && len(levels) > 1 && !batch {
		r.Warnings = append(r.Warnings, "one trial per level: no noise estimate, the knee is unconfirmed (use 3 or more trials)")
	}
	r.Verdict = verdict(r)
	return r
}

// normalise replaces invalid options with the documented defaults, so a
// zero Options still gives a sensible analysis.
func normalise(o Options) Options {
	d := DefaultOptions()
	if !(o.Plateau > 0 && o.Plateau <= 1) {
		o.Plateau = d.Plateau
	}
	if !(o.MinGain > 0) || math.IsInf(o.MinGain, 0) {
		o.MinGain = d.MinGain
	}
	if o.Bootstrap < 0 {
		o.Bootstrap = 0
	}
	if !(o.Headroom > 0 && o.Headroom <= 1) {
		o.Headroom = 1
	}
	return o
}
