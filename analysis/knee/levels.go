package knee

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/poolsweep/poolsweep/internal/stats"
)

// level is one concurrency level with its raw trial values, sorted.
type level struct {
	Level
	vals        []float64 // sorted QPS of the trials
	clientBound int       // trials labelled client-bound
	// batchSD is, for a level of one trial with a batch-means interval,
	// the standard error of its throughput (0: none); trialSD is that of
	// each trial, in the order of vals (0: none); unsettled counts its
	// trials whose warm-up never settled (batchinterval.go).
	batchSD   float64
	trialSD   []float64
	unsettled int
}

// aggregate groups points by concurrency and summarises each level.
func aggregate(points []Point) ([]level, []string) {
	var warns []string
	dropped := 0
	by := map[int][]Point{}
	for _, p := range points {
		if p.Concurrency <= 0 || math.IsNaN(p.QPS) || math.IsInf(p.QPS, 0) || p.QPS < 0 {
			dropped++
			continue
		}
		by[p.Concurrency] = append(by[p.Concurrency], p)
	}
	if dropped > 0 {
		warns = append(warns, fmt.Sprintf("%d point(s) with concurrency ≤ 0 or an invalid throughput were ignored", dropped))
	}
	out := make([]level, 0, len(by))
	for _, c := range slices.Sorted(maps.Keys(by)) {
		ps := by[c]
		// In order of throughput, so that vals is sorted and each trial's
		// interval (trialSD) stays beside its value.
		slices.SortStableFunc(ps, func(a, b Point) int { return cmp.Compare(a.QPS, b.QPS) })
		l := level{Level: Level{Concurrency: c, Trials: len(ps)}}
		l.vals = make([]float64, len(ps))
		var conns, waits, means, p99s, sifs []float64
		bounds := map[string]int{}
		for i, p := range ps {
			l.vals[i] = p.QPS
			if p.Connections > 0 {
				conns = append(conns, float64(p.Connections))
			}
			if p.PoolWaitP99Ms > 0 {
				waits = append(waits, p.PoolWaitP99Ms)
			}
			if p.MeanLatencyMs > 0 {
				means = append(means, p.MeanLatencyMs)
			}
			if p.HasP99 && !math.IsNaN(p.P99Ms) {
				p99s = append(p99s, p.P99Ms)
			}
			if p.HasServerInFlight {
				sifs = append(sifs, p.ServerInFlight)
			}
			if p.Bound != "" {
				bounds[p.Bound]++
			}
			l.MaxPoolSize = max(l.MaxPoolSize, p.MaxPoolSize)
		}
		sort.Float64s(l.vals)
		// Without a bootstrap the honest interval is the observed range,
		// which is what Summarize gives.
		sum := stats.Summarize(l.vals)
		l.QPS, l.QPSLow, l.QPSHigh = sum.Center, sum.Low, sum.High
		l.QPSMean = stats.Mean(l.vals)
		l.Connections = int(math.Round(medianOrZero(conns)))
		l.PoolWaitP99Ms = medianOrZero(waits)
		l.MeanLatencyMs = medianOrZero(means)
		if len(p99s) > 0 {
			v := stats.Median(p99s)
			l.P99Ms = &v
		}
		if len(sifs) == len(ps) {
			v := stats.Median(sifs)
			l.ServerInFlight = &v
		}
		l.Bound = majority(bounds)
		withBatchInterval(&l, ps) // batchinterval.go
		l.clientBound = bounds[boundClient]
		out = append(out, l)
	}
	return out, warns
}

// majority is the most frequent key; ties go to the alphabetically first so
// the answer is deterministic.
func majority(counts map[string]int) string {
	best, bestN := "", 0
	for k, n := range counts {
		if n > bestN || (n == bestN && k < best) {
			best, bestN = k, n
		}
	}
	return best
}

// medianOrZero is the median of values that are only recorded when
// known; 0 (the Level fields' "unknown") when none were.
func medianOrZero(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return stats.Median(v)
}
