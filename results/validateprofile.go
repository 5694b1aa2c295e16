package results

import (
	"fmt"
	"math"
	"strings"
)

// MaxTimelineIntervals bounds a timeline's intervals on read: a profile is
// cut into at most 20,000 intervals (longer ones get wider intervals),
// and its calls drain for at most 600 more.
const MaxTimelineIntervals = 20_600

// profilePhaseKinds are the kinds of a profile's phases.
var profilePhaseKinds = []string{"idle", "rate", "ramp", "sine", "trace"}

// checkProfile: a profile step has its profile with a timeline, and only
// a profile step has one; the profile's numbers, every interval's counts
// and quantiles, and the summary's figures are in range.
func checkProfile(c *check, s *StepResult) {
	ps := s.Profile
	if s.Mode != ModeProfile {
		if ps != nil {
			c.fail("step.profile", "present in a step whose mode is not %q", ModeProfile)
		}
		return
	}
	if ps == nil {
		c.fail("step.profile", "missing from a profile step")
		return
	}
	if strings.TrimSpace(ps.Spec) == "" {
		c.fail("step.profile.spec", "empty")
	}
	if v := ps.PeakRate; math.IsNaN(v) || v <= 0 || v > MaxRate {
		c.fail("step.profile.peak_rate", "%v is not a rate above 0 and at most %d", v, MaxRate)
	}
	for i, ph := range ps.Phases {
		f := fmt.Sprintf("step.profile.phases[%d]", i)
		c.oneOf(f+".kind", ph.Kind, profilePhaseKinds)
		c.nonNeg(f+".start_s", ph.StartS)
		c.nonNeg(f+".end_s", ph.EndS)
		c.nonNeg(f+".from_per_s", ph.From)
		c.nonNeg(f+".to_per_s", ph.To)
		if c.err == nil && ph.EndS < ph.StartS {
			c.fail(f+".end_s", "%v is before its start_s %v", ph.EndS, ph.StartS)
		}
	}
	checkTimeline(c, ps.Timeline)
	checkProfileSummary(c, &ps.Summary)
	checkStepEvents(c, ps.Events)
}

// checkTimeline: at least one interval and at most MaxTimelineIntervals,
// of a length within a step's; every count ≥ 0, the dropped among the
// offered, and the quantiles numbers ≥ 0 with p50 ≤ p99. It stops at the
// first interval that breaks one, naming it.
func checkTimeline(c *check, tl Timeline) {
	n := len(tl.Intervals)
	if n < 1 || n > MaxTimelineIntervals {
		c.fail("step.profile.timeline.intervals", "%d intervals; a timeline has 1 to %d", n, MaxTimelineIntervals)
		return
	}
	if v := tl.IntervalS; math.IsNaN(v) || v <= 0 || v*float64(n) > MaxWindowS {
		c.fail("step.profile.timeline.interval_s", "%v is not an interval above 0 whose %d intervals fit in %d s", v, n, MaxWindowS)
		return
	}
	bad := func(v *float64) bool { return v != nil && (math.IsNaN(*v) || math.IsInf(*v, 0) || *v < 0) }
	for i := range tl.Intervals {
		iv := &tl.Intervals[i]
		field, why := "", ""
		switch {
		case iv.Offered < 0 || iv.Calls < 0 || iv.Ops < 0 || iv.Dropped < 0:
			field, why = "offered", fmt.Sprintf("offered %d, calls %d, ops %d, dropped %d: counts are never negative", iv.Offered, iv.Calls, iv.Ops, iv.Dropped)
		case iv.Dropped > iv.Offered:
			field, why = "dropped", fmt.Sprintf("%d, above the %d offered", iv.Dropped, iv.Offered)
		case iv.Open < 0 || iv.InUse < 0 || iv.Created < 0 || iv.Closed < 0 || iv.Clears < 0:
			field, why = "open", fmt.Sprintf("open %d, in use %d, created %d, closed %d, clears %d: counts are never negative", iv.Open, iv.InUse, iv.Created, iv.Closed, iv.Clears)
		case bad(iv.P50MS) || bad(iv.P99MS):
			field, why = "p99_ms", "a latency that is not a number ≥ 0"
		case (iv.P50MS == nil) != (iv.P99MS == nil):
			field, why = "p99_ms", "one of p50_ms and p99_ms without the other"
		case iv.P50MS != nil && *iv.P50MS > *iv.P99MS:
			field, why = "p50_ms", fmt.Sprintf("%v, above p99_ms %v", *iv.P50MS, *iv.P99MS)
		case bad(iv.CheckoutWaitP99MS) || bad(iv.CheckoutWaitMaxMS):
			field, why = "checkout_wait_p99_ms", "a wait that is not a number ≥ 0"
		case iv.Errors != nil && (iv.Errors.Timeout < 0 || iv.Errors.Network < 0 || iv.Errors.Server < 0 || iv.Errors.NotWritablePrimary < 0 || iv.Errors.PoolCleared < 0):
			field, why = "errors", "counts are never negative"
		case iv.Errors != nil && iv.Errors.NotWritablePrimary+iv.Errors.PoolCleared > iv.Errors.Total():
			field, why = "errors", "not_writable_primary and pool_cleared are among the errors, never more"
		case iv.RetriedOK < 0:
			field, why = "retried_ok", fmt.Sprintf("%d: counts are never negative", iv.RetriedOK)
		case timelineHostsBad(iv) != "":
			field, why = "hosts", timelineHostsBad(iv)
		}
		if field != "" {
			c.fail(fmt.Sprintf("step.profile.timeline.intervals[%d].%s", i, field), "%s", why)
			return
		}
	}
}

// checkProfileSummary: the summary's counts ≥ 0 and its figures numbers
// ≥ 0 where present.
func checkProfileSummary(c *check, s *ProfileSummary) {
	const f = "step.profile.summary."
	c.count(f+"connections_created", s.ConnectionsCreated)
	c.count(f+"connections_closed", s.ConnectionsClosed)
	c.count(f+"pool_clears", s.PoolClears)
	c.optNonNeg(f+"time_to_fill_s", s.TimeToFillS)
	c.optNonNeg(f+"worst_p99_ms", s.WorstP99MS)
	c.optNonNeg(f+"first_second_p99_ms", s.FirstSecondP99MS)
	c.optNonNeg(f+"time_to_steady_s", s.TimeToSteadyS)
	for _, iv := range []struct {
		name string
		v    *Interval
	}{{"steady_per_s", s.SteadyPerS}, {"steady_p99_ms", s.SteadyP99MS}} {
		if iv.v != nil {
			c.nonNeg(f+iv.name+".value", iv.v.Value)
			c.nonNeg(f+iv.name+".low", iv.v.Low)
			c.nonNeg(f+iv.name+".high", iv.v.High)
		}
	}
	for i, h := range s.Held {
		c.nonNeg(fmt.Sprintf(f+"held_after_load[%d].after_s", i), h.AfterS)
		c.count(fmt.Sprintf(f+"held_after_load[%d].connections", i), int64(h.Connections))
	}
	for i, b := range s.Bursts {
		g := fmt.Sprintf(f+"bursts[%d].", i)
		c.nonNeg(g+"start_s", b.StartS)
		c.count(g+"open_at_start", int64(b.OpenAtStart))
		c.count(g+"connections_created", b.Created)
		c.optNonNeg(g+"time_to_fill_s", b.TimeToFillS)
		c.optNonNeg(g+"worst_p99_ms", b.WorstP99MS)
		c.optNonNeg(g+"first_second_p99_ms", b.FirstSecondP99MS)
		c.optNonNeg(g+"time_to_steady_s", b.TimeToSteadyS)
	}
}
