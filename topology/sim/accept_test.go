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
// with accept_cost=c, each sending hello: by construction the last is
// answered n·c after the first arrives (one acceptor, FIFO, in model
// time), so the measured time is within a ratio of n·c — never below it,
// and above it only by the host's wake-up delays.
func TestAcceptCostFillTime(t *testing.T) {
	const n, cost = 150, 2 * time.Millisecond
	d := startSim(t, "service=0s,accept_cost=2ms")
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
	want := time.Duration(n) * cost
	ratio := took.Seconds() / want.Seconds()
	t.Logf("%d connections with accept_cost %s: all answered after %s, the construction says %s (ratio %.3f)", n, cost, took, want, ratio)
	if ratio < 0.97 || ratio > 1.15 {
		t.Errorf("fill time %s is not within [0.97, 1.15] of n·accept_cost = %s", took, want)
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
