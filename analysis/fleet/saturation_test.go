package fleet

import (
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

func TestSaturationOf(t *testing.T) {
	st := func(k, m int, rate float64) results.StormResult {
		return results.StormResult{Clients: k, MaxConnecting: m, AcceptPerS: &rate}
	}
	got := SaturationOf([]results.StormResult{
		// maxConnecting 2: 10 clients reach 300/s, 50 and 200 the
		// acceptor's 500/s: saturated from 50.
		st(10, 2, 300), st(50, 2, 480), st(200, 2, 500),
		// maxConnecting 8: still rising at the largest K.
		st(10, 8, 200), st(50, 8, 400),
		// Two trials of one K: the best counts.
		st(10, 16, 100), st(10, 16, 120),
	})
	want := []Saturation{{2, 500, 50, true}, {8, 400, 50, false}, {16, 120, 10, false}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("maxConnecting %d: %+v, want %+v", want[i].MaxConnecting, got[i], want[i])
		}
	}
	if s := SaturationOf([]results.StormResult{{Clients: 5}}); len(s) != 0 {
		t.Errorf("no accept rate, yet %+v", s)
	}
}
