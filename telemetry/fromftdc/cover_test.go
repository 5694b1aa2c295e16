package fromftdc

import (
	"strings"
	"testing"
	"time"
)

// TestCover: which samples a window uses, and why a window is not covered.
func TestCover(t *testing.T) {
	t0 := time.Date(2021, 3, 15, 2, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	// every second from 0 to 20 s, uptime following
	regular := func() []point {
		var ps []point
		for i := 0; i <= 20; i++ {
			ps = append(ps, point{at: at(float64(i)), uptimeMS: int64(1000 + i*1000)})
		}
		return ps
	}
	withGap := regular()
	withGap = append(withGap[:8], withGap[12:]...) // 7 s → 12 s: a 5-s gap
	restarted := regular()
	for i := 10; i < len(restarted); i++ {
		restarted[i].uptimeMS = int64((i - 10) * 1000)
	}
	noUptime := regular()
	for i := range noUptime {
		noUptime[i].uptimeMS = -1
	}
	tests := []struct {
		name   string
		points []point
		w      Window
		lo, hi int
		why    string // a part of the reason; "" when covered
	}{
		// the samples inside the window, not those bracketing it
		{"inside", regular(), Window{at(4.5), at(10.5)}, 5, 10, ""},
		// a sample exactly at the start and the end counts as inside
		{"edges", regular(), Window{at(4), at(10)}, 4, 10, ""},
		// a whole-capture window
		{"whole", regular(), Window{at(0), at(20)}, 0, 20, ""},
		// the first sample 1.4 s after the window opened: within tolerance
		{"late start within tolerance", regular()[3:], Window{at(1.6), at(10)}, 0, 7, ""},
		// the capture started 5 s into the window
		{"capture starts late", regular()[5:], Window{at(0), at(10)}, -1, -1, "first sample in the window is 5.0 s after"},
		// the capture ended 4 s before the window closed
		{"capture ends early", regular()[:17], Window{at(10), at(20)}, -1, -1, "last sample in the window is 4.0 s before"},
		// the window is entirely after the capture
		{"after", regular(), Window{at(30), at(40)}, -1, -1, "no sample in the window"},
		// the window is entirely before the capture
		{"before", regular(), Window{at(-20), at(-10)}, -1, -1, "no sample in the window"},
		// a window shorter than the period holds one sample: no rate
		{"one sample", regular(), Window{at(3.2), at(4.1)}, -1, -1, "only one sample"},
		// a 5-s gap inside the window
		{"gap", withGap, Window{at(2), at(15)}, -1, -1, "a gap of 5.0 s"},
		// the same gap outside the window does not matter
		{"gap outside", withGap, Window{at(13), at(18)}, 9, 14, ""},
		// uptime went back: the server restarted
		{"restart", restarted, Window{at(5), at(15)}, -1, -1, "restarted"},
		// no uptime reported: no restart can be seen, the window is used
		{"no uptime", noUptime, Window{at(5), at(15)}, 5, 15, ""},
		// nothing at all
		{"empty", nil, Window{at(0), at(1)}, -1, -1, "no samples"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, why := cover(tc.points, tc.w)
			if lo != tc.lo || hi != tc.hi || (tc.why == "") != (why == "") || !strings.Contains(why, tc.why) {
				t.Errorf("cover = %d..%d %q, want %d..%d %q", lo, hi, why, tc.lo, tc.hi, tc.why)
			}
		})
	}
}
