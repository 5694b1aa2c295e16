package fleet

import (
	"strings"
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
	want := []Saturation{{2, 500, 50, true, false}, {8, 400, 50, false, false}, {16, 120, 10, false, false}}
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

// TestSaturationLimited: storms whose connections the server's
// establishment rate limiter queued say so in the setup verdict, naming
// the limiter; storms it admitted at once do not.
func TestSaturationLimited(t *testing.T) {
	queued, none := 12.0, 0.0
	st := func(k, m int, rate float64, q *float64) results.StormResult {
		return results.StormResult{Clients: k, MaxConnecting: m, AcceptPerS: &rate,
			ServerTotal: &results.ServerSample{Establishment: &results.EstablishmentCounts{Queued: q, Rejected: &none}}}
	}
	got := SaturationOf([]results.StormResult{st(10, 2, 100, &none), st(50, 2, 100, &queued), st(10, 8, 300, &none)})
	if len(got) != 2 || !got[0].Limited || got[1].Limited {
		t.Fatalf("got %+v, want maxConnecting 2 limited, 8 not", got)
	}
	if txt := got[0].Text(); !strings.Contains(txt, "connection-establishment rate limiter (ingressConnectionEstablishmentRatePerSec)") {
		t.Errorf("text %q does not name the limiter", txt)
	}
	if txt := got[1].Text(); strings.Contains(txt, "limiter") {
		t.Errorf("text %q names a limiter that did nothing", txt)
	}
}
