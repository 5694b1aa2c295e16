// Package twosample is the two-sample test that compare concludes with,
// and that every other comparison of trials (settings of a profile sweep)
// reuses so that one rule decides significance: a two-sided
// Mann–Whitney U test with a Hodges–Lehmann interval where the sample
// sizes allow p < alpha, Welch's t-test below that, on log values for
// positive samples. Pure functions; no I/O.
package twosample

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/poolsweep/poolsweep/internal/stats"
)

// Test methods, the value of Metric.Method.
const (
	// MethodMannWhitney is a two-sided Mann–Whitney U test with a
	// Hodges–Lehmann confidence interval for the shift: distribution-free,
	// used whenever the sample sizes allow p < alpha.
	MethodMannWhitney = "mann-whitney"
	// MethodWelch is Welch's t-test. It is used only when both sides have at
	// least MinTrials trials but too few for a rank test to ever reach
	// p < alpha (3 against 3 gives at best p = 0.1). It assumes roughly
	// normal noise on the scale used (log values for positive metrics).
	MethodWelch = "welch-t"
)

// MinTrials is the number of trials per side below which a difference is
// shown but never called significant.
const MinTrials = 3

// exactEnumLimit bounds the permutations enumerated for an exact p-value
// when the samples have ties (C(16,8) = 12870 fits; larger samples use the
// normal approximation, which is good there).
const exactEnumLimit = 20000

// Result is the outcome of comparing two samples on one scale
// (candidate − baseline).
type Result struct {
	Method     string
	P          float64
	Lo, Hi     float64 // confidence interval of the shift
	Confidence float64 // achieved confidence of [Lo, Hi]
	HasCI      bool
}

// Significant says the shift is significant at alpha: the test's p below
// it and an interval clear of zero. With ties the two can disagree, and
// then the cautious answer wins.
func (r Result) Significant(alpha float64) bool {
	return r.P < alpha && r.HasCI && (r.Lo > 0 || r.Hi < 0)
}

// Test tests candidate y against baseline x. Both must have at least
// MinTrials values. The interval is for the shift y − x on the given scale.
func Test(x, y []float64, alpha float64) Result {
	if minExactP(len(x), len(y)) < alpha {
		p := mannWhitneyP(x, y)
		r := Result{Method: MethodMannWhitney, P: p}
		if lo, hi, conf, ok := hodgesLehmannCI(x, y, alpha); ok {
			r.Lo, r.Hi, r.Confidence, r.HasCI = lo, hi, conf, true
		}
		return r
	}
	return welch(x, y, alpha)
}

// LogScale says two samples are compared on log values: both positive,
// so that the interval is for the ratio y/x and multiplicative noise is
// symmetric. Others (zero errors, 0 % CPU) are compared on the plain
// difference.
func LogScale(x, y []float64) bool {
	return len(x) > 0 && len(y) > 0 && slices.Min(x) > 0 && slices.Min(y) > 0
}

// Logs is the natural log of each value.
func Logs(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, v := range xs {
		out[i] = math.Log(v)
	}
	return out
}

// minExactP is the smallest two-sided p-value a Mann–Whitney test can give
// for samples of n1 and n2 values: both orderings fully separated.
func minExactP(n1, n2 int) float64 {
	return math.Min(1, 2/stats.Binomial(n1+n2, n1))
}

// midranks returns the ranks (1-based, ties averaged) of the pooled sample
// x ++ y, and whether there were ties.
func midranks(x, y []float64) ([]float64, bool) {
	n := len(x) + len(y)
	idx := make([]int, n)
	val := make([]float64, n)
	copy(val, x)
	copy(val[len(x):], y)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case val[a] < val[b]:
			return -1
		case val[a] > val[b]:
			return 1
		}
		return 0
	})
	ranks := make([]float64, n)
	ties := false
	for i := 0; i < n; {
		j := i
		for j+1 < n && val[idx[j+1]] == val[idx[i]] {
			j++
		}
		if j > i {
			ties = true
		}
		r := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			ranks[idx[k]] = r
		}
		i = j + 1
	}
	return ranks, ties
}

// mannWhitneyP is the two-sided p-value of the Mann–Whitney U test of x
// against y: exact (the U distribution without ties, or an enumeration of
// every split of the midranks with ties) for small samples, the normal
// approximation with tie and continuity corrections otherwise.
func mannWhitneyP(x, y []float64) float64 {
	n1, n2 := len(x), len(y)
	ranks, ties := midranks(x, y)
	r1 := 0.0
	for _, r := range ranks[:n1] {
		r1 += r
	}
	u := r1 - float64(n1*(n1+1))/2
	mu := float64(n1*n2) / 2
	dev := math.Abs(u - mu)
	if dev == 0 {
		return 1
	}
	switch {
	case !ties && n1*n2 <= 2500:
		dist := uDistribution(n1, n2)
		// U is an integer without ties; the two tails are symmetric.
		k := int(math.Round(mu - dev))
		p := 0.0
		for i := 0; i <= k; i++ {
			p += dist[i]
		}
		return math.Min(1, 2*p)
	case ties && stats.Binomial(n1+n2, n1) <= exactEnumLimit:
		return enumerateP(ranks, n1, dev)
	}
	return normalP(ranks, n1, n2, dev)
}

// normalP is the normal approximation of the two-sided Mann–Whitney
// p-value, with the tie correction of the variance and a continuity
// correction; dev is |U − n1·n2/2|.
func normalP(ranks []float64, n1, n2 int, dev float64) float64 {
	n := float64(n1 + n2)
	tieSum := 0.0
	sorted := slices.Clone(ranks)
	slices.Sort(sorted)
	for i := 0; i < len(sorted); {
		j := i
		for j+1 < len(sorted) && sorted[j+1] == sorted[i] {
			j++
		}
		t := float64(j - i + 1)
		tieSum += t*t*t - t
		i = j + 1
	}
	v := float64(n1*n2) / 12 * ((n + 1) - tieSum/(n*(n-1)))
	if v <= 0 {
		return 1
	}
	z := (dev - 0.5) / math.Sqrt(v)
	if z < 0 {
		z = 0
	}
	return math.Min(1, 2*distuv.UnitNormal.Survival(z))
}

// enumerateP is the exact permutation p-value with ties: the share of all
// ways to pick n1 of the pooled midranks whose rank sum lies at least as far
// from its mean as the observed one.
func enumerateP(ranks []float64, n1 int, dev float64) float64 {
	n := len(ranks)
	mean := float64(n1) * float64(n+1) / 2
	total, extreme := 0, 0
	pick := make([]int, n1)
	var rec func(start, depth int, sum float64)
	rec = func(start, depth int, sum float64) {
		if depth == n1 {
			total++
			// |rank sum − its mean| equals |U − n1·n2/2|; the tolerance
			// absorbs float error on .5 midranks.
			if math.Abs(sum-mean) >= dev-1e-9 {
				extreme++
			}
			return
		}
		for i := start; i <= n-(n1-depth); i++ {
			pick[depth] = i
			rec(i+1, depth+1, sum+ranks[i])
		}
	}
	rec(0, 0, 0)
	return float64(extreme) / float64(total)
}

// uDistribution is P(U = u) for u = 0..n1·n2 under the null hypothesis
// without ties, by the classic recurrence
// f(m, n, u) = f(m−1, n, u−n) + f(m, n−1, u), normalised.
func uDistribution(n1, n2 int) []float64 {
	// f[m][n] is a count vector; build row by row to keep memory small.
	prev := make([][]float64, n2+1) // m-1
	for n := 0; n <= n2; n++ {
		prev[n] = []float64{1} // m = 0: one arrangement, U = 0
	}
	for m := 1; m <= n1; m++ {
		cur := make([][]float64, n2+1)
		cur[0] = []float64{1} // n = 0: U = 0
		for n := 1; n <= n2; n++ {
			v := make([]float64, m*n+1)
			for u, c := range cur[n-1] { // f(m, n-1, u)
				v[u] += c
			}
			for u, c := range prev[n] { // f(m-1, n, u-n)
				v[u+n] += c
			}
			cur[n] = v
		}
		prev = cur
	}
	counts := prev[n2]
	total := stats.Binomial(n1+n2, n1)
	out := make([]float64, len(counts))
	for i, c := range counts {
		out[i] = c / total
	}
	return out
}

// hodgesLehmannCI is the distribution-free confidence interval for the
// shift y − x: order statistics of the n1·n2 pairwise differences, chosen
// from the U distribution so that the confidence is the smallest one at or
// above 1 − alpha. ok is false when the samples are too small for that.
func hodgesLehmannCI(x, y []float64, alpha float64) (lo, hi, conf float64, ok bool) {
	n1, n2 := len(x), len(y)
	dist := uDistribution(n1, n2)
	// Largest k with 2·P(U ≤ k−1) ≤ alpha.
	k, cum := 0, 0.0
	for k < len(dist) && 2*(cum+dist[k]) <= alpha {
		cum += dist[k]
		k++
	}
	if k == 0 {
		return 0, 0, 0, false
	}
	d := make([]float64, 0, n1*n2)
	for _, a := range x {
		for _, b := range y {
			d = append(d, b-a)
		}
	}
	slices.Sort(d)
	return d[k-1], d[len(d)-k], 1 - 2*cum, true
}

// welch is Welch's two-sample t-test of y − x with its 1 − alpha interval.
func welch(x, y []float64, alpha float64) Result {
	mx, vx := stats.Mean(x), stats.Variance(x)
	my, vy := stats.Mean(y), stats.Variance(y)
	nx, ny := float64(len(x)), float64(len(y))
	diff := my - mx
	se2 := vx/nx + vy/ny
	r := Result{Method: MethodWelch, Confidence: 1 - alpha, HasCI: true}
	if se2 == 0 {
		// No spread on either side: the samples are constants.
		r.Lo, r.Hi = diff, diff
		if diff == 0 {
			r.P = 1
		}
		return r
	}
	se := math.Sqrt(se2)
	df := se2 * se2 / ((vx*vx)/(nx*nx*(nx-1)) + (vy*vy)/(ny*ny*(ny-1)))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	r.P = math.Min(1, 2*t.Survival(math.Abs(diff)/se))
	q := t.Quantile(1 - alpha/2)
	r.Lo, r.Hi = diff-q*se, diff+q*se
	return r
}
