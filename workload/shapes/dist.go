package shapes

import (
	"math"
	"math/rand/v2"

	"github.com/poolsweep/poolsweep/workload/internal/zipf"
)

// Draw is one value from the distribution, as the file keeps values (a
// string, an int64, a float64, a bool; see Literal), or false when the
// distribution has nothing to draw from.
func (d *Distribution) Draw(r *rand.Rand) (any, bool) {
	switch d.Dist {
	case DistEmpirical:
		if len(d.Values) == 0 {
			return nil, false
		}
		if len(d.Weights) != len(d.Values) {
			return d.Values[r.IntN(len(d.Values))], true
		}
		total := 0.0
		for _, w := range d.Weights {
			total += w
		}
		u := r.Float64() * total
		for i, w := range d.Weights {
			if u < w {
				return d.Values[i], true
			}
			u -= w
		}
		return d.Values[len(d.Values)-1], true
	case DistUniform:
		if len(d.Values) > 0 {
			return d.Values[r.IntN(len(d.Values))], true
		}
		if d.Integer {
			lo, hi := toInt64(math.Ceil(d.Min)), toInt64(math.Floor(d.Max))
			if hi < lo {
				return lo, true
			}
			return uniformInt(r, lo, hi), true
		}
		// Weighted this way, no difference of two large numbers can
		// overflow to an infinity.
		u := r.Float64()
		return d.Min*(1-u) + d.Max*u, true
	case DistZipfian:
		if len(d.Values) > 0 {
			return d.Values[zipf.Shared(int64(len(d.Values)), d.Theta).Rank(r)], true
		}
		lo, hi := toInt64(math.Ceil(d.Min)), toInt64(math.Floor(d.Max))
		if hi < lo {
			return lo, true
		}
		span := uint64(hi) - uint64(lo)
		if span >= maxZipfRange {
			span = maxZipfRange - 1 // Validate refuses more; a File built in code still draws
		}
		k := zipf.Shared(int64(span)+1, d.Theta).Rank(r)
		if d.Integer {
			return lo + k, true
		}
		return float64(lo + k), true
	}
	return nil, false
}

// toInt64 is x (a whole number) as an int64, the nearest end of int64's
// range beyond it: Go leaves the conversion of an out-of-range float
// undefined.
func toInt64(x float64) int64 {
	switch {
	case x >= math.MaxInt64: // float64(MaxInt64) is 2^63, one past it
		return math.MaxInt64
	case x <= math.MinInt64:
		return math.MinInt64
	}
	return int64(x)
}

// uniformInt is an integer drawn uniformly from [lo, hi], for every range
// int64 has: hi-lo+1 overflows int64 (and Int64N panics) for a range wider
// than 2^63, so the span is unsigned, and the full range is any uint64.
func uniformInt(r *rand.Rand, lo, hi int64) int64 {
	span := uint64(hi) - uint64(lo)
	if span == math.MaxUint64 {
		return int64(r.Uint64())
	}
	return int64(uint64(lo) + r.Uint64N(span+1))
}
