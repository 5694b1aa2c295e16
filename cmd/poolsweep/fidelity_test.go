package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The fidelity proofs, end to end through the CLI against simulators
// that answer as real servers of their version do. The simulator runs as
// poolsweep serve, and the sweep is given its URI, as a user's real server
// would be: the sweep does not know it started it.

// TestSimShardedBoundNamesShard: routers that answer as a real 7.0 mongos
// (no tickets, no queue, no global lock) in front of two shards of 4
// slots. Past the knee (8) the steps are labelled server, naming the shard
// whose read tickets ran out, from its primary's own serverStatus, sampled
// behind the routers. (Before shard sampling, main labelled the same steps
// client, none or by client inference: the routers say nothing.)
func TestSimShardedBoundNamesShard(t *testing.T) {
	t.Parallel() // labels from the server's own counters; a starved host is excused by its evidence
	uri, _ := startServe(t, "--sim", "version=7.0,shards=2,slots=4,service=2ms,routers=2")
	res, _ := simSweep(t, "--target", "sharded="+uri, "--concurrency", "2,16,32", "--warmup", "300ms", "--duration", "1s", "--no-plot")
	logSteps(t, res)
	for _, s := range seriesOf(res, "sharded") {
		tel := s.Server
		if tel == nil || tel.ShardsSampled == nil || !*tel.ShardsSampled || len(tel.ShardHosts) != 2 {
			t.Fatalf("C=%d: shards not sampled: %+v", s.Concurrency, tel)
		}
		for name, sh := range tel.ShardHosts {
			if r := sh.Sample.Tickets.Side(true); r == nil || r.Total == nil || *r.Total != 4 || !strings.HasPrefix(sh.Sample.Version, "7.0") {
				t.Errorf("C=%d: %s (%s): tickets %+v, version %q: want 4 read tickets of a 7.0 server", s.Concurrency, name, sh.Host, r, sh.Sample.Version)
			}
		}
		for h, hs := range tel.Hosts {
			if hs.Tickets != nil || hs.Queue != nil || hs.ConnPool == nil {
				t.Errorf("C=%d: router %s: tickets %+v, queue %+v, pool %+v: a mongos has no tickets or queue, and pools to its shards", s.Concurrency, h, hs.Tickets, hs.Queue, hs.ConnPool)
			}
		}
		if s.Concurrency < 16 {
			continue
		}
		named := s.Bound == "server" && strings.HasPrefix(s.BoundReason, "shard shard") && strings.Contains(s.BoundReason, "read tickets exhausted")
		if !named && !starved(t, s, fmt.Sprintf("labelled %s (%s)", s.Bound, s.BoundReason)) {
			t.Errorf("C=%d past the knee: bound %s (%s), want server naming the shard's read tickets", s.Concurrency, s.Bound, s.BoundReason)
		}
	}
}

// TestSimWriteBoundByWriteTickets: a standalone with 16 read and 2 write
// tickets under an update workload is held by its write tickets, at 6.0
// (a fixed pool: none available) and 8.0 (sized to the load: judged by its
// queue), and the verdict says so by side. (main summed both sides and
// labelled these steps by the global lock's queue.)
func TestSimWriteBoundByWriteTickets(t *testing.T) {
	t.Parallel() // labels from the server's own counters; a starved host is excused by its evidence
	for _, v := range []string{"6.0", "8.0"} {
		// One after the other in this test's slot: parallel subtests
		// would wait for a slot behind every other parallel test.
		t.Run(v, func(t *testing.T) {
			uri, _ := startServe(t, "--sim", "version="+v+",read_slots=16,write_slots=2,service=2ms")
			res, _ := simSweep(t, "--target", "w="+uri, "--workload", "update", "--concurrency", "1,8,32",
				"--warmup", "300ms", "--duration", "1s", "--no-plot")
			logSteps(t, res)
			for _, s := range seriesOf(res, "w") {
				tk := s.Server.Total.Tickets
				if tk.Side(false) == nil || tk.Side(true) == nil || *tk.Side(false).Total != 2 || *tk.Side(true).Total != 16 {
					t.Fatalf("C=%d: tickets %+v / %+v: want 2 write and 16 read tickets, apart", s.Concurrency, tk.Side(false), tk.Side(true))
				}
				if s.Concurrency < 8 {
					continue
				}
				want := "write tickets exhausted"
				if v == "8.0" {
					want += ", "
				}
				ok := s.Bound == "server" && strings.HasPrefix(s.BoundReason, want)
				if v == "8.0" {
					ok = ok && strings.Contains(s.BoundReason, "sizes its tickets to the load")
				}
				if !ok && !starved(t, s, fmt.Sprintf("labelled %s (%s)", s.Bound, s.BoundReason)) {
					t.Errorf("C=%d: bound %s (%s), want server by the write tickets", s.Concurrency, s.Bound, s.BoundReason)
				}
			}
		})
	}
}

// TestSimShardSamplingOff: --no-shard-sampling samples the routers only;
// every step says so, and the summary says it once.
func TestSimShardSamplingOff(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("sweeps the simulator")
	}
	uri, _ := startServe(t, "--sim", "version=7.0,shards=2,slots=4,service=2ms")
	dir := t.TempDir()
	out := dir + "/out"
	code, stdout, stderr := runBinary(t, dir, 2*time.Minute, "sweep", "--target", "c="+uri, "--concurrency", "2,4",
		"--warmup", "200ms", "--duration", "700ms", "--records", "500", "--no-plot", "--no-shard-sampling", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	res := readRes(t, out+"/results.jsonl")
	for _, s := range res.Steps {
		if s.Server == nil || s.Server.ShardsSampled == nil || *s.Server.ShardsSampled || len(s.Server.ShardHosts) != 0 ||
			!strings.Contains(s.Server.ShardsNotSampled, "--no-shard-sampling") {
			t.Errorf("C=%d: %+v: want shards_sampled false because of --no-shard-sampling", s.Concurrency, s.Server)
		}
	}
	if n := strings.Count(stdout, "shards not sampled: --no-shard-sampling"); n != 1 {
		t.Errorf("the summary says it %d times, want once:\n%s", n, stdout)
	}
}
