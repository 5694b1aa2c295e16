package results

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// testEventStep is a valid profile step with a slowdown and a step-down.
func testEventStep() StepResult {
	s := testProfileStep()
	s.Profile.Events = []StepEvent{
		{EventSpec: EventSpec{Spec: "1.2s=slow=10:0.3s", AtS: 1.2, Action: EventSlow, Factor: 10, DurationS: 0.3}, FiredS: 1.2, EndS: new(1.5), Via: EventViaSimulator, Host: "h:1"},
		{EventSpec: EventSpec{Spec: "1.6s=stepdown", AtS: 1.6, Action: EventStepDown}, FiredS: 1.6, Via: EventViaStepDown,
			Summary: &EventSummary{Errors: ErrorCounts{Server: 3, NotWritablePrimary: 3}, PeakConnections: []HostPeak{{Host: "h:1", Peak: 4}},
				TimeToRefillS: new(0.4), RefillTarget: 4, RefillHosts: []HostRefill{{Host: "h:1", TimeToRefillS: new(0.4)}, {Host: "h:2"}}},
			Storms: []ReconnectStorm{{Host: "h:2", StartS: 1.7, LastCreatedS: 1.8, Created: 4, RefillS: new(0.2), SetupPerS: new(20.0), PeakCreatedPerS: 30, Clients: 2}}},
	}
	s.Profile.Timeline.Intervals[16].Errors = &ErrorCounts{Server: 2, NotWritablePrimary: 2}
	s.Profile.Timeline.Intervals[16].RetriedOK = 1
	s.Profile.Timeline.Intervals[16].Hosts = []HostInterval{{Host: "h:1", Open: 2, Created: 1}}
	return s
}

// TestValidateEvents: a step's events and the timeline's event counts
// are refused, naming the field, when they break a rule; the header's
// events too.
func TestValidateEvents(t *testing.T) {
	h := testHeader()
	if s := testEventStep(); ValidateStep(&s, &h) != nil {
		t.Fatalf("a valid step with events is refused: %v", ValidateStep(&s, &h))
	}
	tests := []struct {
		name  string
		edit  func(s *StepResult)
		field string
		msg   string
	}{
		{"unknown action", func(s *StepResult) { s.Profile.Events[0].Action = "explode" }, "step.profile.events[0].action", "not one of"},
		{"slow without factor", func(s *StepResult) { s.Profile.Events[0].Factor = 0 }, "step.profile.events[0].factor", "above 1"},
		{"freeze without length", func(s *StepResult) {
			s.Profile.Events[0].Action, s.Profile.Events[0].Factor, s.Profile.Events[0].DurationS = EventFreeze, 0, 0
		}, "step.profile.events[0].duration_s", "missing"},
		{"stepdown with a length", func(s *StepResult) { s.Profile.Events[1].DurationS = 2 }, "step.profile.events[1].duration_s", "present"},
		{"end before fired", func(s *StepResult) { s.Profile.Events[0].EndS = new(1.0) }, "step.profile.events[0].end_s", "before fired_s"},
		{"fired NaN", func(s *StepResult) { s.Profile.Events[0].FiredS = math.NaN() }, "step.profile.events[0].fired_s", "not a finite"},
		{"unknown via", func(s *StepResult) { s.Profile.Events[1].Via = "magic" }, "step.profile.events[1].via", "not one of"},
		{"empty spec", func(s *StepResult) { s.Profile.Events[1].Spec = "" }, "step.profile.events[1].spec", "empty"},
		{"too many", func(s *StepResult) { s.Profile.Events = make([]StepEvent, MaxEvents+1) }, "step.profile.events", "17 events"},
		{"summary negative peak", func(s *StepResult) { s.Profile.Events[1].Summary.PeakConnections[0].Peak = -1 }, "step.profile.events[1].summary.peak_connections[0].peak", "negative"},
		{"summary negative refill", func(s *StepResult) { s.Profile.Events[1].Summary.TimeToRefillS = new(-1.0) }, "step.profile.events[1].summary.time_to_refill_s", "not a number ≥ 0"},
		{"summary negative refill target", func(s *StepResult) { s.Profile.Events[1].Summary.RefillTarget = -1 }, "step.profile.events[1].summary.refill_target", "negative"},
		{"summary host refill NaN", func(s *StepResult) { s.Profile.Events[1].Summary.RefillHosts[0].TimeToRefillS = new(math.NaN()) }, "step.profile.events[1].summary.refill_hosts[0].time_to_refill_s", ""},
		{"summary host refill without host", func(s *StepResult) { s.Profile.Events[1].Summary.RefillHosts[1].Host = "" }, "step.profile.events[1].summary.refill_hosts[1].host", "empty"},
		{"summary too many host refills", func(s *StepResult) {
			s.Profile.Events[1].Summary.RefillHosts = make([]HostRefill, MaxHostIntervals+1)
		}, "step.profile.events[1].summary.refill_hosts", "17 hosts"},
		{"summary sub-kinds above total", func(s *StepResult) { s.Profile.Events[1].Summary.Errors.PoolCleared = 1 }, "step.profile.events[1].summary.errors.not_writable_primary", "more than"},
		{"interval sub-kinds above total", func(s *StepResult) { s.Profile.Timeline.Intervals[16].Errors.PoolCleared = 1 }, "step.profile.timeline.intervals[16].errors", "never more"},
		{"interval negative retried", func(s *StepResult) { s.Profile.Timeline.Intervals[16].RetriedOK = -1 }, "step.profile.timeline.intervals[16].retried_ok", "never negative"},
		{"interval host negative", func(s *StepResult) { s.Profile.Timeline.Intervals[16].Hosts[0].Open = -1 }, "step.profile.timeline.intervals[16].hosts", "never negative"},
		{"storm without host", func(s *StepResult) { s.Profile.Events[1].Storms[0].Host = "" }, "step.profile.events[1].reconnect_storms[0].host", "empty"},
		{"storm ends before it starts", func(s *StepResult) { s.Profile.Events[1].Storms[0].LastCreatedS = 1.6 }, "step.profile.events[1].reconnect_storms[0].last_created_s", "before start_s"},
		{"storm more not ready than created", func(s *StepResult) { s.Profile.Events[1].Storms[0].NotReady = 5 }, "step.profile.events[1].reconnect_storms[0].not_ready", "more than"},
		{"storm negative refill", func(s *StepResult) { s.Profile.Events[1].Storms[0].RefillS = new(-1.0) }, "step.profile.events[1].reconnect_storms[0].refill_s", "not a number ≥ 0"},
		{"interval too many hosts", func(s *StepResult) {
			s.Profile.Timeline.Intervals[16].Hosts = make([]HostInterval, MaxHostIntervals+1)
		}, "step.profile.timeline.intervals[16].hosts", "17 hosts"},
	}
	for _, tt := range tests {
		s := testEventStep()
		tt.edit(&s)
		err := ValidateStep(&s, &h)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(fe.Msg, tt.msg) {
			t.Errorf("%s: %v, want %s: …%s…", tt.name, err, tt.field, tt.msg)
		}
	}

	hp := testHeader()
	hp.Plan.Profile = "rate:100:10s"
	hp.Plan.Events = []EventSpec{{Spec: "5s=reset", AtS: 5, Action: EventReset}, {Spec: "2s=stepdown", AtS: 2, Action: EventStepDown}}
	if err := ValidateHeader(&hp); err == nil || !strings.Contains(err.Error(), "run.plan.events[1].at_s") {
		t.Errorf("events out of order: %v", err)
	}
	hp.Plan.Events = hp.Plan.Events[:1]
	if err := ValidateHeader(&hp); err != nil {
		t.Errorf("a valid header with an event: %v", err)
	}
	hp.Plan.Profile = ""
	if err := ValidateHeader(&hp); err == nil || !strings.Contains(err.Error(), "run.plan.events") {
		t.Errorf("events without a profile: %v", err)
	}
}

// A step that fired a step-down measured the election it caused: the
// change of primary does not make it unmeasured. One that did not, or
// whose step-down failed, did not.
func TestSteppedDownMeasured(t *testing.T) {
	s := testEventStep()
	s.PrimaryChange = &PrimaryChange{Before: "a:1", After: "b:1", Changes: 1}
	if !s.SteppedDown() || !s.Measured() {
		t.Errorf("a step that stepped the primary down: stepped down %v, measured %v", s.SteppedDown(), s.Measured())
	}
	s.Profile.Events[1].Error = "not authorized"
	if s.SteppedDown() || s.Measured() {
		t.Errorf("a step whose step-down failed: stepped down %v, measured %v", s.SteppedDown(), s.Measured())
	}
	s.Profile.Events = s.Profile.Events[:1]
	if s.Measured() {
		t.Errorf("a slowdown's step with an election: measured")
	}
}
