package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/internal/errext"
	"github.com/poolsweep/poolsweep/results"
)

// An event the target cannot take is refused once the target answers,
// before anything is loaded: exit 2, one line naming --event, the target
// and why, and no results written.
func TestEventRefusedByTarget(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		target, event, want string
	}{
		{"s=sim:slots=8", "1s=stepdown", `--event "1s=stepdown": target s: it is a standalone, and replSetStepDown steps down the primary of a replica set`},
		{"rs=sim:rs=3,slots=8", "1s=router-restart", `--event "1s=router-restart": target rs: it is a replset, and router-restart restarts a mongos`},
	} {
		work := t.TempDir()
		out := filepath.Join(work, "out")
		code, stdout, stderr := runBinary(t, work, time.Minute, "sweep", "--target", c.target, "--profile", "rate:100:3s", "--event", c.event, "--out", out, "--no-plot")
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		last := lines[len(lines)-1]
		if code != errext.ExitUsage || !strings.Contains(last, c.want) {
			t.Errorf("%s on %s: exit %d, stderr %q, want exit 2 and a last line with %q", c.event, c.target, code, stderr, c.want)
		}
		if strings.Contains(stdout+stderr, "loading") {
			t.Errorf("%s on %s: data was loaded: %q", c.event, c.target, stdout+stderr)
		}
		if _, err := os.Stat(filepath.Join(out, "results.jsonl")); err == nil {
			t.Errorf("%s on %s: results were written", c.event, c.target)
		}
	}
}

// TestSweepRouterRestart is the router restart through the CLI: `sweep
// --uri` at a 2-router simulated cluster under a steady open-loop load,
// with one router restarted 5 s in. The event is recorded on the first
// router, lasting its restart time; while it is away its connections are
// gone and the other router carries the load (the calls offered complete,
// on the pool of the other router, which holds what the load held in use
// in both: its refill is measured); the restarted router is in use again
// after it is back (the clients' heartbeat, 500 ms, finds it); the time to
// recover is judged, and analyze tells it in words. No speed is asserted:
// the numbers are logged.
func TestSweepRouterRestart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps a simulated 2-router cluster through a router restart")
	}
	const restart = 2 * time.Second
	uri, _ := startServe(t, "--sim", "shards=1,routers=2,slots=16,service=10ms,router_restart="+restart.String())
	work := t.TempDir()
	out := filepath.Join(work, "out")
	code, stdout, stderr := runBinary(t, work, 3*time.Minute, "sweep", "--uri", uri, "--profile", "rate:400:16s", "--event", "5s=router-restart",
		"--cold", "--pool", "32", "--heartbeat", "500ms", "--trials", "1", "--records", "1000", "--out", out, "--no-plot")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if len(res.Steps) != 1 || res.Steps[0].Profile == nil || len(res.Steps[0].Profile.Events) != 1 {
		t.Fatalf("want one profile step with one event, got %d steps", len(res.Steps))
	}
	ps := res.Steps[0].Profile
	ev := ps.Events[0]
	routers := strings.Split(strings.TrimSuffix(strings.TrimPrefix(uri, "mongodb://"), "/"), ",")
	if len(routers) != 2 {
		t.Fatalf("the simulator's URI %s names %d routers, want 2", uri, len(routers))
	}
	down, other := routers[0], routers[1]
	switch {
	case ev.Error != "" || ev.Via != results.EventViaSimulator || ev.Action != results.EventRouterRestart:
		t.Fatalf("event %+v", ev)
	case ev.Host != down:
		t.Fatalf("the event restarted %s, want the first router %s", ev.Host, down)
	case ev.EndS == nil || *ev.EndS-ev.FiredS < restart.Seconds()*0.95:
		t.Fatalf("event fired at %.3f s, ended %v: want it to last the %s restart", ev.FiredS, endOf(ev.EndS), restart)
	case ev.Summary == nil:
		t.Fatalf("event %+v has no summary", ev)
	}
	s := ev.Summary
	tl := ps.Timeline
	open := func(iv results.TimelineInterval, host string) (int, bool) {
		for _, h := range iv.Hosts {
			if h.Host == host {
				return h.Open, true
			}
		}
		return 0, false
	}
	// While the router is away (a margin of 300 ms after the firing for
	// the clients to notice): no connection to it, and the calls offered
	// complete on the other.
	var offered, calls, failed int64
	var before, during, after int
	for i, iv := range tl.Intervals {
		start, end := float64(i)*tl.IntervalS, float64(i+1)*tl.IntervalS
		n, _ := open(iv, down)
		switch {
		case end <= ev.FiredS:
			before = max(before, n)
		case start >= ev.FiredS+0.3 && end <= *ev.EndS:
			during = max(during, n)
			offered += iv.Offered
			calls += iv.Calls
			if iv.Errors != nil {
				failed += iv.Errors.Total()
			}
		case start >= *ev.EndS+1:
			after = max(after, n)
		}
	}
	t.Logf("router %s: up to %d connections before, %d while away, %d a second after its return; while away %d calls of %d offered completed, %d failed",
		down, before, during, after, calls, offered, failed)
	t.Logf("summary: recover %v s, refill %v s (target %d) per host %s, errors %+v, retried %d, created %d closed %d, p99 during %v ms, notes %q",
		endOf(s.TimeToRecoverS), endOf(s.TimeToRefillS), s.RefillTarget, refillText(s.RefillHosts), s.Errors, s.RetriedOK, s.ConnectionsCreated, s.ConnectionsClosed, endOf(s.P99DuringMS), s.Notes)
	if before == 0 || during != 0 || after == 0 {
		t.Errorf("connections to the restarted router %s: %d before, %d while away, %d after its return; want some, none, some", down, before, during, after)
	}
	if offered == 0 || float64(calls) < 0.9*float64(offered) {
		t.Errorf("while the router was away %d calls of %d offered completed: the other router did not carry the load", calls, offered)
	}
	var otherRefill *results.HostRefill
	for i := range s.RefillHosts {
		if s.RefillHosts[i].Host == other {
			otherRefill = &s.RefillHosts[i]
		}
	}
	if otherRefill == nil || otherRefill.TimeToRefillS == nil || s.RefillTarget == 0 {
		t.Errorf("refill per host %s (target %d): want the other router %s refilled", refillText(s.RefillHosts), s.RefillTarget, other)
	}
	// The time to recover is judged against the steady state before the
	// event (a refill target says there was one); on a busy host the
	// load's p99 may not settle within the steady interval again, which
	// the summary then says rather than measures.
	if s.TimeToRecoverS == nil && !slices.ContainsFunc(s.Notes, func(n string) bool { return strings.Contains(n, "still outside the steady interval") }) {
		t.Errorf("no time to recover, and no note why: %q", s.Notes)
	}
	code, text, stderr := runBinary(t, work, time.Minute, "analyze", filepath.Join(out, "results.jsonl"))
	if code != 0 || !strings.Contains(text, "after a router restart at 5 s on ") {
		t.Errorf("analyze: exit %d, no verdict of the router restart:\n%s\n%s", code, text, stderr)
	}
}

func endOf(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

func refillText(hs []results.HostRefill) string {
	var b strings.Builder
	for _, h := range hs {
		fmt.Fprintf(&b, " %s:%v", h.Host, endOf(h.TimeToRefillS))
	}
	return b.String()
}
