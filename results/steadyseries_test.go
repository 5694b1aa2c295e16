package results

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestSetSeriesBounded: a series longer than MaxSeriesLen is averaged in
// groups (the same for both phases), rounded to 4 significant digits, and
// the record passes the validator; one value too many, a negative rate,
// a batch length that is not whole base batches, or rates of a fixed
// warm-up are refused, each naming its field.
func TestSetSeriesBounded(t *testing.T) {
	h := testHeader()
	warm := make([]float64, 30)
	for i := range warm {
		warm[i] = 1000.0 / 3 // rounds to 333.3
	}
	win := make([]float64, 3*MaxSeriesLen+1) // 300 s of 0.1-s batches
	for i := range win {
		win[i] = float64(i % 4) // groups of 4: mean 1.5
	}
	st := testSteady(func(*StepSteady) {})
	st.SetSeries(warm, win, 3.00049)
	if st.SeriesBatchS != 0.4 || len(st.WindowRates) != (len(win)+3)/4 || len(st.WarmupRates) != 8 {
		t.Fatalf("series batch %v s, %d window and %d warm-up values; want 0.4 s, %d and 8", st.SeriesBatchS, len(st.WindowRates), len(st.WarmupRates), (len(win)+3)/4)
	}
	if st.WarmupRates[0] != 333.3 || st.WindowRates[0] != 1.5 || *st.WindowStartS != 3 {
		t.Errorf("rounding: warm-up %v, window %v, start %v; want 333.3, 1.5, 3", st.WarmupRates[0], st.WindowRates[0], *st.WindowStartS)
	}
	if b, _ := json.Marshal(st.WarmupRates[:1]); string(b) != "[333.3]" {
		t.Errorf("JSON %s, want [333.3]", b)
	}
	s := testStep(8)
	s.Steady = st
	if err := ValidateStep(&s, &h); err != nil {
		t.Fatalf("a compacted series: %v", err)
	}
	for _, c := range []struct {
		name, field string
		edit        func(*StepSteady)
	}{
		{"too long", "step.steady.window_rates", func(st *StepSteady) { st.WindowRates = make([]float64, MaxSeriesLen+1) }},
		{"negative", "step.steady.warmup_rates", func(st *StepSteady) { st.WarmupRates[2] = -1 }},
		{"part batches", "step.steady.series_batch_s", func(st *StepSteady) { st.SeriesBatchS = 0.25 }},
		{"fixed warm-up with rates", "step.steady.warmup_rates", func(st *StepSteady) {
			st.WarmupMode, st.WarmupEnd, st.Settled, st.TruncationS = WindowFixed, "fixed-warmup", nil, nil
		}},
		{"negative start", "step.steady.window_start_s", func(st *StepSteady) { st.WindowStartS = new(-1.0) }},
	} {
		st := testSteady(func(*StepSteady) {})
		st.SetSeries(warm, win[:100], 3)
		c.edit(st)
		s := testStep(8)
		s.Steady = st
		err := ValidateStep(&s, &h)
		if err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v, want an error naming %s", c.name, err, c.field)
		}
	}
}
