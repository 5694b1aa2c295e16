package derive

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// ksPValue is the asymptotic p-value of a one-sample Kolmogorov–Smirnov
// statistic d over n values, with Stephens' small-sample correction. With
// a parameter fitted from the same values the test is conservative: a
// fit it rejects is a poor one.
func ksPValue(d float64, n int64) float64 {
	if n <= 0 {
		return math.NaN()
	}
	sn := math.Sqrt(float64(n))
	lambda := (sn + 0.12 + 0.11/sn) * d
	if lambda < 0.2 {
		return 1
	}
	p := 0.0
	for k := 1; k <= 100; k++ {
		term := 2 * math.Pow(-1, float64(k-1)) * math.Exp(-2*float64(k*k)*lambda*lambda)
		p += term
		if math.Abs(term) < 1e-12 {
			break
		}
	}
	return min(max(p, 0), 1)
}

// ksUniform is the KS statistic of xs (sorted) against a uniform on
// [lo, hi]; integer values are taken as the cells [x-0.5, x+0.5) of a
// uniform on [lo-0.5, hi+0.5], so that discrete data are not judged as
// if continuous.
func ksUniform(xs []float64, lo, hi float64, integer bool) float64 {
	if integer {
		lo, hi = lo-0.5, hi+0.5
	}
	width := hi - lo
	if width <= 0 || len(xs) == 0 {
		return 1
	}
	cdf := func(x float64) float64 { return min(max((x-lo)/width, 0), 1) }
	n := float64(len(xs))
	d := 0.0
	for i := 0; i < len(xs); {
		j := i
		for j < len(xs) && xs[j] == xs[i] {
			j++
		}
		x := xs[i]
		below, upto := float64(i)/n, float64(j)/n
		left, right := cdf(x), cdf(x)
		if integer {
			left, right = cdf(x-0.5), cdf(x+0.5)
		}
		d = max(d, math.Abs(below-left), math.Abs(upto-right))
		i = j
	}
	return d
}

// zipfFit is the θ that best explains counts (most frequent first) as a
// zipfian over their ranks (maximum likelihood, golden-section search on
// [0.01, 4]), and the KS statistic of the ranks against it.
func zipfFit(counts []int64) (theta, d float64) {
	k := len(counts)
	total, sumLog := 0.0, 0.0
	for i, c := range counts {
		total += float64(c)
		sumLog += float64(c) * math.Log(float64(i+1))
	}
	h := func(t float64) float64 {
		s := 0.0
		for i := 1; i <= k; i++ {
			s += math.Pow(float64(i), -t)
		}
		return s
	}
	negLL := func(t float64) float64 { return t*sumLog + total*math.Log(h(t)) }
	a, b := 0.01, 4.0
	g := (math.Sqrt(5) - 1) / 2
	x1, x2 := b-g*(b-a), a+g*(b-a)
	f1, f2 := negLL(x1), negLL(x2)
	for range 60 {
		if f1 < f2 {
			b, x2, f2 = x2, x1, f1
			x1 = b - g*(b-a)
			f1 = negLL(x1)
		} else {
			a, x1, f1 = x1, x2, f2
			x2 = a + g*(b-a)
			f2 = negLL(x2)
		}
	}
	theta = (a + b) / 2
	hz := h(theta)
	cumE, cumZ := 0.0, 0.0
	for i, c := range counts {
		cumE += float64(c) / total
		cumZ += math.Pow(float64(i+1), -theta) / hz
		d = max(d, math.Abs(cumE-cumZ))
	}
	return theta, d
}

// chiSquareUniform is the p-value of counts being equally likely
// categories (Pearson's χ², k−1 degrees of freedom).
func chiSquareUniform(counts []int64) float64 {
	k := len(counts)
	if k < 2 {
		return math.NaN()
	}
	total := 0.0
	for _, c := range counts {
		total += float64(c)
	}
	exp := total / float64(k)
	chi := 0.0
	for _, c := range counts {
		diff := float64(c) - exp
		chi += diff * diff / exp
	}
	return distuv.ChiSquared{K: float64(k - 1)}.Survival(chi)
}

func sortedCopy(xs []float64) []float64 {
	out := append([]float64(nil), xs...)
	sort.Float64s(out)
	return out
}
