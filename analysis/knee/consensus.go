package knee

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/poolsweep/poolsweep/internal/stats"
)

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
func consensus(r Report, levels []level, e estimate, boot []int, minTrials int, batch bool) Knee {
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
	case batch:
		k.Confidence, conf = batchConfidence(levels, e, stability, span, len(boot))
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
	conf = capUnsettled(&k, conf, levels, from, to)
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
