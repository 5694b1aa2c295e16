package knee

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"

	"github.com/poolsweep/poolsweep/internal/stats"
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
	// poolWaitShare is the share of p99 latency spent waiting for a pool
	// connection above which a step counts as pool-bound.
	poolWaitShare = 0.5
	// minUSLLevels is the fewest distinct concurrency levels a USL fit needs:
	// three parameters and at least two degrees of freedom.
	minUSLLevels = 5
)

// level is one concurrency level with its raw trial values, sorted.
type level struct {
	Level
	vals        []float64 // sorted QPS of the trials
	clientBound int       // trials labelled client-bound
}

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
	minTrials := math.MaxInt
	for i, l := range levels {
		xs[i], lx[i], ys[i] = l.Concurrency, math.Log2(float64(l.Concurrency)), l.QPS
		minTrials = min(minTrials, l.Trials)
	}
	sif, sifNote := serverInFlightKnee(levels, lx, o)
	est := estimateKnee(lx, ys, sif, o, true)

	// The bootstrap resamples trials within each level; each resample's
	// medians give one consensus knee and one median per level. Only
	// meaningful with ≥3 trials everywhere; levels with fewer keep min/max.
	var boot []int
	if len(levels) > 0 && o.Bootstrap > 0 && minTrials >= 3 {
		boot = bootstrap(levels, lx, sif, o, rng)
	}
	for i := range levels {
		r.Levels = append(r.Levels, levels[i].Level)
	}
	if len(levels) == 0 {
		r.Levels = []Level{}
		r.Knee = Knee{Confidence: "none", Statement: "no usable measurements"}
		r.Methods = emptyMethods("no usable measurements")
		r.Recommendation.Why = "nothing to recommend without measurements."
		r.Verdict = fmt.Sprintf("%s: no usable measurements.", seriesName(r))
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
	r.Knee = consensus(r, levels, est, boot, minTrials)
	if r.Knee.Found {
		r.BoundPastKnee = boundPast(s.Points, r.Knee.Concurrency)
	}
	r.Recommendation = recommend(r, s, o)
	if minTrials == 1 && len(levels) > 1 {
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
	concs := make([]int, 0, len(by))
	for c := range by {
		concs = append(concs, c)
	}
	sort.Ints(concs)
	out := make([]level, 0, len(concs))
	for _, c := range concs {
		ps := by[c]
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
		l.clientBound = bounds[boundClient]
		out = append(out, l)
	}
	return out, warns
}

// estimate is what the curve methods say about one medians curve; indices
// point into the levels, -1 means "no answer".
type estimate struct {
	peak, plateau, kneedle, marginal int
	serverInFlight                   int  // the server in-flight knee, -1 when none or not run
	knee                             int  // consensus, -1 when none
	rising                           bool // still gaining ≥ MinGain per doubling at the top
	topGain                          float64
	plateauNote                      string
	kneedleNote                      string
	marginalNote                     string
}

// estimateKnee runs the plateau, Kneedle and marginal-gain methods on a
// medians curve (lx = log2 concurrency) and forms their consensus with the
// server in-flight answer sif (an index, -1 for none), which comes from
// another curve and is computed once by the caller. notes says whether to
// build the explanatory strings (the bootstrap calls this thousands of
// times and needs only the indices).
func estimateKnee(lx, ys []float64, sif int, o Options, notes bool) estimate {
	n := len(ys)
	e := estimate{peak: -1, plateau: -1, kneedle: -1, marginal: -1, serverInFlight: sif, knee: -1}
	if n == 0 {
		return e
	}
	e.peak = peakIndex(ys)
	if ys[e.peak] <= 0 {
		if notes {
			e.plateauNote, e.kneedleNote, e.marginalNote = "no throughput", "no throughput", "no throughput"
		}
		return e
	}

	e.plateau = plateauIndex(ys, e.peak, o.Plateau)
	if notes {
		e.plateauNote = fmt.Sprintf("first level reaching %.0f%% of the peak", o.Plateau*100)
	}

	// Kneedle on the running maximum over log2 concurrency: the method wants
	// a monotone concave curve, and the running maximum turns a retrograde
	// tail into a flat one instead of a second shape.
	switch {
	case n < 3:
		if notes {
			e.kneedleNote = "needs at least 3 levels"
		}
	case lx[n-1] == lx[0]:
	default:
		best, bestD := -1, math.Inf(-1)
		runMax := ys[0]
		for _, y := range ys {
			runMax = max(runMax, y)
		}
		if span := runMax - ys[0]; span > 0 {
			run := ys[0]
			for i := 1; i < n-1; i++ {
				run = max(run, ys[i])
				d := (run-ys[0])/span - (lx[i]-lx[0])/(lx[n-1]-lx[0])
				if d > bestD {
					best, bestD = i, d
				}
			}
		}
		if bestD < kneedleMinDiff {
			best = -1
		}
		e.kneedle = best
		if notes {
			if best < 0 {
				e.kneedleNote = "the curve is not concave on log2 concurrency: no knee"
			} else {
				e.kneedleNote = fmt.Sprintf("largest distance above the chord: %.2f of the range", bestD)
			}
		}
	}

	if n >= 2 {
		e.marginal, e.topGain = marginalIndex(lx, ys, o.MinGain)
		e.rising = e.peak == n-1 && e.topGain >= o.MinGain
		if notes {
			if e.marginal < 0 {
				e.marginalNote = fmt.Sprintf("the last doubling still added %.0f%%", e.topGain*100)
			} else {
				e.marginalNote = fmt.Sprintf("from here on each doubling adds less than %.0f%%", o.MinGain*100)
			}
		}
	} else if notes {
		e.marginalNote = "needs at least 2 levels"
	}

	if n < 2 || e.rising {
		return e
	}
	// Consensus: the median answer. With an even count take the higher of
	// the middle two, because by the lower one's neighbour's measure the
	// curve has not saturated yet.
	var ans [4]int
	k := 0
	for _, a := range []int{e.plateau, e.kneedle, e.marginal, e.serverInFlight} {
		if a >= 0 {
			ans[k] = a
			k++
		}
	}
	if k == 0 {
		return e
	}
	s := ans[:k]
	sort.Ints(s)
	e.knee = s[k/2]
	return e
}

// peakIndex is the index of the first largest value.
func peakIndex(ys []float64) int {
	p := 0
	for i, y := range ys {
		if y > ys[p] {
			p = i
		}
	}
	return p
}

// plateauIndex is the first level, up to the peak, within frac of it; -1
// when the peak is not positive.
func plateauIndex(ys []float64, peak int, frac float64) int {
	if ys[peak] <= 0 {
		return -1
	}
	for i := 0; i <= peak; i++ {
		if ys[i] >= frac*ys[peak] {
			return i
		}
	}
	return -1
}

// marginalIndex is the first level from which no later doubling gains
// minGain, and the gain per doubling of the last step (-1 when the curve
// still gains at the top).
//
// Gains are measured against the best level so far so that a noisy dip is
// not followed by a false "gain". Grids that do not double are compared per
// log2 step: gain^(1/log2(C2/C1)). For a concave curve the answer is the
// first doubling that adds less than minGain; it skips a flat start that
// the curve later climbs out of.
func marginalIndex(lx, ys []float64, minGain float64) (idx int, topGain float64) {
	n := len(ys)
	idx = -1
	if n < 2 {
		return idx, 0
	}
	best := ys[0]
	for j := 0; j < n-1; j++ {
		g := perDoubling(best, ys[j+1], lx[j+1]-lx[j])
		if j == n-2 {
			topGain = g
		}
		if g >= minGain {
			idx = -1
		} else if idx < 0 {
			idx = j
		}
		best = max(best, ys[j+1])
	}
	return idx, topGain
}

// perDoubling is the relative throughput gain per doubling of concurrency
// over a step of dlog2 doublings.
func perDoubling(from, to, dlog2 float64) float64 {
	if from <= 0 {
		if to > 0 {
			return math.Inf(1)
		}
		return 0
	}
	if dlog2 <= 0 {
		return 0
	}
	return math.Pow(to/from, 1/dlog2) - 1
}

// bootstrap resamples trials within each level o.Bootstrap times. It
// replaces each level's QPSLow/QPSHigh by the 95% percentile interval of
// the resampled medians and returns each resample's consensus knee index
// (-1 for none).
func bootstrap(levels []level, lx []float64, sif int, o Options, rng *rand.Rand) []int {
	B := o.Bootstrap
	L := len(levels)
	meds := make([]float64, B*L) // resample-major
	knees := make([]int, B)
	maxN := 0
	for _, l := range levels {
		maxN = max(maxN, len(l.vals))
	}
	rs := stats.NewResampler(rng, maxN)
	ys := make([]float64, L)
	for b := range B {
		for i, l := range levels {
			ys[i] = rs.Median(l.vals)
			meds[b*L+i] = ys[i]
		}
		knees[b] = estimateKnee(lx, ys, sif, o, false).knee
	}
	col := make([]float64, B)
	for i := range levels {
		for b := range B {
			col[b] = meds[b*L+i]
		}
		s := stats.Summarize(levels[i].vals).WithInterval(col, stats.DefaultConfidence)
		levels[i].QPSLow, levels[i].QPSHigh = s.Low, s.High
	}
	return knees
}

// method turns an index answer into a Method.
func method(xs []int, idx int, note string) Method {
	m := Method{Note: note}
	if idx >= 0 {
		c := xs[idx]
		m.Concurrency = &c
	}
	return m
}

func emptyMethods(note string) Methods {
	return Methods{
		Plateau:        Method{Note: note},
		Kneedle:        Method{Note: note},
		Marginal:       Method{Note: note},
		SLO:            Method{Note: note},
		ServerInFlight: Method{Note: note},
		USL:            USL{Skipped: note},
	}
}

// sloKnee is the highest-throughput level whose median p99 meets the SLO.
func sloKnee(levels []Level, o Options) Method {
	if o.SLOP99 <= 0 {
		return Method{Note: "no p99 SLO given"}
	}
	slo := float64(o.SLOP99) / 1e6
	best := -1
	known := 0
	lowest := -1
	for i, l := range levels {
		if l.P99Ms == nil {
			continue
		}
		known++
		if lowest < 0 || *l.P99Ms < *levels[lowest].P99Ms {
			lowest = i
		}
		if *l.P99Ms <= slo && (best < 0 || l.QPS > levels[best].QPS) {
			best = i
		}
	}
	switch {
	case known == 0:
		return Method{Note: "no p99 latency in the data"}
	case best < 0:
		return Method{Note: fmt.Sprintf("no level met p99 ≤ %s (lowest p99 %s ms at concurrency %d)",
			o.SLOP99, fmtMs(*levels[lowest].P99Ms), levels[lowest].Concurrency)}
	}
	c := levels[best].Concurrency
	return Method{Concurrency: &c, Note: fmt.Sprintf("highest throughput with p99 ≤ %s (p99 %s ms)", o.SLOP99, fmtMs(*levels[best].P99Ms))}
}

// retrograde reports a fall past the peak larger than retrogradeMinDrop and
// than the noise: with two or more trials on both levels their intervals
// must not overlap; with one trial only the 5% rule applies.
func retrograde(levels []Level, peak int) *Retrograde {
	if peak < 0 {
		return nil
	}
	p := levels[peak]
	var r *Retrograde
	for j := peak + 1; j < len(levels); j++ {
		l := levels[j]
		drop := (p.QPS - l.QPS) / p.QPS
		if drop <= retrogradeMinDrop {
			continue
		}
		if p.Trials >= 2 && l.Trials >= 2 && l.QPSHigh >= p.QPSLow {
			continue // within the noise
		}
		if r == nil {
			r = &Retrograde{From: l.Concurrency}
		}
		if drop*100 > r.DropPct {
			r.DropPct, r.To = drop*100, l.Concurrency
		}
	}
	return r
}

// consensus turns the point estimate and the bootstrap into a Knee, and
// qualifies it when the load host limited the levels that decided it.
func consensus(r Report, levels []level, e estimate, boot []int, minTrials int) Knee {
	n := len(levels)
	xs := make([]int, n)
	for i, l := range levels {
		xs[i] = l.Concurrency
	}
	k := Knee{Confidence: "none"}
	if e.knee < 0 {
		switch {
		case r.Peak.QPS <= 0:
			k.Statement = "no throughput was measured"
		case n == 1:
			k.Statement = "only one concurrency level was measured; a knee needs at least two"
		case e.rising:
			k.Statement = fmt.Sprintf("no knee within the tested range — test higher concurrency (throughput still rose %.0f%% per doubling from %d to %d)",
				e.topGain*100, xs[n-2], xs[n-1])
		default:
			k.Statement = "no method found a knee"
		}
		// Past the peak (or at the top, still rising) the load host may be
		// why no knee showed.
		if n > 1 && r.Peak.QPS > 0 {
			if runs := limitedRuns(levels, e.peak-1, n-1); len(runs) > 0 {
				k.LoadHostLimited = flatten(runs)
				k.Statement += "; " + limitNote(runs)
			}
		}
		return k
	}
	k.Found = true
	k.Concurrency = xs[e.knee]
	k.QPS = r.Levels[e.knee].QPS
	lo, hi := e.knee, e.knee
	var parts []string
	for _, m := range []struct {
		name string
		idx  int
	}{{"plateau", e.plateau}, {"kneedle", e.kneedle}, {"marginal", e.marginal}, {"server in-flight", e.serverInFlight}} {
		if m.idx < 0 {
			continue
		}
		lo, hi = min(lo, m.idx), max(hi, m.idx)
		parts = append(parts, fmt.Sprintf("%s %d", m.name, xs[m.idx]))
	}
	agree := "methods agree"
	if lo != hi {
		agree = "methods differ (" + strings.Join(parts, ", ") + ")"
	} else if len(parts) == 1 {
		agree = "one method answered (" + parts[0] + ")"
	}
	mlo, mhi := lo, hi

	var stability float64
	if len(boot) > 0 {
		var found []float64
		same := 0
		for _, b := range boot {
			if b >= 0 {
				found = append(found, float64(b))
			}
			if b == e.knee {
				same++
			}
		}
		stability = float64(same) / float64(len(boot))
		k.Stability = &stability
		k.Resamples = len(boot)
		if len(found) > 0 {
			// The 95% interval of the resampled knees, as levels that were
			// answers: rounded outwards, never interpolated between them.
			blo, bhi := stats.OuterPercentiles(found, 2.5, 97.5)
			lo, hi = min(lo, int(blo)), max(hi, int(bhi))
		}
	}
	k.Low, k.High = xs[lo], xs[hi]
	span := hi - lo

	var conf string
	switch {
	case minTrials == 1:
		k.Confidence = "unconfirmed"
		conf = "unconfirmed: 1 trial per level, repeat with 3 or more trials for an interval"
	case minTrials == 2:
		k.Confidence = "low"
		conf = "low confidence: 2 trials per level are too few for a bootstrap interval"
	case len(boot) == 0:
		k.Confidence = "medium"
		if mhi-mlo > 1 {
			k.Confidence = "low"
		}
		conf = fmt.Sprintf("%s confidence: %d trials per level, no bootstrap run", k.Confidence, minTrials)
	default:
		switch {
		case stability >= 0.8 && span <= 1:
			k.Confidence = "high"
		case stability >= 0.5 && span <= 2:
			k.Confidence = "medium"
		default:
			k.Confidence = "low"
		}
		conf = fmt.Sprintf("%s confidence: %.0f%% of %d bootstrap resamples of %d+ trials per level give the same knee",
			k.Confidence, stability*100, len(boot), minTrials)
	}
	from, to := kneeWindow(e.knee, lo, hi, e.peak)
	conf = capForLoadHost(&k, conf, limitedRuns(levels, from, to))
	rng := fmt.Sprintf("%d", k.Concurrency)
	if k.Low != k.High {
		rng = fmt.Sprintf("%d (range %d–%d)", k.Concurrency, k.Low, k.High)
	}
	k.Statement = fmt.Sprintf("knee at concurrency %s; %s; %s", rng, agree, conf)
	return k
}

// boundPast names the majority Point.Bound of the steps past the knee, ""
// when none of them carries one.
func boundPast(points []Point, knee int) string {
	counts := map[string]int{}
	for _, p := range points {
		if p.Concurrency > knee && p.Bound != "" {
			counts[p.Bound]++
		}
	}
	return majority(counts)
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
