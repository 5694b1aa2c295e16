package knee

import (
	"strings"
	"testing"
)

// TestOneTrialWithBatchIntervals: one trial per level with batch-means
// intervals gives each level an interval and the knee a confidence; the
// confidence falls as the intervals widen; without intervals it stays
// unconfirmed; an unsettled warm-up at the knee caps it at low.
func TestOneTrialWithBatchIntervals(t *testing.T) {
	series := func(hwPct float64, has bool, unsettledAt int) Series {
		s := uslSeries(1000, 0.02, 0.0005, geomGrid(256, false), 1, 0, 1)
		for i := range s.Points {
			s.Points[i].HalfWidthPct, s.Points[i].HasInterval = hwPct, has
			s.Points[i].Unsettled = s.Points[i].Concurrency == unsettledAt
		}
		return s
	}
	tight := Analyze(series(1, true, 0), DefaultOptions())
	if !tight.Knee.Found || tight.Knee.Confidence != "high" || tight.Knee.Stability == nil || !strings.Contains(tight.Knee.Statement, "batch-means interval") {
		t.Fatalf("1%% intervals: %+v", tight.Knee)
	}
	for _, l := range tight.Levels {
		if !(l.QPSLow < l.QPS && l.QPS < l.QPSHigh) || !within(l.QPSHigh-l.QPS, 0.01*l.QPS, 1e-9) {
			t.Errorf("level %d: interval %v–%v around %v, want ±1%%", l.Concurrency, l.QPSLow, l.QPSHigh, l.QPS)
		}
	}
	wide := Analyze(series(40, true, 0), DefaultOptions())
	if wide.Knee.Stability == nil || *wide.Knee.Stability >= *tight.Knee.Stability || wide.Knee.Confidence == "high" {
		t.Errorf("40%% intervals: stability %v (tight %v), confidence %s", wide.Knee.Stability, *tight.Knee.Stability, wide.Knee.Confidence)
	}
	// A level far from the knee without an interval of its own is
	// resampled with the widest of the others; one at the knee has none.
	far := series(1, true, 0)
	far.Points[0].HasInterval = false
	if r := Analyze(far, DefaultOptions()); r.Knee.Confidence == "unconfirmed" || r.Knee.Stability == nil {
		t.Errorf("first level without an interval: %s", r.Knee.Statement)
	}
	atKnee := series(1, true, 0)
	for i := range atKnee.Points {
		if atKnee.Points[i].Concurrency == tight.Knee.Concurrency {
			atKnee.Points[i].HasInterval = false
		}
	}
	if r := Analyze(atKnee, DefaultOptions()); r.Knee.Confidence != "unconfirmed" {
		t.Errorf("knee level without an interval: %s, want unconfirmed", r.Knee.Confidence)
	}
	none := Analyze(series(0, false, 0), DefaultOptions())
	if none.Knee.Confidence != "unconfirmed" {
		t.Errorf("no intervals: %s, want unconfirmed", none.Knee.Confidence)
	}
	capped := Analyze(series(1, true, tight.Knee.Concurrency), DefaultOptions())
	if capped.Knee.Confidence != "low" || !strings.Contains(capped.Knee.Statement, "never settled") {
		t.Errorf("unsettled at the knee: %s: %s", capped.Knee.Confidence, capped.Knee.Statement)
	}
}
