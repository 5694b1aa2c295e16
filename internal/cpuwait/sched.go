package cpuwait

import (
	"math"
	"runtime/metrics"
)

// schedLatencyMetric is the Go scheduler's runnable-wait histogram.
const schedLatencyMetric = "/sched/latencies:seconds"

// Hist is a copy of one runtime/metrics Float64Histogram reading.
type Hist struct {
	Counts  []uint64
	Buckets []float64 // len(Counts)+1 boundaries, possibly ±Inf at the ends
}

// ReadSched reads the runtime's runnable-wait histogram (seconds); ok is
// false when this Go runtime does not have it.
func ReadSched() (Hist, bool) {
	s := []metrics.Sample{{Name: schedLatencyMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return Hist{}, false
	}
	h := s[0].Value.Float64Histogram()
	// Read may reuse the histogram's memory on a later call: keep a copy.
	return Hist{Counts: append([]uint64(nil), h.Counts...), Buckets: append([]float64(nil), h.Buckets...)}, true
}

// HistDelta is b−a bucket by bucket, or false when the two readings do not
// have the same buckets or a count went backwards.
func HistDelta(a, b Hist) (Hist, bool) {
	if len(a.Counts) != len(b.Counts) || len(b.Buckets) != len(b.Counts)+1 {
		return Hist{}, false
	}
	d := Hist{Counts: make([]uint64, len(b.Counts)), Buckets: b.Buckets}
	for i := range b.Counts {
		if b.Counts[i] < a.Counts[i] {
			return Hist{}, false
		}
		d.Counts[i] = b.Counts[i] - a.Counts[i]
	}
	return d, true
}

// Quantile is the q-quantile of h, interpolated linearly inside the bucket
// that holds it; an unbounded top bucket answers its lower bound, an
// unbounded bottom one counts from 0. ok is false for an empty histogram.
func (h Hist) Quantile(q float64) (float64, bool) {
	if len(h.Buckets) != len(h.Counts)+1 {
		return 0, false
	}
	var total uint64
	for _, c := range h.Counts {
		total += c
	}
	if total == 0 {
		return 0, false
	}
	rank := q * float64(total)
	cum := 0.0
	for i, c := range h.Counts {
		if c == 0 {
			continue
		}
		if cum+float64(c) >= rank {
			lo, hi := h.Buckets[i], h.Buckets[i+1]
			if math.IsInf(lo, -1) {
				lo = 0
			}
			if math.IsInf(hi, 1) {
				return lo, true
			}
			return lo + (rank-cum)/float64(c)*(hi-lo), true
		}
		cum += float64(c)
	}
	// Rounding left rank just above the last count: the top occupied bucket.
	for i := len(h.Counts) - 1; i >= 0; i-- {
		if h.Counts[i] > 0 {
			if math.IsInf(h.Buckets[i+1], 1) {
				return h.Buckets[i], true
			}
			return h.Buckets[i+1], true
		}
	}
	return 0, false
}
