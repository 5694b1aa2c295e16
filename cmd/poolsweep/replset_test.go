package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/results"
)

// Replica sets: read preference and write concern as series
// axes, and the driver's pools per member, against one simulated set
// whose capacity is known by construction (topology/sim/doc.go): with 2
// slots per member and 10 ms per op, the primary serves 200 reads/s and
// secondaryPreferred spreads reads over 2 secondaries, 400/s; a majority
// write waits repl_lag (50 ms) and a secondary's apply (10 ms) more than
// a w:1 write.
const rsSpec = "rs=3,slots=2,service=10ms,repl_lag=50ms"

func TestReplSetAxes(t *testing.T) {
	if testing.Short() {
		t.Skip("sweeps a simulated replica set")
	}
	uri, _ := startServe(t, "--sim", rsSpec)
	// The driver reads only from members within localThresholdMS (15 ms)
	// of the fastest by its monitors' round trips, averaged slowly: one
	// slow early hello on a busy host keeps a secondary out of a short
	// run's reads (seen: 200 of 200 reads on one secondary). A wide
	// window leaves the split to the driver's in-flight balancing, which
	// is what the capacity claim is about.
	uri += "&localThresholdMS=1000"
	dir := t.TempDir()
	sweepRS := func(name string, args ...string) *results.Results {
		t.Helper()
		out := filepath.Join(dir, name)
		args = append([]string{"sweep", "--target", "rs=" + uri, "--duration", "1s", "--warmup", "300ms", "--records", "500", "--no-plot", "--out", out}, args...)
		code, stdout, stderr := runBinary(t, dir, 3*time.Minute, args...)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		return readRes(t, filepath.Join(out, "results.jsonl"))
	}

	t.Run("read preference", func(t *testing.T) {
		res := sweepRS("reads", "--read-preference", "primary,secondaryPreferred", "--concurrency", "8")
		if got := res.Header.Workload.ReadPreferences; strings.Join(got, ",") != "primary,secondaryPreferred" {
			t.Errorf("header read_preferences %v", got)
		}
		steps := map[string]results.StepResult{}
		for _, s := range res.Steps {
			steps[s.ReadPreference] = s
			if s.Workload != results.SeriesLabel("read", s.ReadPreference, "") {
				t.Errorf("step %s: read_preference %q", s.Workload, s.ReadPreference)
			}
			if s.Errors.Total() > 0 {
				t.Errorf("%s: %d errors (%s)", s.Workload, s.Errors.Total(), s.ErrorSample)
			}
			checkHostPools(t, s)
		}
		p, sp := steps["primary"], steps["secondaryPreferred"]
		if p.Calls == 0 || sp.Calls == 0 {
			t.Fatalf("missing series: %+v", steps)
		}
		// The primary's reads go to the primary only; secondaryPreferred's
		// to both secondaries, about evenly, and never to the primary.
		reached := func(s results.StepResult) (roles []string) {
			for _, h := range s.Pool.Hosts {
				if h.Checkouts > s.Calls/10 {
					roles = append(roles, h.Role)
				}
			}
			return roles
		}
		if r := reached(p); strings.Join(r, ",") != "primary" {
			t.Errorf("primary reads reached %v", r)
		}
		if r := reached(sp); strings.Join(r, ",") != "secondary,secondary" {
			t.Errorf("secondaryPreferred reads reached %v", r)
		}
		// By construction two secondaries carry ×2 the primary's reads
		// when the driver splits the reads evenly. It splits by its
		// latency window and by each server's operations in flight, so on
		// a busy host one secondary may take more; the busier one then
		// caps the set at its own capacity over its share.
		var secondaryCheckouts, busiest int64
		for _, h := range sp.Pool.Hosts {
			if h.Role == "secondary" {
				secondaryCheckouts += h.Checkouts
				busiest = max(busiest, h.Checkouts)
			}
		}
		want := 2.0
		if secondaryCheckouts > 0 {
			want = min(2, float64(secondaryCheckouts)/float64(busiest))
		}
		ratio := sp.CallsPerS / p.CallsPerS
		t.Logf("reads at C=8: primary %.0f/s, secondaryPreferred %.0f/s (×%.2f; by construction ×2, ×%.2f for the split the driver made: busiest secondary %d of %d checkouts)",
			p.CallsPerS, sp.CallsPerS, ratio, want, busiest, secondaryCheckouts)
		if (ratio < 0.75*want || ratio > 2.6) && !starved(t, p, "primary") && !starved(t, sp, "secondaryPreferred") {
			t.Errorf("secondaryPreferred carried ×%.2f of primary; the set's capacity says ×%.2f for the split the driver made", ratio, want)
		}
	})

	var writes *results.Results
	t.Run("write concern", func(t *testing.T) {
		writes = sweepRS("writes", "--workload", "update", "--write-concern", "1,majority", "--concurrency", "2")
		lat := map[string]float64{}
		for _, s := range writes.Steps {
			if s.Errors.Total() > 0 {
				t.Errorf("%s: %d errors (%s)", s.Workload, s.Errors.Total(), s.ErrorSample)
			}
			lat[s.WriteConcern] = s.Latency.Mean
			checkHostPools(t, s)
		}
		added := lat["majority"] - lat["1"]
		t.Logf("writes at C=2: w:1 %.1f ms, w:majority %.1f ms (+%.1f ms; repl_lag 50 ms + apply 10 ms)", lat["1"], lat["majority"], added)
		if added < 45 || added > 150 {
			t.Errorf("w:majority added %.1f ms to a write; repl_lag and the apply add 60 ms", added)
		}
	})

	t.Run("compare w1 majority", func(t *testing.T) {
		if writes == nil {
			t.Skip("no write sweep")
		}
		code, stdout, stderr := runCLI(t, "compare", writes.Path, "--baseline", "w1", "--candidate", "majority")
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		for _, want := range []string{"baseline:  ", "write concern w:1", "candidate: ", "write concern w:majority", "update C=2", "write latency", "verdict:"} {
			if !strings.Contains(stdout, want) {
				t.Errorf("compare output lacks %q:\n%s", want, stdout)
			}
		}
		code, _, stderr = runCLI(t, "compare", writes.Path, "--baseline", "w1", "--candidate", "nearest")
		if code != 2 || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "--baseline") {
			t.Errorf("two axes: exit %d, stderr %q; want 2 and one line naming --baseline", code, stderr)
		}
	})
}

// checkHostPools checks a replica-set step's pools per member against
// the step's own totals: one pool per member, whose connections add up
// to what the driver opened.
func checkHostPools(t *testing.T, s results.StepResult) {
	t.Helper()
	if len(s.Pool.Hosts) != 3 {
		t.Fatalf("%s: pools to %d hosts, want one per member (3): %+v", s.Workload, len(s.Pool.Hosts), s.Pool.Hosts)
	}
	open, roles := 0, map[string]int{}
	for _, h := range s.Pool.Hosts {
		open += h.ConnectionsOpen
		roles[h.Role]++
		// The pre-warm fills every member's pool, whichever the reads go
		// to: none opens connections inside the window.
		if want := min(s.Concurrency, s.MaxPoolSize) * s.Clients; h.ConnectionsOpen < want {
			t.Errorf("%s %s (%s): %d connections at window start, the pre-warm's %d not reached", s.Workload, h.Host, h.Role, h.ConnectionsOpen, want)
		}
		if h.InUseMax > s.MaxPoolSize*s.Clients {
			t.Errorf("%s %s: %d in use, more than maxPoolSize %d", s.Workload, h.Host, h.InUseMax, s.MaxPoolSize)
		}
	}
	if open != s.Connections {
		t.Errorf("%s: %d connections per host add up to %d, the step opened %d", s.Workload, open, open, s.Connections)
	}
	if roles["primary"] != 1 || roles["secondary"] != 2 {
		t.Errorf("%s: roles %v, want a primary and 2 secondaries", s.Workload, roles)
	}
}

func TestReplSetAxesRefusedOnStandalone(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a simulator")
	}
	uri, _ := startServe(t, "--sim", "slots=2,service=1ms")
	for _, flag := range []string{"--read-preference", "--write-concern"} {
		value := "nearest"
		if flag == "--write-concern" {
			value = "majority"
		}
		dir := t.TempDir()
		code, stdout, stderr := runBinary(t, dir, time.Minute, "sweep", "--uri", uri, flag, value, "--concurrency", "1", "--duration", "200ms", "--out", filepath.Join(dir, "out"))
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		last := lines[len(lines)-1]
		if code != 2 || !strings.HasPrefix(last, "poolsweep: "+flag+": ") || !strings.Contains(last, "standalone") {
			t.Errorf("%s against a standalone: exit %d, last line %q; want 2 and one line naming the flag\n%s", flag, code, last, stdout)
		}
		if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
			t.Errorf("%s refused, but made the output directory", flag)
		}
	}
}

// TestReplSetSecondaryFellBehind: with one applier per secondary (100
// writes/s at 10 ms each) and a primary taking 400 w:1 writes/s, each
// secondary's lag grows by about 0.75 s per second (topology/sim/doc.go);
// the step records each secondary's lag from replSetGetStatus and says
// they fell behind, in the record and in the summary.
func TestReplSetSecondaryFellBehind(t *testing.T) {
	res, _ := simSweep(t, "--target", "rs=sim:rs=3,slots=4,service=10ms,repl_writers=1", "--workload", "update", "--write-concern", "1",
		"--concurrency", "16", "--duration", "3s", "--warmup", "300ms", "--no-plot")
	s := res.Steps[0]
	if s.Server == nil || len(s.Server.Replication) != 2 {
		t.Fatalf("want the lag of 2 secondaries, got %+v", s.Server)
	}
	// The lag grows by what the primary takes beyond the appliers' 100
	// writes/s: a starved load host that held the writes down near that
	// (the step says so) may leave it short; a quiet one may not.
	short := false
	for _, m := range s.Server.Replication {
		t.Logf("%s: lag %.0f → %.0f ms (max %.0f, %d samples) at %.0f writes/s", m.Host, m.StartMS, m.EndMS, m.MaxMS, m.Samples, s.CallsPerS)
		short = short || !m.FellBehind || m.EndMS-m.StartMS < 1000
	}
	if short && starved(t, s, "a secondary's lag grew less than 1 s") {
		return
	}
	for _, m := range s.Server.Replication {
		if !m.FellBehind || m.EndMS-m.StartMS < 1000 {
			t.Errorf("%s: lag %.0f → %.0f ms, fell_behind %v; the appliers take 100 of %.0f writes/s", m.Host, m.StartMS, m.EndMS, m.FellBehind, s.CallsPerS)
		}
	}
	if !strings.Contains(strings.Join(s.Warnings, "\n"), "fell behind") {
		t.Errorf("the step's warnings do not say so: %q", s.Warnings)
	}
}
