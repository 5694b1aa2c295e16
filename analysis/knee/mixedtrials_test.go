package knee

import (
	"strings"
	"testing"
)

// TestMixedTrialsWithBatchIntervals: levels measured once, beside levels
// given more trials (a grid whose --trials is a maximum), are
// judged by every trial's own batch-means interval: the knee gets a
// confidence from resampling, not "unconfirmed", and the statement says
// the trial counts; a level of several trials gets the interval of its
// resampled medians. Without intervals the mix stays unconfirmed, and a
// grid of equal trial counts keeps its own rules.
func TestMixedTrialsWithBatchIntervals(t *testing.T) {
	mixed := func(hwPct float64, has bool) Series {
		one := uslSeries(1000, 0.02, 0.0005, geomGrid(256, false), 1, 0, 1)
		three := uslSeries(1000, 0.02, 0.0005, []int{16, 32}, 3, 0.01, 2)
		var s Series = one
		s.Points = nil
		for _, p := range one.Points {
			if p.Concurrency != 16 && p.Concurrency != 32 {
				s.Points = append(s.Points, p)
			}
		}
		s.Points = append(s.Points, three.Points...)
		for i := range s.Points {
			s.Points[i].HalfWidthPct, s.Points[i].HasInterval = hwPct, has
		}
		return s
	}
	r := Analyze(mixed(1, true), DefaultOptions())
	if !r.Knee.Found || r.Knee.Stability == nil || r.Knee.Confidence == "unconfirmed" || !strings.Contains(r.Knee.Statement, "1 to 3 trials per level") {
		t.Fatalf("1%% intervals, 1 and 3 trials: %+v", r.Knee)
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "one trial per level") {
			t.Errorf("warning %q on levels of up to 3 trials", w)
		}
	}
	for _, l := range r.Levels {
		if l.Trials == 3 && !(l.QPSLow < l.QPS && l.QPS < l.QPSHigh) {
			t.Errorf("level %d of 3 trials: interval %v–%v around %v", l.Concurrency, l.QPSLow, l.QPSHigh, l.QPS)
		}
	}
	wide := Analyze(mixed(40, true), DefaultOptions())
	if wide.Knee.Stability == nil || *wide.Knee.Stability > *r.Knee.Stability {
		t.Errorf("40%% intervals: stability %v, 1%%: %v", wide.Knee.Stability, *r.Knee.Stability)
	}
	if none := Analyze(mixed(0, false), DefaultOptions()); none.Knee.Confidence != "unconfirmed" {
		t.Errorf("no intervals: %s, want unconfirmed", none.Knee.Confidence)
	}
	// Two trials everywhere: the rule for two trials, intervals or not.
	two := uslSeries(1000, 0.02, 0.0005, geomGrid(256, false), 2, 0.01, 3)
	for i := range two.Points {
		two.Points[i].HalfWidthPct, two.Points[i].HasInterval = 1, true
	}
	if r := Analyze(two, DefaultOptions()); r.Knee.Confidence != "low" || r.Knee.Stability != nil {
		t.Errorf("2 trials everywhere: %s (%v), want low without resampling", r.Knee.Confidence, r.Knee.Stability)
	}
}
