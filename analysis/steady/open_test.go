package steady

import (
	"slices"
	"testing"
)

// openSeries is an open-loop step's two series over n base batches of
// 0.1 s: the achieved rate (calls/s) and the corrected latency (ms).
func openSeries(n int, seed uint64, rate func(i int) float64, rateSD float64, lat func(i int) float64, latSD float64) (achieved, latency []float64) {
	return series(n, rateSD, seed, rate), series(n, latSD, seed+100, lat)
}

func flat(v float64) func(int) float64 { return func(int) float64 { return v } }

func TestCheckOverload(t *testing.T) {
	const offered = 1000.0
	tests := []struct {
		name     string
		achieved func(int) float64
		latency  func(int) float64
		want     bool
	}{
		// Keeping up: achieved ≈ offered, latency flat.
		{"keeping up", flat(1000), flat(5), false},
		// A growing queue: 80 % achieved, latency rising 20 ms a batch.
		{"behind, queue growing", flat(800), func(i int) float64 { return 5 + 20*float64(i) }, true},
		// Arrivals dropped at max-in-flight: 80 % achieved, but the queue
		// is bounded and latency flat: a settled (overloaded) state, not one
		// that never settles.
		{"dropping, latency flat", flat(800), flat(500), false},
		// Latency rising while everything offered is carried (a server
		// slowing down, not behind): not an overload by this rule.
		{"carried, latency rising", flat(1000), func(i int) float64 { return 5 + 0.5*float64(i) }, false},
		// 97 % achieved: within the 5 % shortfall.
		{"3 % short", flat(970), func(i int) float64 { return 5 + 20*float64(i) }, false},
	}
	for _, tt := range tests {
		a, l := openSeries(40, 41, tt.achieved, 20, tt.latency, 1)
		got := checkOverload(a, l, offered, 0.1, 0.95)
		if got.Overloaded != tt.want {
			t.Errorf("%s: overloaded %v (%+v), want %v", tt.name, got.Overloaded, got, tt.want)
		}
	}
	// The slope is in ms per second: 20 ms a 0.1-s batch is 200 ms/s.
	a, l := openSeries(40, 42, flat(800), 20, func(i int) float64 { return 5 + 20*float64(i) }, 1)
	if got := checkOverload(a, l, offered, 0.1, 0.95); got.LatencySlope < 190 || got.LatencySlope > 210 {
		t.Errorf("slope %.1f ms/s, want 200", got.LatencySlope)
	}
}

func TestOpenWarmupRule(t *testing.T) {
	w := OpenWarmupRule{WarmupRule: WarmupRule{MinValues: 30, MaxValues: 600}, OfferedPerS: 1000, BatchS: 0.1, Confidence: 0.95}
	ends := func(a, l []float64) (int, Truncation, End) {
		for n := 1; n <= len(a); n++ {
			if tr, _, e := w.Decide(a[:n], l[:n]); e != EndContinue {
				return n, tr, e
			}
		}
		return -1, Truncation{}, EndContinue
	}
	// The rate is steady from the start, the latency falls from 50 ms to
	// 5 over the first 40 batches (connections warming): the warm-up ends
	// after the latency's transient, at the later of the two points.
	a, l := openSeries(600, 51, flat(1000), 10, func(i int) float64 { return 5 + 45*max(0, 1-float64(i)/40) }, 0.5)
	if n, tr, e := ends(a, l); e != EndSettled || n < 40 || tr.Point < 25 || tr.Point > 50 {
		t.Errorf("latency transient: ended at %d by %q, point %d", n, e, tr.Point)
	}
	// Behind from the start (80 % carried, the queue growing): it ends
	// overloaded soon after the minimum, not at the maximum.
	a, l = openSeries(600, 52, flat(800), 20, func(i int) float64 { return 5 + 20*float64(i) }, 1)
	if n, tr, e := ends(a, l); e != EndOverloaded || n > 60 || tr.Settled {
		t.Errorf("behind: ended at %d by %q, settled %v", n, e, tr.Settled)
	}
	// A start-up transient in the first half only (a slow first second)
	// is not taken for a queue.
	slowStart := func(slow, steady float64) func(int) float64 {
		return func(i int) float64 {
			if i < 10 {
				return slow
			}
			return steady
		}
	}
	a, l = openSeries(600, 53, slowStart(700, 1000), 10, slowStart(100, 5), 0.5)
	if _, _, e := ends(a, l); e == EndOverloaded {
		t.Errorf("a first-second transient ended the warm-up as overloaded")
	}
}

func TestOpenWindowRule(t *testing.T) {
	base := WindowRule{Precision: 0.02, Confidence: 0.95, MinValues: 20, MaxValues: 600, MinCalls: 1000}
	w := OpenWindowRule{WindowRule: base, OfferedPerS: 1000, BatchS: 0.1}
	first := func(w OpenWindowRule, a, l []float64) (int, OpenDecision) {
		for n := 1; n <= len(a); n++ {
			if d := w.Decide(a[:n], l[:n], int64(n)*100); d.End != EndContinue {
				return n, d
			}
		}
		return -1, OpenDecision{}
	}
	tests := []struct {
		name    string
		w       OpenWindowRule
		a, l    []float64
		want    End
		atMost  int
		atLeast int
	}{
		// Both quiet (1 % per batch): precise at the minimum.
		{"both quiet", w, whiteNoise(600, 1, 61), series(600, 0.05, 62, flat(5)), EndPrecision, 20, 20},
		// The rate quiet, the latency at 100 % per batch: out of reach.
		{"latency loud", w, whiteNoise(600, 1, 63), series(600, 5, 64, flat(5)), EndOutOfReach, 40, 20},
		// The rate quiet, the latency at 20 %: reachable, ends by precision later.
		{"latency reachable", w, whiteNoise(600, 1, 65), series(600, 1, 66, flat(5)), EndPrecision, 600, 50},
		// Behind in the window: overloaded.
		{"behind", w, series(600, 20, 67, flat(800)), series(600, 1, 68, func(i int) float64 { return 5 + 20*float64(i) }), EndOverloaded, 30, 20},
		// The warm-up found it behind: overloaded at the minimum.
		{"warm-up behind", OpenWindowRule{WindowRule: base, OfferedPerS: 1000, BatchS: 0.1, WarmupOverloaded: true}, whiteNoise(600, 1, 69), series(600, 0.05, 70, flat(5)), EndOverloaded, 20, 20},
	}
	for _, tt := range tests {
		n, d := first(tt.w, tt.a, tt.l)
		if d.End != tt.want || n > tt.atMost || n < tt.atLeast {
			t.Errorf("%s: ended after %d by %q, want %q within [%d, %d]", tt.name, n, d.End, tt.want, tt.atLeast, tt.atMost)
		}
	}
}

func TestMeanPerBatch(t *testing.T) {
	tests := []struct {
		name         string
		sums, counts []float64
		want         []float64
	}{
		{"every batch has calls", []float64{10, 20, 30}, []float64{2, 4, 5}, []float64{5, 5, 6}},
		// An empty batch keeps the last mean; leading empties take the first.
		{"gaps", []float64{0, 12, 0, 8}, []float64{0, 3, 0, 1}, []float64{4, 4, 4, 8}},
		{"no calls", []float64{0, 0}, []float64{0, 0}, nil},
	}
	for _, tt := range tests {
		if got := MeanPerBatch(tt.sums, tt.counts); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %v, want %v", tt.name, got, tt.want)
		}
	}
}
