package steady

import (
	"math"
	"testing"
)

func TestStdErr(t *testing.T) {
	// The half-width BatchMeans gives, divided back, is the standard error
	// of the means' mean: the round trip on a known series.
	xs := make([]float64, 40)
	for i := range xs {
		xs[i] = 100 + float64(i%5) - 2 // means spread ±2 around 100
	}
	iv := BatchMeans(xs, 0.95)
	if !iv.OK {
		t.Fatal("no interval for 40 values")
	}
	se, df, ok := StdErr(iv.HalfWidth, iv.Batches, 0.95)
	if !ok || df != float64(iv.Batches-1) {
		t.Fatalf("StdErr: ok %v df %v, want true and %d", ok, df, iv.Batches-1)
	}
	means := batch(xs, iv.BatchSize)
	var v float64
	m := 0.0
	for _, x := range means {
		m += x
	}
	m /= float64(len(means))
	for _, x := range means {
		v += (x - m) * (x - m)
	}
	want := math.Sqrt(v / float64(len(means)-1) / float64(len(means)))
	if math.Abs(se-want) > 1e-9*want {
		t.Fatalf("se %v, want %v", se, want)
	}
	for _, c := range []struct {
		hw      float64
		batches int
		conf    float64
	}{
		{1, MinBatches - 1, 0.95}, // too few means
		{1, 20, 0},                // no confidence
		{1, 20, 1},
		{-1, 20, 0.95},
		{math.NaN(), 20, 0.95},
		{math.Inf(1), 20, 0.95},
	} {
		if _, _, ok := StdErr(c.hw, c.batches, c.conf); ok {
			t.Errorf("StdErr(%v, %d, %v) ok; want refused", c.hw, c.batches, c.conf)
		}
	}
}
