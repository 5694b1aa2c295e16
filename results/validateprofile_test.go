package results

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// testProfileStep is a valid profile step: testStep(8) at a peak of 100
// calls/s over idle:1s,rate:100:1s, with a timeline of 20 intervals.
func testProfileStep() StepResult {
	s := testStep(8)
	s.Mode, s.Rate = ModeProfile, 100
	s.Open = &OpenLoopStats{Arrivals: ArrivalsUniform, MaxInFlight: 8, Offered: 100, Corrected: s.Latency}
	ivs := make([]TimelineInterval, 20)
	for i := 10; i < 20; i++ {
		ivs[i] = TimelineInterval{Offered: 10, Calls: 10, Ops: 10, P50MS: new(1.0), P99MS: new(1.5), Open: 2, Created: int64(i / 19 * 2)}
	}
	s.Profile = &ProfileStats{Spec: "idle:1s,rate:100:1s", PeakRate: 100,
		Phases:   []ProfilePhase{{Kind: "idle", EndS: 1}, {Kind: "rate", StartS: 1, EndS: 2, From: 100, To: 100}},
		Timeline: Timeline{IntervalS: 0.1, Intervals: ivs}, Summary: ProfileSummary{ConnectionsCreated: 2}}
	return s
}

// TestValidateProfileStep: a profile step's record is refused, naming the
// field, when it lacks its profile or timeline, holds more intervals than
// any step records, or has a negative count or a quantile that is not a
// number; and a step of another mode carries no profile.
func TestValidateProfileStep(t *testing.T) {
	h := testHeader()
	if s := testProfileStep(); ValidateStep(&s, &h) != nil {
		t.Fatalf("a valid profile step is refused: %v", ValidateStep(&s, &h))
	}
	nan := math.NaN()
	tests := []struct {
		name  string
		edit  func(s *StepResult)
		field string
		msg   string
	}{
		// Each row breaks one rule and proves it is checked.
		{"profile mode without its profile", func(s *StepResult) { s.Profile = nil }, "step.profile", "missing"},
		{"profile in an open-loop step", func(s *StepResult) { s.Mode = ModeOpen }, "step.profile", "not \"profile\""},
		{"profile in a closed-loop step", func(s *StepResult) { s.Mode, s.Rate, s.Open = "", 0, nil }, "step.profile", "not \"profile\""},
		{"profile step without open-loop numbers", func(s *StepResult) { s.Open = nil }, "step.open_loop", "missing"},
		{"no timeline", func(s *StepResult) { s.Profile.Timeline = Timeline{} }, "step.profile.timeline.intervals", "0 intervals"},
		{"too many intervals", func(s *StepResult) {
			s.Profile.Timeline.Intervals = make([]TimelineInterval, MaxTimelineIntervals+1)
		}, "step.profile.timeline.intervals", "20601 intervals"},
		{"interval of 0 s", func(s *StepResult) { s.Profile.Timeline.IntervalS = 0 }, "step.profile.timeline.interval_s", "not an interval"},
		{"interval NaN", func(s *StepResult) { s.Profile.Timeline.IntervalS = nan }, "step.profile.timeline.interval_s", "not an interval"},
		{"intervals longer than any step", func(s *StepResult) { s.Profile.Timeline.IntervalS = MaxWindowS }, "step.profile.timeline.interval_s", "fit in"},
		{"negative offered", func(s *StepResult) { s.Profile.Timeline.Intervals[3].Offered = -1 }, "step.profile.timeline.intervals[3].offered", "never negative"},
		{"negative calls", func(s *StepResult) { s.Profile.Timeline.Intervals[12].Calls = -1 }, "step.profile.timeline.intervals[12].offered", "never negative"},
		{"dropped above offered", func(s *StepResult) { s.Profile.Timeline.Intervals[12].Dropped = 11 }, "step.profile.timeline.intervals[12].dropped", "above the 10 offered"},
		{"negative open", func(s *StepResult) { s.Profile.Timeline.Intervals[0].Open = -1 }, "step.profile.timeline.intervals[0].open", "never negative"},
		{"negative closed", func(s *StepResult) { s.Profile.Timeline.Intervals[5].Closed = -2 }, "step.profile.timeline.intervals[5].open", "never negative"},
		{"p99 NaN", func(s *StepResult) { s.Profile.Timeline.Intervals[11].P99MS = new(nan) }, "step.profile.timeline.intervals[11].p99_ms", "not a number"},
		{"p50 infinite", func(s *StepResult) { s.Profile.Timeline.Intervals[11].P50MS = new(math.Inf(1)) }, "step.profile.timeline.intervals[11].p99_ms", "not a number"},
		{"p50 without p99", func(s *StepResult) { s.Profile.Timeline.Intervals[11].P99MS = nil }, "step.profile.timeline.intervals[11].p99_ms", "without the other"},
		{"p50 above p99", func(s *StepResult) { s.Profile.Timeline.Intervals[11].P50MS = new(2.0) }, "step.profile.timeline.intervals[11].p50_ms", "above p99_ms"},
		{"checkout wait negative", func(s *StepResult) { s.Profile.Timeline.Intervals[11].CheckoutWaitMaxMS = new(-1.0) }, "step.profile.timeline.intervals[11].checkout_wait_p99_ms", "not a number"},
		{"negative errors", func(s *StepResult) { s.Profile.Timeline.Intervals[11].Errors = &ErrorCounts{Network: -1} }, "step.profile.timeline.intervals[11].errors", "never negative"},
		{"empty spec", func(s *StepResult) { s.Profile.Spec = " " }, "step.profile.spec", "empty"},
		{"peak rate 0", func(s *StepResult) { s.Profile.PeakRate = 0 }, "step.profile.peak_rate", "not a rate"},
		{"peak rate NaN", func(s *StepResult) { s.Profile.PeakRate = nan }, "step.profile.peak_rate", "not a rate"},
		{"unknown phase kind", func(s *StepResult) { s.Profile.Phases[1].Kind = "burst" }, "step.profile.phases[1].kind", ""},
		{"phase ends before it starts", func(s *StepResult) { s.Profile.Phases[1].EndS = 0.5 }, "step.profile.phases[1].end_s", "before its start_s"},
		{"summary negative churn", func(s *StepResult) { s.Profile.Summary.ConnectionsClosed = -1 }, "step.profile.summary.connections_closed", ""},
		{"summary worst p99 NaN", func(s *StepResult) { s.Profile.Summary.WorstP99MS = new(nan) }, "step.profile.summary.worst_p99_ms", "not a number"},
	}
	for _, tt := range tests {
		s := testProfileStep()
		tt.edit(&s)
		err := ValidateStep(&s, &h)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msg) {
			t.Errorf("%s: %v, want %s: …%s…", tt.name, err, tt.field, tt.msg)
		}
	}
}
