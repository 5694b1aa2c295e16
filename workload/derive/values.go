package derive

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/poolsweep/poolsweep/internal/stats"
	"github.com/poolsweep/poolsweep/workload/shapes"
)

// Bounds on what one placeholder's accumulator holds, whatever the log's
// size: the distinct values counted, and the numbers kept for fitting.
const (
	maxTracked   = 10_000
	maxReservoir = 20_000
	// fewValues: a placeholder with at most this many distinct values is
	// described by its values and weights as they were (empirical).
	fewValues = 10
	// minFitP is the p-value below which a fitted uniform or zipfian is
	// rejected for the values as they were.
	minFitP = 0.01
	// numberBudget and valueBudget bound what a Builder holds in all, over
	// every shape and placeholder: numbers kept for fitting and
	// percentiles (8 bytes each), and bytes of distinct values counted.
	// Past them, samples stop growing and new values are counted as
	// uncounted (overflow), whatever the log's size.
	numberBudget = 8 << 20
	valueBudget  = 256 << 20
	// shapeBudget bounds the bytes of the shapes' own documents; the
	// operations of a shape first seen past it are counted as left out.
	shapeBudget = 256 << 20
)

// budget is what is left of a Builder's bound on memory.
type budget struct{ numbers, valueBytes, shapeBytes int64 }

// reservoir keeps a uniform sample of at most max values (Vitter's R),
// fewer when the Builder's budget runs out first.
type reservoir struct {
	xs     []float64
	seen   int64
	rng    *rand.Rand
	budget *budget
}

func newReservoir(seed uint64, b *budget) *reservoir {
	return &reservoir{rng: rand.New(rand.NewPCG(seed, 0x5eed)), budget: b}
}

func (r *reservoir) add(x float64, max int) {
	r.seen++
	if len(r.xs) < max && r.budget.numbers > 0 {
		r.budget.numbers--
		r.xs = append(r.xs, x)
		return
	}
	if j := r.rng.Int64N(r.seen); j < int64(len(r.xs)) {
		r.xs[j] = x
	}
}

// valueAcc accumulates one placeholder's values.
type valueAcc struct {
	typ      string
	n        int64
	counts   map[any]int64
	overflow int64 // values not counted: seen after maxTracked distinct, or past the budget
	budget   *budget
	nums     *reservoir
	min, max float64
	integer  bool
	lengths  *reservoir // elements per array, for "?array<…>"
	array    bool
}

func newValueAcc(seed uint64, b *budget) *valueAcc {
	return &valueAcc{counts: map[any]int64{}, nums: newReservoir(seed, b), lengths: newReservoir(seed+1, b),
		min: math.Inf(1), max: math.Inf(-1), integer: true, budget: b}
}

// valueCost is the bytes a distinct value takes in a count (about).
func valueCost(v any) int64 {
	if s, ok := v.(string); ok {
		return int64(len(s)) + 48
	}
	return 48
}

func (v *valueAcc) add(typ string, values []any, array bool) {
	switch {
	case v.typ == "":
		v.typ = typ
	case v.typ != typ:
		v.typ = "mixed"
	}
	if array {
		v.array = true
		v.lengths.add(float64(len(values)), maxReservoir)
	}
	for _, val := range values {
		v.n++
		if _, ok := v.counts[val]; ok {
			v.counts[val]++
		} else if cost := valueCost(val); len(v.counts) < maxTracked && v.budget.valueBytes >= cost {
			v.budget.valueBytes -= cost
			v.counts[val] = 1
		} else {
			v.overflow++
		}
		var x float64
		switch n := val.(type) {
		case int64:
			x = float64(n)
		case float64:
			x = n
			if n != math.Trunc(n) {
				v.integer = false
			}
		default:
			continue
		}
		v.nums.add(x, maxReservoir)
		v.min, v.max = math.Min(v.min, x), math.Max(v.max, x)
	}
}

type ranked struct {
	val   any
	count int64
}

// ranking is the counted values, most frequent first (ties in a stable
// order, so that the same log gives the same file).
func (v *valueAcc) ranking() []ranked {
	out := make([]ranked, 0, len(v.counts))
	for val, c := range v.counts {
		out = append(out, ranked{val, c})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].count != out[j].count {
			return out[i].count > out[j].count
		}
		return fmt.Sprint(out[i].val) < fmt.Sprint(out[j].val)
	})
	return out
}

// distribution is what the values were: a fitted uniform or zipfian when
// it fits (the fit said), else the values as seen with their weights.
// ok is false when no value was kept (redacted, or of a type whose values
// are not kept).
func (v *valueAcc) distribution() (shapes.Distribution, bool) {
	if v.n == 0 {
		return shapes.Distribution{}, false
	}
	typ := v.typ
	if typ == "mixed" || typ == "redacted" {
		typ = "mixed"
	}
	d := shapes.Distribution{Type: typ, N: v.n}
	rank := v.ranking()
	distinct := int64(len(rank))
	if v.overflow > 0 {
		d.Distinct = distinct // at least; the rest were not counted
	}
	if v.array && len(v.lengths.xs) > 0 {
		lens := v.lengths.xs
		d.Length = &shapes.Summary{Mean: stats.Mean(lens), P50: stats.Percentile(lens, 50), P99: stats.Percentile(lens, 99), N: v.lengths.seen}
	}
	numeric := (typ == "number" || typ == "date") && len(v.nums.xs) > 0
	if distinct > fewValues && numeric {
		xs := sortedCopy(v.nums.xs)
		ks := ksUniform(xs, v.min, v.max, v.integer)
		if p := ksPValue(ks, int64(len(xs))); p >= minFitP {
			d.Dist, d.Min, d.Max, d.Integer = shapes.DistUniform, v.min, v.max, v.integer
			lo, hi := num(v.min), num(v.max)
			if typ == "date" {
				lo, hi = date(v.min), date(v.max)
			}
			d.Fit = fmt.Sprintf("uniform on [%s, %s], KS D=%.3f (p=%.2f) over %d values", lo, hi, ks, p, len(xs))
			return d, true
		}
	}
	if distinct > fewValues && v.overflow == 0 && !numeric {
		counts := make([]int64, len(rank))
		for i, r := range rank {
			counts[i] = r.count
		}
		if p := chiSquareUniform(counts); p >= minFitP {
			keep := min(len(rank), shapes.MaxValues)
			d.Dist = shapes.DistUniform
			d.Values = values(rank, keep)
			d.Fit = fmt.Sprintf("uniform over %d values, χ² p=%.2f over %d values", len(rank), p, v.n)
			if keep < len(rank) {
				d.Distinct = distinct
				d.Fit += fmt.Sprintf("; draws from %d of them", keep)
			}
			return d, true
		}
	}
	if distinct > fewValues && v.overflow == 0 {
		counts := make([]int64, len(rank))
		for i, r := range rank {
			counts[i] = r.count
		}
		theta, ks := zipfFit(counts)
		if p := ksPValue(ks, v.n); p >= minFitP && len(rank) <= shapes.MaxValues {
			d.Dist, d.Theta = shapes.DistZipfian, round3(theta)
			d.Values = values(rank, len(rank))
			d.Fit = fmt.Sprintf("zipfian θ=%.3f over %d ranked values, KS D=%.3f (p=%.2f) over %d values", theta, len(rank), ks, p, v.n)
			return d, true
		}
	}
	keep := min(len(rank), shapes.MaxValues)
	d.Dist = shapes.DistEmpirical
	d.Values = values(rank, keep)
	d.Weights = make([]float64, keep)
	var kept int64
	for i := range keep {
		d.Weights[i] = round6(float64(rank[i].count) / float64(v.n))
		kept += rank[i].count
	}
	if keep < len(rank) || v.overflow > 0 {
		d.Distinct = distinct
		more := ""
		if v.overflow > 0 {
			more = "+"
		}
		d.Fit = fmt.Sprintf("empirical: the %d most frequent of %d%s distinct values, %.0f%% of %d", keep, distinct, more,
			100*float64(kept)/float64(v.n), v.n)
	} else if distinct > fewValues {
		d.Fit = fmt.Sprintf("empirical: neither a uniform nor a zipfian fits (p < %.2f)", minFitP)
	}
	return d, true
}

func values(rank []ranked, n int) []any {
	out := make([]any, n)
	for i := range n {
		out[i] = rank[i].val
	}
	return out
}

func num(x float64) string { return fmt.Sprintf("%.6g", x) }

// date is milliseconds since 1970 as a time a person reads.
func date(ms float64) string { return time.UnixMilli(int64(ms)).UTC().Format(time.RFC3339Nano) }

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }
