package results

import (
	"strings"
	"testing"
)

// TestValidateNotFound: the counts of ops by loaded keys, and the mark's
// new evidence, are checked; a record without them (an older file) is
// valid and reads them as zero.
func TestValidateNotFound(t *testing.T) {
	h := testHeader()
	old := testStep(8)
	rec, err := decodeStep([]byte(line(t, old)))
	if err == nil {
		err = ValidateStep(&rec, &h)
	}
	if err != nil || rec.NotFound != 0 || rec.LoadedKeyOps != 0 {
		t.Fatalf("a step without the counts: %v, %d of %d", err, rec.NotFound, rec.LoadedKeyOps)
	}
	if strings.Contains(line(t, old), "not_found") {
		t.Errorf("zero counts are written: %s", line(t, old))
	}
	tests := []struct {
		name  string
		edit  func(s *StepResult)
		field string
	}{
		{"more not found than looked up", func(s *StepResult) { s.LoadedKeyOps, s.NotFound = 10, 11 }, "step.not_found"},
		{"negative lookups", func(s *StepResult) { s.LoadedKeyOps = -1 }, "step.loaded_key_ops"},
		{"more lookups than ops", func(s *StepResult) { s.LoadedKeyOps = 101 }, "step.loaded_key_ops"},
		{"unknown cause", func(s *StepResult) { s.TargetFailed = &TargetFailed{Failed: true, Cause: "gremlins"} }, "step.target_failed.cause"},
		{"negative stuck calls", func(s *StepResult) { s.TargetFailed = &TargetFailed{Failed: true, Cause: CauseFrozen, StuckCalls: -1} }, "step.target_failed.stuck_calls"},
		{"mark's not found above its lookups", func(s *StepResult) {
			s.TargetFailed = &TargetFailed{Failed: true, Cause: CauseDataLost, NotFound: 5, LoadedKeyOps: 4}
		}, "step.target_failed.not_found"},
	}
	for _, tt := range tests {
		s := testStep(8)
		tt.edit(&s)
		var fe *FieldError
		err := ValidateStep(&s, &h)
		if err == nil || !asFieldError(err, &fe) || fe.Field != tt.field {
			t.Errorf("%s: %v, want a refusal naming %s", tt.name, err, tt.field)
		}
	}
	ok := testStep(8)
	ok.LoadedKeyOps, ok.NotFound = 100, 100
	ok.TargetFailed = &TargetFailed{Failed: true, Cause: CauseDataLost, NotFound: 100, LoadedKeyOps: 100, Reason: "x"}
	if err := ValidateStep(&ok, &h); err != nil {
		t.Errorf("a data-lost step is refused: %v", err)
	}
}
