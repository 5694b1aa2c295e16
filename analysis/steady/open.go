package steady

// The open loop. An open-loop step keeps two series, one value
// per base batch: the achieved rate (calls completed per second) and the
// mean corrected latency of the calls completed in the batch (from their
// intended start). Its warm-up ends where MSER-5 finds both settled (the
// later of the two truncation points); its window once both intervals are
// within the precision. A target that does not keep up with the offered
// rate never settles: its queue grows, and with it the corrected latency,
// for as long as the step runs. Overload says so from the series, so that
// such a step ends instead of running to its maxima.

// overloadShortfall: a target is behind when the achieved rate's whole
// interval lies below this share of the offered rate. Arrivals and
// completions differ only by the calls in flight, which a target keeping
// up holds steady, so a 5 % shortfall over seconds is a queue, not noise.
const overloadShortfall = 0.95

// Overload is the evidence that an open-loop target did not keep up.
type Overload struct {
	// Overloaded: the achieved rate's interval lies below
	// overloadShortfall of the offered rate and the corrected latency
	// rises (a positive slope, significant at 5 %, of its means of five).
	Overloaded   bool
	AchievedPerS float64 // the achieved rate's batch-means mean
	OfferedPerS  float64
	// LatencySlope is the corrected latency's rise, in its unit per
	// second.
	LatencySlope float64
}

// checkOverload tests achieved (calls/s) and latency, base batches of
// batchS seconds, against the offered rate (calls/s).
func checkOverload(achieved, latency []float64, offered, batchS, confidence float64) Overload {
	o := Overload{OfferedPerS: offered}
	n := min(len(achieved), len(latency))
	iv := BatchMeans(achieved[:n], confidence)
	means := batch(latency[:n], MSERBatch)
	if !iv.OK || means == nil || !(batchS > 0) {
		return o
	}
	o.AchievedPerS = iv.Mean
	b, sig := slope(means)
	o.LatencySlope = b / (MSERBatch * batchS)
	o.Overloaded = offered > 0 && iv.Mean+iv.HalfWidth < overloadShortfall*offered && sig && b > 0
	return o
}

// OpenWarmupRule ends an open-loop warm-up: as WarmupRule, with MSER-5
// settled on both series (the later point), or at once, unsettled, when
// the second half of the series so far shows the target behind
// (checkOverload); the first half is left out so that a start-up
// transient is not taken for a queue.
type OpenWarmupRule struct {
	WarmupRule
	OfferedPerS, BatchS, Confidence float64
}

// Decide is the rule's answer after the base batches achieved and latency.
func (w OpenWarmupRule) Decide(achieved, latency []float64) (Truncation, Overload, End) {
	n := min(len(achieved), len(latency))
	tr, tl := mser5(achieved[:n]), mser5(latency[:n])
	tr.Point, tr.Settled = max(tr.Point, tl.Point), tr.Settled && tl.Settled
	if n < w.MinValues {
		return tr, Overload{}, EndContinue
	}
	if ov := checkOverload(achieved[n/2:n], latency[n/2:n], w.OfferedPerS, w.BatchS, w.Confidence); ov.Overloaded {
		tr.Settled = false
		return tr, ov, EndOverloaded
	}
	switch {
	case tr.Settled:
		return tr, Overload{}, EndSettled
	case n >= w.MaxValues:
		return tr, Overload{}, EndMaxWarmup
	}
	return tr, Overload{}, EndContinue
}

// OpenWindowRule ends an open-loop window: as WindowRule, with both the
// achieved rate's and the corrected latency's intervals within the
// precision, out of reach when either one's is; overloaded when the
// window's series show the target behind (checkOverload), or, when the
// warm-up already found it so (WarmupOverloaded), at the minimum, which
// the step's own numbers then rest on.
type OpenWindowRule struct {
	WindowRule
	OfferedPerS, BatchS float64
	WarmupOverloaded    bool
}

// OpenDecision is an open-loop window rule's answer.
type OpenDecision struct {
	Rate, Latency Interval
	Overload      Overload
	End           End
}

// Decide is the rule's answer after the base batches achieved (calls/s)
// and latency holding calls calls in all.
func (w OpenWindowRule) Decide(achieved, latency []float64, calls int64) OpenDecision {
	n := min(len(achieved), len(latency))
	d := OpenDecision{Rate: BatchMeans(achieved[:n], w.Confidence), Latency: BatchMeans(latency[:n], w.Confidence)}
	precise := func(iv Interval) bool { return iv.OK && iv.Independent && iv.Relative() <= w.Precision }
	switch {
	case n >= w.MaxValues:
		d.End = EndMax
	case n < w.MinValues || calls < w.MinCalls:
	case w.WarmupOverloaded:
		d.End = EndOverloaded
	default:
		if d.Overload = checkOverload(achieved[:n], latency[:n], w.OfferedPerS, w.BatchS, w.Confidence); d.Overload.Overloaded {
			d.End = EndOverloaded
			break
		}
		if precise(d.Rate) && precise(d.Latency) {
			d.End = EndPrecision
			break
		}
		r, _ := OutOfReach(d.Rate, w.MaxValues, w.Precision, w.Confidence)
		l, _ := OutOfReach(d.Latency, w.MaxValues, w.Precision, w.Confidence)
		if r || l {
			d.End = EndOutOfReach
		}
	}
	return d
}

// MeanPerBatch is sums[i]/counts[i] per base batch (the mean latency of
// the calls completed in it); a batch with no calls takes the last one's
// mean, and batches before the first with calls take that one's. Nil
// when no batch has calls.
func MeanPerBatch(sums, counts []float64) []float64 {
	n := min(len(sums), len(counts))
	out := make([]float64, n)
	last, seen := 0.0, false
	for i := range n {
		if counts[i] > 0 {
			last = sums[i] / counts[i]
			if !seen {
				for j := range i {
					out[j] = last
				}
				seen = true
			}
		}
		out[i] = last
	}
	if !seen {
		return nil
	}
	return out
}
