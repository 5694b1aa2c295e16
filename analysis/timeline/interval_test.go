package timeline

import "testing"

// A steady state's interval, and the band of one window, never reach below 0: a few spread batches
// near 0 (an agent's share of a light load, a p99 mostly of empty
// intervals) give a t interval whose low end would be negative.
func TestBatchIntervalNotBelowZero(t *testing.T) {
	xs := make([]float64, 50)
	xs[49] = 500
	iv, band := view{dt: 0.1}.batchInterval(xs)
	if iv == nil {
		t.Fatal("no interval from 50 values")
	}
	if iv.Low != 0 || iv.High <= iv.Value || iv.Value != 10 {
		t.Errorf("interval %+v, want mean 10, low end 0, high end above the mean", *iv)
	}
	if band.Low != 0 || band.High <= iv.High {
		t.Errorf("one window's band %+v, want low end 0, high end beyond the mean's interval", band)
	}
}
