package sim

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// rawParam is a setParameter value as the command carries it.
func rawParam(t *testing.T, v any) bson.RawValue {
	t.Helper()
	b, err := bson.Marshal(bson.D{{Key: "v", Value: v}})
	if err != nil {
		t.Fatal(err)
	}
	return bson.Raw(b).Lookup("v")
}

// insertOne sends one insert through f, which a router routes to shard 0.
func insertOne(t *testing.T, f *frontend, id any) {
	t.Helper()
	wantOK(t, runCmd(t, f, "rp", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: id}}}}}, nil))
}

// docKeys is a document's field names, or nil when v is not a document.
func docKeys(v bson.RawValue) []string {
	doc, ok := v.DocumentOK()
	if !ok {
		return nil
	}
	elems, _ := doc.Elements()
	var out []string
	for _, e := range elems {
		out = append(out, e.Key())
	}
	return out
}

// splitPool parts a pool document's own counts from its hosts (the
// fields whose value is a document).
func splitPool(t *testing.T, pool bson.Raw) (counts []string, hosts []bson.RawValue) {
	t.Helper()
	elems, err := pool.Elements()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range elems {
		if e.Value().Type == bson.TypeEmbeddedDocument {
			hosts = append(hosts, e.Value())
			continue
		}
		if e.Value().Type != bson.TypeInt32 {
			t.Errorf("pool field %s is %s, want int32 as appendNumber writes a count that fits", e.Key(), e.Value().Type)
		}
		counts = append(counts, e.Key())
	}
	return counts, hosts
}

// TestRouterPoolConnPoolStatsShape holds a router's pools sub-documents
// to the manual's of each version (testdata/servers): the same pool and
// host fields, int32; the pool named as a mongos names its executors'
// pools; and pools, hosts and totals telling the same counts.
func TestRouterPoolConnPoolStatsShape(t *testing.T) {
	files := corpusFiles(t)
	for _, v := range versions {
		t.Run(v.name, func(t *testing.T) {
			ref, ok := pickFile(files, "connPoolStats", "mongos", v.name, "", "standalone")
			if !ok || !ref.Manual() {
				t.Fatalf("no manual connPoolStats for mongos %s", v.name)
			}
			real := loadReply(t, ref.Name)
			realPools := real.Lookup("pools").Document()
			realPool := realPools.Index(0).Value().Document()
			wantCounts, wantHosts := splitPool(t, realPool)
			wantHost := docKeys(wantHosts[0])

			f := startAlone(t, "shards=2,service=0s,router_pools=3,version="+v.name).fronts[0]
			for i := range 4 {
				insertOne(t, f, i) // _id 0..3: both shards, executors in turn
			}
			sim := runCmd(t, f, "admin", bson.D{{Key: "connPoolStats", Value: 1}}, nil)
			pools := sim.Lookup("pools").Document()
			elems, _ := pools.Elements()
			if len(elems) == 0 {
				t.Fatalf("no pools after 4 routed ops: %v", sim)
			}
			var sumCreated int32
			for _, e := range elems {
				if !strings.HasPrefix(e.Key(), "NetworkInterfaceTL-TaskExecutorPool-") {
					t.Errorf("pool %s: want NetworkInterfaceTL-TaskExecutorPool-N", e.Key())
				}
				counts, hosts := splitPool(t, e.Value().Document())
				if !sameSet(counts, wantCounts) {
					t.Errorf("pool %s has %v, the manual's %v", e.Key(), counts, wantCounts)
				}
				for _, h := range hosts {
					if !sameSet(docKeys(h), wantHost) {
						t.Errorf("pool %s host has %v, the manual's %v", e.Key(), docKeys(h), wantHost)
					}
					sumCreated += h.Document().Lookup("created").Int32()
				}
			}
			hostsDoc := sim.Lookup("hosts").Document()
			hostElems, _ := hostsDoc.Elements()
			var hostCreated int32
			for _, h := range hostElems {
				if !sameSet(docKeys(h.Value()), wantHost) {
					t.Errorf("hosts.%s has %v, the manual's %v", h.Key(), docKeys(h.Value()), wantHost)
				}
				hostCreated += h.Value().Document().Lookup("created").Int32()
			}
			total := sim.Lookup("totalCreated").Int32()
			if sumCreated != total || hostCreated != total {
				t.Errorf("created: pools %d, hosts %d, totalCreated %d; want equal", sumCreated, hostCreated, total)
			}
		})
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

// TestRouterPoolUnusedPoolNotListed: a pool that never opened a
// connection is not in connPoolStats (4.2 opens none at start), and ops
// spread over the executors in turn.
func TestRouterPoolUnusedPoolNotListed(t *testing.T) {
	f := startAlone(t, "shards=1,service=0s,router_pools=4,version=4.2").fronts[0]
	st := runCmd(t, f, "admin", bson.D{{Key: "connPoolStats", Value: 1}}, nil)
	if n := len(docKeys(st.Lookup("pools"))); n != 0 {
		t.Fatalf("a 4.2 router lists %d pools before any op; it opens none at start", n)
	}
	insertOne(t, f, 1)
	insertOne(t, f, 2)
	st = runCmd(t, f, "admin", bson.D{{Key: "connPoolStats", Value: 1}}, nil)
	if got := docKeys(st.Lookup("pools")); !slices.Equal(got, []string{"NetworkInterfaceTL-TaskExecutorPool-0", "NetworkInterfaceTL-TaskExecutorPool-1"}) {
		t.Fatalf("after 2 ops, pools %v: want executors 0 and 1, in turn", got)
	}
}

// TestRouterPoolParams reads and sets the routers' pool parameters
// through the server's parameter table, as getParameter and setParameter
// do: on routers only, the version's defaults, runtime-settable from 4.2
// (taskExecutorPoolSize never), and the server's refusals.
func TestRouterPoolParams(t *testing.T) {
	names := []string{"taskExecutorPoolSize", "ShardingTaskExecutorPoolMaxSize", "ShardingTaskExecutorPoolMinSize",
		"ShardingTaskExecutorPoolMaxConnecting", "ShardingTaskExecutorPoolHostTimeoutMS"}
	d := startAlone(t, "shards=1,service=0s,router_pools=3,version=8.0")
	router, shard := d.fronts[0], d.shardFronts[0]
	want := map[string]int32{"taskExecutorPoolSize": 3, "ShardingTaskExecutorPoolMaxSize": 32767, "ShardingTaskExecutorPoolMinSize": 1,
		"ShardingTaskExecutorPoolMaxConnecting": 2, "ShardingTaskExecutorPoolHostTimeoutMS": 300000}
	for _, n := range names {
		p := lookupParam(router, n)
		if p == nil {
			t.Fatalf("%s: not a router's parameter", n)
		}
		if lookupParam(shard, n) != nil {
			t.Errorf("%s: a mongod has it; it is a mongos parameter", n)
		}
		if got := p.get(router); got != want[n] {
			t.Errorf("%s = %v (%T), want int32 %d", n, got, got, want[n])
		}
		if p.runtime != (n != "taskExecutorPoolSize") {
			t.Errorf("%s: runtime %v; only taskExecutorPoolSize is startup-only", n, p.runtime)
		}
	}
	set := func(name string, v any) error {
		return lookupParam(router, name).set(router, rawParam(t, v))
	}
	if err := set("ShardingTaskExecutorPoolMaxSize", int32(8)); err != nil {
		t.Fatal(err)
	}
	if err := set("ShardingTaskExecutorPoolMaxConnecting", int64(4)); err != nil {
		t.Fatal(err)
	}
	if err := set("ShardingTaskExecutorPoolMinSize", 0.0); err != nil {
		t.Fatal(err)
	}
	if err := set("ShardingTaskExecutorPoolHostTimeoutMS", int32(90000)); err != nil {
		t.Fatal(err)
	}
	for n, v := range map[string]int32{"ShardingTaskExecutorPoolMaxSize": 8, "ShardingTaskExecutorPoolMaxConnecting": 4,
		"ShardingTaskExecutorPoolMinSize": 0, "ShardingTaskExecutorPoolHostTimeoutMS": 90000} {
		if got := lookupParam(router, n).get(router); got != v {
			t.Errorf("after setParameter %s = %v, want %d", n, got, v)
		}
	}
	for _, c := range []struct {
		name string
		v    any
		want string
	}{
		{"ShardingTaskExecutorPoolMaxSize", int32(0), "is not greater than or equal to 1"},
		{"ShardingTaskExecutorPoolMinSize", int32(-1), "is not greater than or equal to 0"},
		{"ShardingTaskExecutorPoolMaxConnecting", "4", "a number is required"},
		{"ShardingTaskExecutorPoolHostTimeoutMS", int32(1000), "set below ShardingTaskExecutorPoolRefreshRequirementMS"},
		{"ShardingTaskExecutorPoolMaxSize", int64(1) << 40, "out of range"},
	} {
		err := set(c.name, c.v)
		var ce *cmdError
		if !errors.As(err, &ce) || ce.Code != 2 || !strings.Contains(ce.Msg, c.want) {
			t.Errorf("setParameter %s=%v: %v, want BadValue %q", c.name, c.v, err, c.want)
		}
	}

	// 4.0: MaxSize unlimited (-1), and the parameters are startup-only.
	old := startAlone(t, "shards=1,service=0s,version=4.0").fronts[0]
	if got := lookupParam(old, "ShardingTaskExecutorPoolMaxSize").get(old); got != int32(-1) {
		t.Errorf("4.0 ShardingTaskExecutorPoolMaxSize = %v, want -1 (unlimited)", got)
	}
	err := lookupParam(old, "ShardingTaskExecutorPoolMaxSize").set(old, rawParam(t, int32(4)))
	if err == nil || !strings.Contains(err.Error(), "not allowed to change [ShardingTaskExecutorPoolMaxSize] at runtime") {
		t.Errorf("4.0 setParameter MaxSize: %v, want refused at runtime", err)
	}
}

// TestRouterPoolMaxConnecting: a router opens at most MaxConnecting
// connections to a shard at once, each paying the shard's setup
// (setup_latency), so 8 ops arriving at once on an empty pool get their
// connections in waves of C (with C = 2 the first ops' connections are
// handed on as they finish: ops 7 and 8 start at the third setup at the
// earliest). The lower bounds hold by construction on any host; the
// comparison says C changes them.
func TestRouterPoolMaxConnecting(t *testing.T) {
	const setup, service, n = 100 * time.Millisecond, 200 * time.Millisecond, 8
	burst := func(spec string) time.Duration {
		f := startAlone(t, spec).fronts[0]
		ctx := context.Background()
		start := time.Now()
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				if err := f.onShard(ctx, 0, kindRead, func(*store) {}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	base := fmt.Sprintf("shards=1,slots=64,service=%s,setup_latency=%s,router_pool_min=0,version=8.0", service, setup)
	two := burst(base + ",router_max_connecting=2")
	eight := burst(base + ",router_max_connecting=8")
	t.Logf("8 ops on an empty pool: maxConnecting 2 %s, 8 %s", two, eight)
	if low := 3*setup + service; two < low*95/100 {
		t.Errorf("maxConnecting 2: %s, below the %s three waves of setup take", two, low)
	}
	if low := setup + service; eight < low*95/100 {
		t.Errorf("maxConnecting 8: %s, below one setup and service, %s", eight, low)
	}
	if two < eight+setup {
		t.Errorf("maxConnecting 2 took %s, 8 took %s: want about 2 setups (%s) longer", two, eight, 2*setup)
	}
}

// TestRouterPoolHostTimeout: a 4.4+ router opens MinSize connections to
// each shard host as it starts; a pool idle for the host timeout is
// dropped whole (MinSize ones too) and the shard's connections close; the
// next op makes the pool again at MinSize.
func TestRouterPoolHostTimeout(t *testing.T) {
	const timeout = 600 * time.Millisecond
	d := startAlone(t, fmt.Sprintf("shards=1,service=0s,router_pool_min=3,router_host_timeout=%s,version=8.0", timeout))
	f, sf := d.fronts[0], d.shardFronts[0]
	created := func() int32 {
		st := runCmd(t, f, "admin", bson.D{{Key: "connPoolStats", Value: 1}}, nil)
		h, err := st.LookupErr("hosts", d.shards[0].host, "created")
		if err != nil {
			return 0
		}
		return h.Int32()
	}
	current := func() int32 {
		st := runCmd(t, sf, "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
		return st.Lookup("connections", "current").Int32()
	}
	start := time.Now()
	if c, cur := created(), current(); c != 3 || cur < 3 {
		t.Fatalf("at start: created %d, the shard's current %d; want MinSize 3 opened", c, cur)
	}
	for created() != 0 {
		if time.Since(start) > 10*time.Second {
			t.Fatal("the idle pool was not dropped within 10s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if el := time.Since(start); el < timeout {
		t.Errorf("the pool was dropped after %s, before its host timeout %s", el, timeout)
	}
	if cur := current(); cur != 0 {
		t.Errorf("after the drop the shard has %d connections; the router's should be closed", cur)
	}
	insertOne(t, f, 1)
	if c := created(); c != 3 {
		t.Errorf("after one op the pool has created %d; want MinSize 3 again", c)
	}
}

// TestRouterPoolBoundThroughput is the construction's ground truth with
// the Go driver: with MaxSize m and taskExecutorPoolSize t a router
// carries at most m·t/s ops/s to a shard host of service time s, though
// the shard's slots allow far more; raising MaxSize at run time (as
// setParameter does) raises the bound with it.
func TestRouterPoolBoundThroughput(t *testing.T) {
	if testing.Short() {
		t.Skip("closed loops for ~3 s")
	}
	d := startSim(t, "shards=1,slots=64,service=10ms,router_slots=256,router_pools=2,router_pool_max=3")
	loadKeys(t, d.URI())
	check := func(m int) {
		t.Helper()
		want := float64(2*m) / (10 * time.Millisecond).Seconds()
		l := closedLoop(t, d.URI(), 48, 300*time.Millisecond, time.Second)
		t.Logf("MaxSize %d × 2 pools / 10ms: %.0f ops/s, construction %.0f (%.2f); load host: %s", m, l.opsPerS, want, l.opsPerS/want, hostSummary(l))
		if l.opsPerS > 1.1*want {
			t.Errorf("MaxSize %d: %.0f ops/s, above the pools' bound %.0f", m, l.opsPerS, want)
		}
		if l.opsPerS < 0.9*want && !l.excused(t, fmt.Sprintf("%.0f ops/s below %.0f", l.opsPerS, want)) {
			t.Errorf("MaxSize %d: %.0f ops/s, want the pools' bound %.0f within 10%%", m, l.opsPerS, want)
		}
	}
	if got := d.Spec().Throughput(48, 1); got != 600 {
		t.Errorf("the model's throughput at 48 is %.0f, want m·t/s = 600", got)
	}
	check(3)
	r := d.fronts[0]
	if err := lookupParam(r, "ShardingTaskExecutorPoolMaxSize").set(r, rawParam(t, int32(6))); err != nil {
		t.Fatal(err)
	}
	check(6)
}

// TestRouterPoolSpec: the router_* pool keys parse, print back and are
// refused where they mean nothing or are out of range.
func TestRouterPoolSpec(t *testing.T) {
	s, err := ParseSpec("shards=2,router_pools=4,router_pool_max=8,router_pool_min=0,router_max_connecting=3,router_host_timeout=90s")
	if err != nil {
		t.Fatal(err)
	}
	if s.RouterPools != 4 || s.RouterPoolMax != 8 || s.RouterPoolMin != 0 || !s.RouterPoolMinSet || s.RouterMaxConnecting != 3 || s.RouterHostTimeout != 90*time.Second {
		t.Fatalf("parsed %+v", s)
	}
	back, err := ParseSpec(s.String())
	if err != nil || back != s {
		t.Fatalf("%s parses back to %+v, %v", s, back, err)
	}
	if got := s.RouterPoolLimit(); got != 1*4*8 {
		t.Errorf("RouterPoolLimit = %v, want routers·t·m = 32", got)
	}
	plain, _ := ParseSpec("shards=2")
	if strings.Contains(plain.String(), "router_pool") {
		t.Errorf("a spec without the keys prints them: %s", plain)
	}
	for spec, want := range map[string]string{
		"router_pools=2":                      "need shards=N",
		"shards=1,router_pools=0":             "router_pools=0: must be at least 1",
		"shards=1,router_pools=65":            "router_pools=65: must be between 1 and 64",
		"shards=1,router_pool_max=0":          "router_pool_max=0: must be at least 1",
		"shards=1,router_pool_min=-1":         "router_pool_min=-1: must be between 0",
		"shards=1,router_max_connecting=x":    "router_max_connecting=x: not an integer",
		"shards=1,router_host_timeout=0s":     "router_host_timeout=0: must be at least 1",
		"shards=1,router_host_timeout=1500us": "must be whole milliseconds",
	} {
		_, err := ParseSpec(spec)
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", spec, err, want)
		}
	}
}

// TestRouterPoolBoundClusterLoses: three shards that together carry 3×
// a standalone lose to it when their routers' pools are small: the
// cluster's peak is the pools' m·t/s per shard host (3 × 2/10ms = 600
// ops/s), not its shards' slots (2400), while the standalone carries
// 8/10ms = 800.
func TestRouterPoolBoundClusterLoses(t *testing.T) {
	if testing.Short() {
		t.Skip("closed loops for ~3 s")
	}
	alone := startSim(t, "slots=8,service=10ms")
	loadKeys(t, alone.URI())
	cluster := startSim(t, "shards=3,slots=8,service=10ms,router_slots=256,router_pool_max=2,router_max_connecting=1")
	loadKeys(t, cluster.URI())
	a := closedLoop(t, alone.URI(), 48, 300*time.Millisecond, time.Second)
	c := closedLoop(t, cluster.URI(), 48, 300*time.Millisecond, time.Second)
	want := cluster.Spec().Throughput(48, 1)
	t.Logf("standalone %.0f ops/s (model %.0f); cluster %.0f (model %.0f, %.2f); load host: %s / %s",
		a.opsPerS, alone.Spec().Throughput(48, 1), c.opsPerS, want, c.opsPerS/want, hostSummary(a), hostSummary(c))
	if want != 600 {
		t.Fatalf("the model's cluster throughput is %.0f, want 3 × m·t/s = 600", want)
	}
	if c.opsPerS > 1.1*want {
		t.Errorf("the cluster carries %.0f ops/s, above its routers' pools' %.0f", c.opsPerS, want)
	}
	if c.opsPerS < 0.9*want && !c.excused(t, fmt.Sprintf("cluster %.0f ops/s below %.0f", c.opsPerS, want)) {
		t.Errorf("the cluster carries %.0f ops/s, want its routers' pools' %.0f within 10%%", c.opsPerS, want)
	}
	if c.opsPerS >= a.opsPerS && !a.excused(t, "the standalone's level is depressed") {
		t.Errorf("the cluster (%.0f ops/s) does not lose to the standalone (%.0f)", c.opsPerS, a.opsPerS)
	}
}

// TestRouterPoolResize: parameters set while the router runs reshape its
// live pools: a lowered MaxSize closes connections as they come back, a
// raised MinSize opens connections at once.
func TestRouterPoolResize(t *testing.T) {
	d := startAlone(t, "shards=1,slots=64,service=200ms,router_pool_min=0,version=8.0")
	f := d.fronts[0]
	burst := func() {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				if err := f.onShard(context.Background(), 0, kindRead, func(*store) {}); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	open := func() int64 { return d.shards[0].openConns.Load() }
	set := func(name string, v int32) {
		t.Helper()
		if err := lookupParam(f, name).set(f, rawParam(t, v)); err != nil {
			t.Fatal(err)
		}
	}
	burst()
	if n := open(); n != 8 {
		t.Fatalf("8 ops at once opened %d connections, want 8", n)
	}
	set("ShardingTaskExecutorPoolMaxSize", 2)
	burst()
	if n, c := open(), f.rpools.totals(); n != 2 || c.inUse+c.available != 2 {
		t.Errorf("after MaxSize 2 and a burst: %d open to the shard, pool %+v; want 2", n, c)
	}
	set("ShardingTaskExecutorPoolMinSize", 2)
	set("ShardingTaskExecutorPoolMaxSize", 10)
	set("ShardingTaskExecutorPoolMinSize", 5)
	if n := open(); n != 5 {
		t.Errorf("after MinSize 5: %d open to the shard, want 5 at once", n)
	}
}
