package sim

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestAcceptCostFillTime opens n connections at once against a server
// with accept_cost=c, each sending hello. By construction the acceptor
// holds each connection for c, one at a time: its books show n·c of
// setup, and the last connection is answered when its booking ends —
// n·c after the first arrival when the dialers keep it busy, later when
// the load host delays their arrival (the books show that idle time too).
// So the measured time is never below n·c, and within a ratio of the
// acceptor's own span (first arrival to last setup).
func TestAcceptCostFillTime(t *testing.T) {
	const n, cost = 150, 2 * time.Millisecond
	d := startSim(t, "service=0s,accept_cost=2ms")
	acc := d.fronts[0].acceptor
	hello := opMsg(t, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}, 0, false)
	var wg sync.WaitGroup
	errs := make(chan error, n)
	start := time.Now()
	for range n {
		wg.Go(func() {
			c, err := net.DialTimeout("tcp", d.Hosts()[0], 10*time.Second)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(20 * time.Second))
			if _, err := c.Write(hello); err != nil {
				errs <- err
				return
			}
			if _, err := readMessage(bufio.NewReader(c)); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	snap := acc.snapshot()
	acc.mu.Lock()
	span := acc.epoch.Add(time.Duration(acc.free[0])).Sub(start)
	acc.mu.Unlock()
	want := time.Duration(n) * cost
	t.Logf("%d connections with accept_cost %s: all answered after %s; the construction says %s, the acceptor's books %s of setup over a span of %s (idle %s: the dialers' delay)",
		n, cost, took, want, snap.HoldTotal, span, span-snap.HoldTotal)
	if snap.Acquired != n || snap.HoldTotal != want {
		t.Errorf("the acceptor set up %d connections for %s, want %d for %s", snap.Acquired, snap.HoldTotal, n, want)
	}
	if r := took.Seconds() / want.Seconds(); r < 0.97 {
		t.Errorf("answered after %s, faster than n·accept_cost = %s", took, want)
	}
	if r := took.Seconds() / span.Seconds(); r < 0.97 || r > 1.15 {
		t.Errorf("answered after %s, not within [0.97, 1.15] of the acceptor's span %s", took, span)
	}
	// The server reports the connections as a real one does: created
	// (totalCreated), and nothing of the acceptor itself.
	created := d.fronts[0].tel.connCreated.Load()
	if created < n {
		t.Errorf("totalCreated %d, want at least %d", created, n)
	}
	if st := d.fronts[0].serverStatus(); strings.Contains(bson.Raw(mustMarshal(t, st)).String(), "accept") {
		t.Errorf("serverStatus mentions the acceptor: %v", st)
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := bson.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestAcceptCostSpec(t *testing.T) {
	s, err := ParseSpec("slots=4,accept_cost=2ms")
	if err != nil {
		t.Fatal(err)
	}
	if s.AcceptCost != 2*time.Millisecond || !strings.Contains(s.String(), "accept_cost=2ms") {
		t.Errorf("spec %+v prints %q", s, s.String())
	}
	if again, err := ParseSpec(s.String()); err != nil || again != s {
		t.Errorf("round trip: %v %+v", err, again)
	}
	if strings.Contains(DefaultSpec().String(), "accept_cost") {
		t.Error("the default spec prints accept_cost")
	}
	for _, bad := range []string{"accept_cost=-1ms", "accept_cost=2s", "accept_cost=soon"} {
		if _, err := ParseSpec(bad); err == nil || !strings.Contains(err.Error(), "accept_cost") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
