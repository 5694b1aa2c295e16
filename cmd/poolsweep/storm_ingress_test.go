package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// TestStormEstablishmentLimiter storms a simulated 8.2 server whose
// connection-establishment rate limiter admits 100 connections a second
// from a bucket of 10 (0.1 s of rate) and queues the rest. By
// construction the K·(P+1) connections of the storm (each client's pool
// and its monitor) need as many tokens: past the bucket's 10 they wait
// for the refill, so no pool is full before (K·(P+1) − 10)/100 s. The
// storm reports the server's admitted, queued and rejected counts beside
// its fill time, and is labelled as the limiter's.
func TestStormEstablishmentLimiter(t *testing.T) {
	if testing.Short() {
		t.Skip("storms the simulator")
	}
	const clients, pool, rate, bucket = 4, 10, 100.0, 10
	dir := t.TempDir()
	out := filepath.Join(dir, "storm.jsonl")
	code, stdout, stderr := runBinary(t, dir, 2*time.Minute, "storm", "--target",
		"sim=sim:version=8.2,slots=8,service=1ms,ingress_rate=100,ingress_burst=0.1,ingress_queue=1000",
		"--clients", "4", "--pool", "10", "--trials", "1", "--timeout", "30s", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res, err := results.ReadFileWith(context.Background(), out, results.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Storms) != 1 {
		t.Fatalf("%d storms\n%s", len(res.Storms), stderr)
	}
	s := res.Storms[0]
	t.Logf("stdout:\n%s", stdout)
	if s.FillS == nil || s.Ready != s.Wanted {
		t.Fatalf("fill %v, %d/%d ready (%s)", s.FillS, s.Ready, s.Wanted, s.ErrorSample)
	}
	need := float64(clients*(pool+1)-bucket) / rate
	if *s.FillS < 0.97*need {
		t.Errorf("full after %.3f s, before the limiter could admit them (%.3f s)", *s.FillS, need)
	}
	if s.ServerTotal == nil || s.ServerTotal.Establishment == nil {
		t.Fatalf("no establishment counts in the storm's server telemetry: %+v", s.ServerTotal)
	}
	e := s.ServerTotal.Establishment
	t.Logf("full after %.3f s (the limiter's floor %.3f s); server admitted %v, queued %v, rejected %v", *s.FillS, need, deref(e.Admitted), deref(e.Queued), deref(e.Rejected))
	if e.Admitted == nil || *e.Admitted < clients*(pool+1) {
		t.Errorf("server admitted %v, want at least the storm's %d", deref(e.Admitted), clients*(pool+1))
	}
	if e.Queued == nil || *e.Queued < clients*(pool+1)-bucket-1 {
		t.Errorf("server queued %v, want at least %d (past the bucket)", deref(e.Queued), clients*(pool+1)-bucket-1)
	}
	if e.Rejected == nil || *e.Rejected != 0 {
		t.Errorf("server rejected %v with a queue of 1000", deref(e.Rejected))
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "connection-establishment rate limiter") {
		t.Errorf("the storm is not labelled as the limiter's: %q", s.Warnings)
	}
	if !strings.Contains(stderr, "server establishment limiter admitted") {
		t.Errorf("the storm's line does not report the limiter's counts:\n%s", stderr)
	}
	if !strings.Contains(stdout, "connection-establishment rate limiter") {
		t.Errorf("the setup verdict does not name the limiter:\n%s", stdout)
	}
}

// TestStormLimiterRejections: with no queue, the connections past the
// limiter's bucket are rejected; the storm counts each failed connection
// once (a failed setup also fails the checkout waiting for it: one
// failure, seen twice), so its connect errors are at most the server's
// rejections and fall short of them only by the clients' monitoring
// connections, which no pool opens.
func TestStormLimiterRejections(t *testing.T) {
	if testing.Short() {
		t.Skip("storms the simulator")
	}
	t.Parallel()
	const clients = 4
	dir := t.TempDir()
	out := filepath.Join(dir, "storm.jsonl")
	code, stdout, stderr := runBinary(t, dir, 2*time.Minute, "storm", "--target",
		"sim=sim:version=8.2,slots=8,service=1ms,ingress_rate=10,ingress_burst=1,ingress_queue=0",
		"--clients", "4", "--pool", "10", "--trials", "1", "--timeout", "2s", "-o", out)
	res, err := results.ReadFileWith(context.Background(), out, results.ReadOptions{})
	if err != nil || len(res.Storms) != 1 {
		t.Fatalf("exit %d, %v\n%s\n%s", code, err, stdout, stderr)
	}
	s := res.Storms[0]
	if s.ServerTotal == nil || s.ServerTotal.Establishment == nil || s.ServerTotal.Establishment.Rejected == nil {
		t.Fatalf("no rejections reported: %+v", s.ServerTotal)
	}
	rejected := int64(*s.ServerTotal.Establishment.Rejected)
	t.Logf("connect errors %d, server rejected %d, %d/%d ready", s.ConnectErrors, rejected, s.Ready, s.Wanted)
	if rejected == 0 || s.ConnectErrors == 0 || s.ConnectErrors > rejected || s.ConnectErrors < rejected-clients {
		t.Errorf("connect errors %d against %d rejections: want each failure counted once (at most %d, at least %d)",
			s.ConnectErrors, rejected, rejected, rejected-clients)
	}
}
