package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/results"
)

// TestStormFillTimeMatchesTheConstruction storms a simulator with
// accept_cost=2ms: its one acceptor sets up K·(P+1) connections (each
// client's pool and its monitor) one after another, so every pool is full
// after K·(P+1)·2ms. The host's delays can only add to that: each storm's
// fill is at least 0.97 of it, and the best of two trials within 15 %.
// The server's own count of connections created says how many it set up.
func TestStormFillTimeMatchesTheConstruction(t *testing.T) {
	if testing.Short() {
		t.Skip("storms the simulator")
	}
	const pool, cost = 10, 2 * time.Millisecond
	dir := t.TempDir()
	out := filepath.Join(dir, "storm.jsonl")
	code, stdout, stderr := runBinary(t, dir, 3*time.Minute, "storm", "--target", "sim=sim:slots=8,service=1ms,accept_cost=2ms",
		"--clients", "10,40", "--pool", "10", "--trials", "2", "--timeout", "30s", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res, err := results.ReadFileWith(context.Background(), out, results.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Storms) != 4 || res.End == nil || res.End.Status != "complete" {
		t.Fatalf("%d storms, end %+v\n%s", len(res.Storms), res.End, stderr)
	}
	best := map[int]float64{}
	for _, s := range res.Storms {
		want := (time.Duration(s.Clients*(pool+1)) * cost).Seconds()
		if s.FillS == nil || s.Ready != s.Wanted || s.ConnectErrors != 0 {
			t.Errorf("K=%d trial %d: fill %v, %d/%d ready, %d errors (%s)", s.Clients, s.Trial, s.FillS, s.Ready, s.Wanted, s.ConnectErrors, s.ErrorSample)
			continue
		}
		ratio := *s.FillS / want
		t.Logf("K=%d P=%d trial %d: full after %.3f s, construction %.3f s (ratio %.3f); server accepted %v at %v/s",
			s.Clients, pool, s.Trial, *s.FillS, want, ratio, deref(s.Accepted), deref(s.AcceptPerS))
		if ratio < 0.97 {
			t.Errorf("K=%d: full after %.3f s, faster than the construction's %.3f s", s.Clients, *s.FillS, want)
		}
		if b, ok := best[s.Clients]; !ok || ratio < b {
			best[s.Clients] = ratio
		}
		if s.Accepted == nil {
			t.Errorf("K=%d: the server's created connections were not recorded", s.Clients)
		} else if n := float64(s.Clients * (pool + 1)); *s.Accepted < 0.8*n || *s.Accepted > 1.15*n {
			// accepted is the server's accept rate (serverStatus samples a
			// second apart) times the storm's length: a short storm's
			// estimate reads up to about a tenth low (98 of 110 seen on a
			// loaded host). The exact count is Ready against Wanted above;
			// this checks that the server's view agrees with it roughly.
			t.Errorf("K=%d: the server created %.0f connections, want about K·(P+1) = %.0f", s.Clients, *s.Accepted, n)
		}
	}
	for k, r := range best {
		if r <= 1.15 {
			continue
		}
		// Late only when this machine, not the simulator, set the pace:
		// the storm's own client telemetry says so (as a step's would).
		if why, ok := stormStarved(res, k); ok {
			t.Logf("K=%d: the best trial took %.3f × the construction's fill time, but the load host was starved: %s", k, r, why)
			continue
		}
		t.Errorf("K=%d: the best trial took %.3f × the construction's fill time, more than 1.15, on a load host the telemetry calls unstarved", k, r)
	}
}

// stormStarved says whether every storm of K clients ran on a starved
// load host, by the rules that label a step client-bound.
func stormStarved(res *results.Results, k int) (string, bool) {
	var why []string
	for _, s := range res.Storms {
		if s.Clients != k {
			continue
		}
		ok, reason := bound.ClientLimited(&results.StepResult{Client: s.Client})
		if !ok {
			return "", false
		}
		why = append(why, reason)
	}
	return strings.Join(why, "; "), len(why) > 0
}

func deref(p *float64) any {
	if p == nil {
		return "not reported"
	}
	return *p
}

func TestStormBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "s.jsonl")
	existing := writeFile(t, dir, "old.jsonl", "x\n")
	sim := []string{"--target", "s=sim:slots=8"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{append([]string{"storm", "-o", out, "--clients", "0"}, sim...), "--clients"},
		{append([]string{"storm", "-o", out, "--clients", "1001"}, sim...), "--clients"},
		{append([]string{"storm", "-o", out, "--pool", "0"}, sim...), "--pool"},
		{append([]string{"storm", "-o", out, "--pool", "1001"}, sim...), "--pool"},
		{append([]string{"storm", "-o", out, "--max-connecting", "0"}, sim...), "--max-connecting"},
		{append([]string{"storm", "-o", out, "--timeout", "0s"}, sim...), "--timeout"},
		{append([]string{"storm", "-o", out, "--clients", "1000", "--pool", "1000"}, sim...), "--clients × --pool"},
		{append([]string{"storm"}, sim...), "-o/--out: required"},
		{[]string{"storm", "-o", out}, "--uri or --target"},
		{append([]string{"storm", "-o", out, "--uri", "mongodb://h/"}, sim...), "--uri and --target"},
		{append([]string{"storm", "-o", existing}, sim...), "-o"},
		{[]string{"storm", "-o", out, "--target", "s=sim:slots=0"}, "--target"},
	} {
		code, stdout, stderr := runCLI(t, tt.args...)
		wantUsageLine(t, tt.args, code, stdout, stderr, tt.want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("bad input wrote the results file")
	}
}
