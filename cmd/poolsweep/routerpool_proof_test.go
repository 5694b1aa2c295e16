package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/analysis/bound"
	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// A cluster bound by its router's pools, by construction: three shards
// of 8 slots at 20 ms could carry 1,200 ops/s, but the one router holds at
// most 2 connections to each shard host (one pool, MaxSize 2), so it
// carries 2 / 20 ms = 100 ops/s per shard host, 300 in all, and loses to
// a standalone of 8 slots (400 ops/s). The long service time keeps both
// rates low enough that a busy 2-core load host still offers them.
const (
	rpStandalone = "slots=8,service=20ms"
	rpCluster    = "shards=3,slots=8,service=20ms,router_pool_max=2,router_max_connecting=1"
	// rpAxisCluster is rpCluster at a lower capacity (50-ms ops), so that
	// 16 connections' 320 ops/s, not a busy load host, bound the faster
	// side of the within-run comparison.
	rpAxisCluster = "shards=3,slots=8,service=50ms,router_pool_max=2,router_max_connecting=1"
	rpMaxSize     = "ShardingTaskExecutorPoolMaxSize"
)

// rpConstruction is the cluster's ops/s by construction: per shard host
// the routers' pool limit over the service time, times the shards.
func rpConstruction(t *testing.T, cluster string) float64 {
	t.Helper()
	spec, err := sim.ParseSpec(cluster)
	if err != nil {
		t.Fatal(err)
	}
	return float64(spec.Shards) * spec.RouterPoolLimit() / spec.Service.Seconds()
}

// routerConnPool is the step's one router's connPoolStats as sampled.
func routerConnPool(s *results.StepResult) *results.ConnPoolCounts {
	if s.Server == nil {
		return nil
	}
	for _, h := range s.Server.Hosts {
		if h != nil && h.ConnPool != nil && len(h.ConnPool.ShardHosts) > 0 {
			return h.ConnPool
		}
	}
	return nil
}

// inUse words the busiest pool's connections in use to each shard host.
func inUse(cp *results.ConnPoolCounts) string {
	var parts []string
	for host, h := range cp.ShardHosts {
		if h.BusiestInUse != nil {
			parts = append(parts, fmt.Sprintf("%s %.1f", host, *h.BusiestInUse))
		}
	}
	slices.Sort(parts)
	return "in use " + strings.Join(parts, ", ")
}

// poolEvidence checks that step, past a router-pool-bound cluster's
// knee, is labelled router_pool with evidence holding want, and says
// whether it was. A step labelled client because this busy host kept
// the load from the CPU (judged first when the server shares the host)
// is judged again by the same rules as for a server elsewhere: its
// router's pools must then be what bound it, not a shard.
func poolEvidence(t *testing.T, s *results.StepResult, want string) bool {
	t.Helper()
	b, why := s.Bound, s.BoundReason
	labelled := b == bound.BoundRouterPool
	if b == bound.BoundClient && strings.HasPrefix(why, "load host CPU contended") {
		b, why = bound.DefaultClassifier().Classify(s, nil)
	}
	if b != bound.BoundRouterPool || !strings.Contains(why, want) {
		t.Errorf("C=%d trial %d: bound %s (%s), want router_pool with %q", s.Concurrency, s.Trial, b, why, want)
	}
	return labelled
}

// TestRouterPoolBoundClusterProof: a cluster whose router's pools to the
// shards are small loses to a standalone it would beat on its shards'
// capacity; its peak is the construction's m·t/s per shard host within
// 10 %; the router's connPoolStats, as sampled live each step, list one
// pool per shard host, full at the MaxSize that getParameter read; the
// steps past the knee are labelled router_pool with that evidence unless
// the load host was contended (and then by the same rules as for a server
// elsewhere); and the verdict, where one label holds most steps near the
// peak, names router_pool.
func TestRouterPoolBoundClusterProof(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, errText := runBinary(t, dir, 4*time.Minute, "sweep", "--target", "standalone=sim:"+rpStandalone,
		"--target", "sharded=sim:"+rpCluster, "--concurrency", "8,16,32,64", "--trials", "2", "--warmup", "300ms",
		"--duration", "1s", "--workload", "read", "--records", "50", "--no-plot", "--out", out)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, errText)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	routerPool, contended := 0, 0
	labels := map[int][]string{} // the sharded steps' bounds by concurrency
	for _, s := range res.Steps {
		if s.Target != "sharded" {
			continue
		}
		cp := routerConnPool(&s)
		if cp == nil || cp.Settings == nil || len(cp.ShardHosts) != 3 {
			t.Fatalf("C=%d trial %d: the router's pools were not sampled per shard host: %+v", s.Concurrency, s.Trial, cp)
		}
		if m, ok := cp.Settings.MaxSizeLimit(); !ok || m != 2 || cp.Settings.MaxConnecting == nil || *cp.Settings.MaxConnecting != 1 {
			t.Errorf("C=%d trial %d: settings read %+v, want MaxSize 2 and MaxConnecting 1", s.Concurrency, s.Trial, cp.Settings)
		}
		full := 0
		for host, h := range cp.ShardHosts {
			if h.Pools == nil || *h.Pools != 1 || h.BusiestInUse == nil || h.InUse == nil || h.Available == nil {
				t.Fatalf("C=%d trial %d: pool to %s not reported per pool: %+v", s.Concurrency, s.Trial, host, h)
			}
			if *h.BusiestInUse > 2.001 || *h.InUse+*h.Available > 2.001 {
				t.Errorf("C=%d trial %d: %s holds %.1f in use, %.1f idle: more than MaxSize 2", s.Concurrency, s.Trial, host, *h.InUse, *h.Available)
			}
			if *h.BusiestInUse >= 1.9 {
				full++
			}
		}
		// At 16 to 64 connections, 5 to 21 for each shard host on
		// average, the ops queue for a pool of 2: the busiest is full.
		// (Not each: in a closed loop the ops gather at whichever host
		// is behind, and leave the others short of waiters at times.)
		if s.Concurrency >= 16 && full == 0 {
			t.Errorf("C=%d trial %d: no pool full: %s", s.Concurrency, s.Trial, inUse(cp))
		}
		t.Logf("C=%d trial %d: %.0f ops/s, %s, %s", s.Concurrency, s.Trial, s.OpsPerS, inUse(cp), s.Bound)
		labels[s.Concurrency] = append(labels[s.Concurrency], s.Bound)
		if s.Concurrency < 16 {
			continue
		}
		if poolEvidence(t, &s, "busiest of 1 task-executor pools against "+rpMaxSize+" 2") {
			routerPool++
		} else {
			contended++
		}
	}

	code, stdout, errText := runBinary(t, dir, time.Minute, "analyze", filepath.Join(out, "results.jsonl"), "--format", "json")
	if code != 0 {
		t.Fatalf("analyze: exit %d\n%s", code, errText)
	}
	type peakBound struct {
		Bound string `json:"bound"`
		Steps int    `json:"steps"`
		Of    int    `json:"of"`
	}
	var doc struct {
		Curves []struct {
			Baseline  string `json:"baseline"`
			Candidate string `json:"candidate"`
			Peaks     struct {
				Candidate struct {
					Concurrency int                     `json:"concurrency"`
					OpsPerS     struct{ Value float64 } `json:"ops_per_s"`
				} `json:"candidate"`
			} `json:"peaks"`
			PeakRatio struct{ Value float64 } `json:"peak_ratio"`
			PeakBound *struct {
				Candidate *peakBound `json:"candidate"`
			} `json:"peak_bound"`
			Verdict string `json:"verdict"`
		} `json:"curves"`
		RouterPools []struct {
			InUsePerPool *float64 `json:"in_use_per_pool"`
			MaxSize      *float64 `json:"max_size"`
		} `json:"router_pools"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("analyze json: %v\n%s", err, stdout)
	}
	if len(doc.Curves) != 1 || doc.Curves[0].Baseline != "standalone" || doc.Curves[0].Candidate != "sharded" {
		t.Fatalf("analyze compared %+v, want sharded against standalone", doc.Curves)
	}
	c := doc.Curves[0]
	if c.PeakRatio.Value >= 1 {
		t.Errorf("sharded carries %.2f× standalone's peak: it should lose (%s)", c.PeakRatio.Value, c.Verdict)
	}
	want, got := rpConstruction(t, rpCluster), c.Peaks.Candidate.OpsPerS.Value
	t.Logf("sharded peak %.0f ops/s (%.1f per shard host), construction %.0f (%.1f): %+.1f%%; %.2f× standalone; %d steps router_pool, %d contended",
		got, got/3, want, want/3, 100*(got/want-1), c.PeakRatio.Value, routerPool, contended)
	if got < 0.9*want || got > 1.1*want {
		t.Errorf("sharded peak %.0f ops/s, want the construction's %.0f within 10%%", got, want)
	}
	// The verdict's reason is the label more than half the steps at the
	// peak's level and either side carry. Where this busy host left the
	// contended steps (client) as many as the router_pool ones, it rightly
	// names nothing, or the load host.
	t.Logf("verdict: %s", c.Verdict)
	var pb *peakBound
	if c.PeakBound != nil {
		pb = c.PeakBound.Candidate
	}
	levels := []int{8, 16, 32, 64}
	i := slices.Index(levels, c.Peaks.Candidate.Concurrency)
	if i < 0 {
		t.Fatalf("sharded's peak at C=%d, not a level of the run", c.Peaks.Candidate.Concurrency)
	}
	count, of := map[string]int{}, 0
	for _, l := range levels[max(i-1, 0):min(i+2, len(levels))] {
		for _, b := range labels[l] {
			of++
			count[b]++
		}
	}
	wantBound := ""
	for b, n := range count {
		if b != bound.BoundNone && 2*n > of {
			wantBound = b
		}
	}
	switch {
	case wantBound != bound.BoundRouterPool && wantBound != bound.BoundClient && wantBound != "":
		t.Errorf("near sharded's peak the steps were %v, want router_pool", count)
	case wantBound == "" && pb != nil, wantBound != "" && (pb == nil || pb.Bound != wantBound):
		t.Errorf("near sharded's peak the steps were %v, but the verdict names %+v (%s)", count, pb, c.Verdict)
	case wantBound == bound.BoundRouterPool && !strings.Contains(c.Verdict, "its routers' pools to the shards were full (router_pool,"):
		t.Errorf("peak_bound router_pool, but the verdict does not say it: %s", c.Verdict)
	}
	if len(doc.RouterPools) != 3*8 {
		t.Errorf("analyze lists %d router-pool rows, want one per shard host and step (24)", len(doc.RouterPools))
	}
	for _, r := range doc.RouterPools {
		if r.MaxSize == nil || *r.MaxSize != 2 || r.InUsePerPool == nil || *r.InUsePerPool > 2.001 {
			t.Errorf("router-pool row: in use per pool %v, max size %v; want at most MaxSize 2", r.InUsePerPool, r.MaxSize)
			break
		}
	}
}

// TestRouterPoolMaxSizeAxisProof: on that cluster, --server-param sweeps
// the routers' ShardingTaskExecutorPoolMaxSize within one run: its values
// take turns trial by trial, each step's router telemetry reads the
// step's value, 8 carries more than 2 by the construction's margin,
// compare concludes the gain within the run, and the router's original 2
// is set back after the run, after SIGINT, and by --resume after a kill.
func TestRouterPoolMaxSizeAxisProof(t *testing.T) {
	t.Parallel()
	uri := testsrv.Sim(t, rpAxisCluster).URI()
	c := testsrv.Connect(t, uri)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	axis := []string{"--server-param", rpMaxSize + "=2,8", "--server-param-hosts", "routers"}
	code, _, errText := runBinary(t, dir, 3*time.Minute, append([]string{"sweep", "--uri", uri, "--concurrency", "16", "--pool", "match",
		"--trials", "4", "--warmup", "300ms", "--duration", "2s", "--workload", "read", "--records", "50", "--no-plot", "--out", out}, axis...)...)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, errText)
	}
	if !strings.Contains(errText, "this run sets "+rpMaxSize+" to 2, then 8") {
		t.Errorf("the plan does not say what the run changes:\n%s", errText)
	}
	if got := readParam(t, c, rpMaxSize); got != 2 {
		t.Errorf("after the run %s = %d, want the original 2", rpMaxSize, got)
	}
	if p := pendingParams(t, c); len(p) != 0 {
		t.Errorf("records left not done: %+v", p)
	}
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	if len(res.Steps) != 8 {
		t.Fatalf("%d steps, want 8", len(res.Steps))
	}
	rate := map[string][]float64{}
	contended := 0 // MaxSize 8's steps the tool labelled bound by this busy load host
	for i, s := range res.Steps {
		want := []string{"2", "8"}[i%2]
		if len(s.ServerParams) != 1 || s.ServerParams[0].Value != want || s.Workload != "read "+rpMaxSize+"="+want {
			t.Fatalf("step %d (trial %d): %q %+v, want value %s", i+1, s.Trial, s.Workload, s.ServerParams, want)
		}
		if cp := routerConnPool(&s); cp == nil {
			t.Errorf("step %d: the router's pools were not sampled", i+1)
		} else if m, ok := cp.Settings.MaxSizeLimit(); !ok || want != map[float64]string{2: "2", 8: "8"}[m] {
			t.Errorf("step %d: the router's telemetry read MaxSize %+v, want %s", i+1, cp.Settings, want)
		}
		rate[want] = append(rate[want], s.OpsPerS)
		if want == "8" && s.Bound == bound.BoundClient && strings.HasPrefix(s.BoundReason, "load host CPU contended") {
			contended++
		}
	}
	// MaxSize 2 carries the construction's 120 ops/s at most; MaxSize 8
	// lets 16 connections' ops through (16 / 50 ms = 320 ops/s, the
	// shards' 24 slots not reached): 2.7× by construction, compared
	// loosely since a busy host holds the faster side back the more.
	limit := rpConstruction(t, rpAxisCluster)
	const open = 16 / 0.050
	for i := range rate["2"] {
		if lo, hi := rate["2"][i], rate["8"][i]; lo > 1.1*limit || hi > 1.1*open {
			t.Errorf("trial %d: MaxSize 2 carried %.0f ops/s, 8 %.0f: above the construction's %.0f and %.0f", i+1, lo, hi, limit, open)
		}
	}
	lo, hi := median(rate["2"]), median(rate["8"])
	t.Logf("median ops/s: MaxSize 2 %.0f (construction %.0f), MaxSize 8 %.0f (%.0f): %.2f×", lo, limit, hi, open, hi/lo)
	// The gain, unless the tool's own evidence says the load host held
	// the faster side back: most of its steps labelled client-bound,
	// contended for the CPU (the pools' sizes, read each step above, and
	// the restores below are checked regardless).
	heldBack := contended*2 > len(rate["8"])
	if hi < 1.5*lo && !heldBack {
		t.Errorf("median ops/s: MaxSize 8 %.0f, 2 %.0f: not the construction's gain (2.7×), and %d of its %d steps not labelled client-bound", hi, lo, len(rate["8"])-contended, len(rate["8"]))
	}
	m, stdout := compareOpsWithinRun(t, dir, filepath.Join(out, "results.jsonl"), rpMaxSize+"=2", rpMaxSize+"=8")
	if (!m.Significant || m.DeltaPct == nil || *m.DeltaPct < 50) && !heldBack {
		t.Errorf("compare did not conclude the gain of MaxSize 8 over 2 within the run:\n%s", stdout)
	} else if m.DeltaPct != nil {
		t.Logf("compare: ops/s %+.0f%%, significant %v within the run (%d of MaxSize 8's steps held back by this host)", *m.DeltaPct, m.Significant, contended)
	}

	// SIGINT while 8 is set: the original is set back before the exit.
	base := append([]string{"sweep", "--uri", uri, "--concurrency", "16", "--trials", "2", "--warmup", "100ms", "--duration", "2s",
		"--records", "50", "--no-plot"}, axis...)
	cmd, sc := startSweep(t, append(base, "--out", filepath.Join(dir, "int")))
	waitLine(t, sc, "[1/")
	waitParam(t, c, rpMaxSize, 8)
	cmd.Process.Signal(syscall.SIGINT)
	err := cmd.Wait()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Errorf("after SIGINT: %v, want exit 130", err)
	}
	if got := readParam(t, c, rpMaxSize); got != 2 {
		t.Errorf("after SIGINT %s = %d, want the original 2", rpMaxSize, got)
	}

	// A kill while 8 is set leaves it, with its record; --resume sets the
	// original back before it measures.
	killed := filepath.Join(dir, "kill")
	cmd, sc = startSweep(t, append(base, "--out", killed))
	waitLine(t, sc, "[1/")
	waitParam(t, c, rpMaxSize, 8)
	cmd.Process.Kill()
	cmd.Wait()
	if got := readParam(t, c, rpMaxSize); got != 8 {
		t.Fatalf("after SIGKILL %s = %d: the test needs the killed run's value left", rpMaxSize, got)
	}
	if p := pendingParams(t, c); len(p) != 1 || p[0].Name != rpMaxSize {
		t.Fatalf("after SIGKILL the records not done are %+v, want the one of %s", p, rpMaxSize)
	}
	code, _, errText = runBinary(t, dir, 2*time.Minute, append(base, "--resume", killed)...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, errText)
	}
	if said := strings.Index(errText, rpMaxSize+" on "+testsrv.Host(t, uri)+", changed by this run at "); said < 0 || said > strings.Index(errText, "[1/") {
		t.Errorf("the resumed run did not say, before its first step, that it set the original back:\n%s", errText)
	}
	if got := readParam(t, c, rpMaxSize); got != 2 {
		t.Errorf("after the resumed run %s = %d, want the original 2", rpMaxSize, got)
	}
	if p := pendingParams(t, c); len(p) != 0 {
		t.Errorf("records left not done after --resume: %+v", p)
	}
}

// TestRouterPoolPerPoolTelemetryProof: with two task-executor pools per
// shard host, the router's live connPoolStats are read per pool: two
// pools to each host, at most MaxSize in the busiest and twice that in
// all, taskExecutorPoolSize read by getParameter. The shards, 8 slots
// behind 4 connections each, never queue, so the steps are the routers'
// pools' (router_pool, "busiest of 2 task-executor pools"), never a
// shard's, and the cluster carries the construction's 2·2/20 ms per shard
// host at most.
func TestRouterPoolPerPoolTelemetryProof(t *testing.T) {
	t.Parallel()
	const spec = "shards=3,slots=8,service=20ms,router_pools=2,router_pool_max=2,router_max_connecting=1"
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	code, _, errText := runBinary(t, dir, 3*time.Minute, "sweep", "--target", "sharded=sim:"+spec, "--concurrency", "32",
		"--trials", "3", "--warmup", "300ms", "--duration", "1s", "--workload", "read", "--records", "50", "--no-plot", "--out", out)
	if code != 0 {
		t.Fatalf("sweep: exit %d\n%s", code, errText)
	}
	parsed, err := sim.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	limit := float64(parsed.Shards) * parsed.RouterPoolLimit() / parsed.Service.Seconds()
	res := readRes(t, filepath.Join(out, "results.jsonl"))
	for _, s := range res.Steps {
		cp := routerConnPool(&s)
		if cp == nil || cp.Settings == nil || cp.Settings.PoolSize == nil || *cp.Settings.PoolSize != 2 || len(cp.ShardHosts) != 3 {
			t.Fatalf("trial %d: the router's pools not sampled per host with taskExecutorPoolSize 2: %+v", s.Trial, cp)
		}
		full := 0
		for host, h := range cp.ShardHosts {
			if h.Pools == nil || *h.Pools != 2 || h.BusiestInUse == nil || h.InUse == nil {
				t.Fatalf("trial %d: %s not read per pool: %+v", s.Trial, host, h)
			}
			if *h.BusiestInUse > 2.001 || *h.InUse > 4.001 {
				t.Errorf("trial %d: %s: %.1f in use in the busiest pool, %.1f in all: more than MaxSize 2 per pool", s.Trial, host, *h.BusiestInUse, *h.InUse)
			}
			if *h.BusiestInUse >= 1.9 {
				full++
			}
		}
		if full == 0 {
			t.Errorf("trial %d: no pool full at 32 connections: %s", s.Trial, inUse(cp))
		}
		for name, sh := range s.Server.ShardHosts {
			if sh == nil || sh.Sample == nil || sh.Sample.Tickets == nil || sh.Sample.Tickets.Read == nil || sh.Sample.Tickets.Read.Queued == nil {
				t.Fatalf("trial %d: shard %s's read queue not sampled", s.Trial, name)
			}
			if q := *sh.Sample.Tickets.Read.Queued; q > 0 {
				t.Errorf("trial %d: shard %s reports %.1f queued behind 4 connections to 8 slots", s.Trial, name, q)
			}
		}
		t.Logf("trial %d: %.0f ops/s (construction %.0f), %s, %s", s.Trial, s.OpsPerS, limit, inUse(cp), s.Bound)
		if s.OpsPerS > 1.1*limit {
			t.Errorf("trial %d: %.0f ops/s, above the construction's %.0f", s.Trial, s.OpsPerS, limit)
		}
		poolEvidence(t, &s, "busiest of 2 task-executor pools against "+rpMaxSize+" 2")
	}
}
