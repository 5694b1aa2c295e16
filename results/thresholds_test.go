package results

import (
	"errors"
	"testing"
)

// TestValidateThresholds: an end record's threshold outcomes are refused,
// naming the field, when they could not come from an evaluation: a
// check without a value that passed, an outcome that disagrees with its
// checks, a negative value, an unknown unit.
func TestValidateThresholds(t *testing.T) {
	v := 12.5
	good := func() EndRecord {
		return EndRecord{Kind: KindEnd, Status: StatusComplete, Steps: 1, Thresholds: []ThresholdOutcome{
			{Threshold: "p99<20ms@8", Pass: true, Unit: "ms", Checks: []ThresholdCheck{{Series: "sim read pool=match", Concurrency: 8, Trials: 3, Value: &v, Pass: true}}},
			{Threshold: "knee>=8", Pass: false, Unit: "workers", Checks: []ThresholdCheck{{Series: "sim read pool=match", Note: "no knee found"}}},
		}}
	}
	if e := good(); ValidateEnd(&e) != nil {
		t.Fatalf("a good end record refused: %v", ValidateEnd(&e))
	}
	neg := -1.0
	for _, tt := range []struct {
		name  string
		edit  func(e *EndRecord)
		field string
	}{
		{"passes with a failed check", func(e *EndRecord) { e.Thresholds[1].Pass = true }, "end.thresholds[1].pass"},
		{"fails with every check passed", func(e *EndRecord) { e.Thresholds[0].Pass = false }, "end.thresholds[0].pass"},
		{"passes with no checks", func(e *EndRecord) { e.Thresholds[0].Checks = nil }, "end.thresholds[0].pass"},
		{"a check passed without a value", func(e *EndRecord) { e.Thresholds[1].Checks[0].Pass = true }, "end.thresholds[1].checks[0].pass"},
		{"a negative value", func(e *EndRecord) { e.Thresholds[0].Checks[0].Value = &neg }, "end.thresholds[0].checks[0].value"},
		{"an unknown unit", func(e *EndRecord) { e.Thresholds[0].Unit = "furlongs" }, "end.thresholds[0].unit"},
		{"no threshold", func(e *EndRecord) { e.Thresholds[0].Threshold = " " }, "end.thresholds[0].threshold"},
		{"concurrency past the plan's", func(e *EndRecord) { e.Thresholds[0].Checks[0].Concurrency = MaxConcurrency + 1 }, "end.thresholds[0].checks[0].concurrency"},
	} {
		e := good()
		tt.edit(&e)
		var fe *FieldError
		if err := ValidateEnd(&e); !errors.As(err, &fe) || fe.Field != tt.field {
			t.Errorf("%s: %v, want a problem with %s", tt.name, err, tt.field)
		}
	}
}
