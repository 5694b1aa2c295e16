package knee

import "testing"

// TestConfidenceFromDecidingLevels: a knee's confidence counts the trials
// of the levels that decide it (the knee, the levels either side, the
// peak), not of a level far from it. That is what lets an
// adaptive search measure coarse probes once and still reach a confident
// knee; a grid with equal trials everywhere is judged as before.
func TestConfidenceFromDecidingLevels(t *testing.T) {
	tight := func(v float64) []float64 { return []float64{v * 0.99, v, v * 1.01} }
	tests := []struct {
		name string
		vals map[int][]float64
		want string // confidence
	}{
		// Every level repeated: the bootstrap decides, and the knee is clear.
		{"all repeated", map[int][]float64{1: tight(500), 2: tight(1000), 4: tight(2000), 6: tight(2900), 8: tight(3900), 11: tight(4000), 16: tight(4000), 128: tight(4000)}, "high"},
		// The far levels (1, 2, 4, 16, 128) measured once: 6, 8 and 11
		// have three trials each, and the peak (at 11) is one of them.
		{"far levels once", map[int][]float64{1: {500}, 2: {1000}, 4: {2000}, 6: tight(2900), 8: tight(3900), 11: tight(4000), 16: {3990}, 128: {3980}}, "high"},
		// The level just below the knee measured once: unconfirmed.
		{"window level once", map[int][]float64{1: {500}, 2: {1000}, 4: {2000}, 6: {2900}, 8: tight(3900), 11: tight(4000), 16: {3990}, 128: {3980}}, "unconfirmed"},
		// The peak measured once, far above the knee: the plateau is
		// measured against it, so it counts.
		{"peak once", map[int][]float64{1: {500}, 2: {1000}, 4: {2000}, 6: tight(2900), 8: tight(3900), 11: tight(4000), 16: tight(4000), 128: {4100}}, "unconfirmed"},
	}
	for _, tt := range tests {
		r := Analyze(noisyLevels(tt.vals), DefaultOptions())
		if !r.Knee.Found || r.Knee.Concurrency != 8 || r.Knee.Confidence != tt.want {
			t.Errorf("%s: knee %+v, want 8 with %s confidence", tt.name, r.Knee, tt.want)
		}
	}
}
