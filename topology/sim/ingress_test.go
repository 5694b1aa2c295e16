package sim

import (
	"bufio"
	"math"
	"net"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// stormResult is what one raw connection of a storm saw.
type stormResult struct {
	answered bool          // its hello was answered (admitted)
	after    time.Duration // from the storm's start to the answer or the close
	err      error         // a dial or write failure (not a rejection)
}

// connectionStorm opens n connections to host at once, each sending hello
// and waiting for its answer or for the server to close it. The answered
// ones stay open until release is closed, so that serverStatus counts
// them as current.
func connectionStorm(t *testing.T, host string, n int, release <-chan struct{}) []stormResult {
	t.Helper()
	hello := opMsg(t, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}}, 0, false)
	out := make([]stormResult, n)
	var answered sync.WaitGroup
	start := time.Now()
	for i := range n {
		answered.Go(func() {
			c, err := net.DialTimeout("tcp", host, 10*time.Second)
			if err != nil {
				out[i].err = err
				return
			}
			c.SetDeadline(time.Now().Add(20 * time.Second))
			if _, err := c.Write(hello); err != nil {
				out[i] = stormResult{after: time.Since(start)} // closed before the write: rejected
				c.Close()
				return
			}
			_, err = readMessage(bufio.NewReader(c))
			out[i] = stormResult{answered: err == nil, after: time.Since(start)}
			if err != nil {
				c.Close()
				return
			}
			go func() { <-release; c.Close() }()
		})
	}
	answered.Wait()
	for _, r := range out {
		if r.err != nil {
			t.Fatal(r.err)
		}
	}
	return out
}

// num reads a number from a reply; NaN when absent.
func num(r bson.Raw, path ...string) float64 {
	v, err := r.LookupErr(path...)
	if err != nil {
		return math.NaN()
	}
	f, ok := v.AsFloat64OK()
	if !ok {
		return math.NaN()
	}
	return f
}

// TestIngressLimiterStorm opens 15 connections at once against a server
// whose limiter admits 4 a second from a bucket of 5 (1.25 s of rate) and
// queues at most 3. By construction the bucket's 5 tokens admit 5 at once,
// 3 wait for the refill (a token every 250 ms: the third is answered
// 750 ms after the bucket emptied) and the other 7 are rejected and
// closed — when the dials all land within one refill (250 ms); a later
// arrival may find a refilled token, so the test holds the counts to
// these bounds and, exactly, to what the clients saw. The server's
// counters (connections.*, queues.ingressSessionEstablishment) are the
// clients' ground truth.
func TestIngressLimiterStorm(t *testing.T) {
	const n, rate, capacity, depth = 15, 4.0, 5, 3
	d := startSim(t, "version=8.2,service=0s,ingress_rate=4,ingress_burst=1.25,ingress_queue=3")
	f := d.fronts[0]
	release := make(chan struct{})
	defer close(release)

	var peakQueued float64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			st := runCmd(t, f, "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
			peakQueued = max(peakQueued, num(st, "connections", "queuedForEstablishment"))
		}
	}()
	res := connectionStorm(t, d.Hosts()[0], n, release)
	close(stop)
	<-sampled

	var admitted, rejected, late int
	var slowest time.Duration
	for _, r := range res {
		if !r.answered {
			rejected++
			continue
		}
		admitted++
		slowest = max(slowest, r.after)
		if r.after >= time.Duration(0.9*float64(time.Second)/rate) {
			late++
		}
	}
	st := runCmd(t, f, "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
	q := func(k string) float64 { return num(st, "queues", "ingressSessionEstablishment", k) }
	queued := int(q("addedToQueue"))
	t.Logf("%d connections: %d admitted (%d after waiting, the slowest after %s), %d rejected; the server: %.0f attempted, %.0f successful, %d queued, %.0f rejected, peak queuedForEstablishment %.0f",
		n, admitted, late, slowest.Round(time.Millisecond), rejected, q("attemptedAdmissions"), q("successfulAdmissions"), queued, q("rejectedAdmissions"), peakQueued)

	// The server's counts are the clients' outcomes.
	if q("attemptedAdmissions") != n || int(q("successfulAdmissions")) != admitted || int(q("rejectedAdmissions")) != rejected {
		t.Errorf("server counts attempted %v, successful %v, rejected %v; the clients saw %d, %d admitted, %d rejected",
			q("attemptedAdmissions"), q("successfulAdmissions"), q("rejectedAdmissions"), n, admitted, rejected)
	}
	if q("removedFromQueue") != float64(queued) || num(st, "connections", "queuedForEstablishment") != 0 {
		t.Errorf("queue not drained: added %d, removed %v, queuedForEstablishment %v", queued, q("removedFromQueue"), num(st, "connections", "queuedForEstablishment"))
	}
	if got := num(st, "connections", "establishmentRateLimit", "rejected"); int(got) != rejected {
		t.Errorf("connections.establishmentRateLimit.rejected = %v, the clients saw %d", got, rejected)
	}
	if got := num(st, "connections", "rejected"); int(got) != rejected {
		t.Errorf("connections.rejected = %v, the clients saw %d", got, rejected)
	}
	if cur, made := num(st, "connections", "current"), num(st, "connections", "totalCreated"); int(cur) != admitted || int(made) != admitted {
		t.Errorf("connections.current %v, totalCreated %v; %d admitted connections are open", cur, made, admitted)
	}
	// The construction: at least the bucket and the queue are admitted,
	// the queue fills, and a queued connection waits for the refill.
	if queued != depth || peakQueued != depth {
		t.Errorf("%d connections queued (peak queuedForEstablishment %v), want the queue's depth %d", queued, peakQueued, depth)
	}
	if admitted < capacity+depth || rejected < 1 || admitted+rejected != n {
		t.Errorf("%d admitted, %d rejected of %d: want at least %d admitted (the bucket and the queue) and some rejected", admitted, rejected, n, capacity+depth)
	}
	if want := time.Duration(depth / rate * 0.97 * float64(time.Second)); slowest < want {
		t.Errorf("the last queued connection was answered after %s, before the refill of %d tokens (%s)", slowest, depth, want)
	}
	if late < depth {
		t.Errorf("%d connections were answered after a refill, want the %d queued", late, depth)
	}
}

// TestIngressLimiterOff: an 8.2 server without ingress_* keys runs no
// limiter (the server's default): every connection of a storm is admitted,
// and its counters report zeros, as a real server's disabled limiter does.
func TestIngressLimiterOff(t *testing.T) {
	d := startSim(t, "version=8.2,service=0s")
	release := make(chan struct{})
	defer close(release)
	res := connectionStorm(t, d.Hosts()[0], 20, release)
	for _, r := range res {
		if !r.answered {
			t.Fatal("a connection was refused without a limiter")
		}
	}
	st := runCmd(t, d.fronts[0], "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
	for _, k := range []string{"attemptedAdmissions", "successfulAdmissions", "addedToQueue", "rejectedAdmissions"} {
		if v := num(st, "queues", "ingressSessionEstablishment", k); v != 0 {
			t.Errorf("%s = %v with the limiter off", k, v)
		}
	}
	if v := num(st, "connections", "queuedForEstablishment"); v != 0 {
		t.Errorf("queuedForEstablishment = %v", v)
	}
	if v := num(st, "queues", "ingressSessionEstablishment", "totalAvailableTokens"); v != math.MaxInt64 {
		t.Errorf("totalAvailableTokens = %v, want INT64_MAX (an unbounded bucket, capped)", v)
	}
}
