package livemetrics

import (
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// TestFromHDR: a record's histogram of microseconds becomes cumulative
// buckets of seconds in which no bucket counts a latency above its bound,
// with the count and HDR's own sum; a latency past the last bound is in
// the count (+Inf) only.
func TestFromHDR(t *testing.T) {
	h := hdr.New(1, 3_600_000_000, 3)
	for _, us := range []int64{90, 150, 1000, 1000, 1000, 60_000_000} {
		if err := h.RecordValue(us); err != nil {
			t.Fatal(err)
		}
	}
	got := fromHDR(h)
	if got.count != 6 {
		t.Errorf("count %d, want 6", got.count)
	}
	if want := h.Mean() * 6 / 1e6; got.sum != want {
		t.Errorf("sum %g, want %g", got.sum, want)
	}
	for _, tc := range []struct {
		le   float64
		want uint64
	}{
		{0.0001, 1},                  // 90 µs
		{0.0002, 2},                  // + 150 µs
		{0.0008, 2},                  // 1 ms is above 800 µs
		{0.0016, 5},                  // + 3 × 1 ms
		{Buckets[len(Buckets)-1], 5}, // 60 s is past 52 s: +Inf only
	} {
		if got.buckets[tc.le] != tc.want {
			t.Errorf("le=%g: %d, want %d", tc.le, got.buckets[tc.le], tc.want)
		}
	}
}
