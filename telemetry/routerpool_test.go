package telemetry

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// hostPool is one host entry of a connPoolStats pool or hosts document.
func hostPool(inUse, avail, created, refreshing int64) bson.D {
	return bson.D{{Key: "inUse", Value: inUse}, {Key: "available", Value: avail}, {Key: "leased", Value: int64(0)},
		{Key: "created", Value: created}, {Key: "refreshing", Value: refreshing}, {Key: "refreshed", Value: int64(0)},
		{Key: "wasNeverUsed", Value: created / 4}}
}

// waitTimes is the acquisitionWaitTimes histogram a pool and a host carry
// from 6.3: a document beside the hosts that is no host.
var waitTimes = bson.D{{Key: "[0ms, 50ms)", Value: bson.D{{Key: "count", Value: int64(3)}}}, {Key: "totalCount", Value: int64(3)}}

// routerPoolReply is connPoolStats in the shape MongoDB's manual gives
// for a router (pools per task executor, with their hosts; hosts summed
// over the pools), two task-executor pools to shard1 and the shard
// registry's pool to it and to a config server.
func routerPoolReply(busy0, busy1, refr0 int64) bson.Raw {
	pool := func(hosts ...bson.E) bson.D {
		d := bson.D{{Key: "poolInUse", Value: int64(0)}, {Key: "poolAvailable", Value: int64(0)},
			{Key: "acquisitionWaitTimes", Value: waitTimes}}
		return append(d, hosts...)
	}
	doc := bson.D{
		{Key: "totalInUse", Value: int64(busy0 + busy1 + 1)}, {Key: "totalAvailable", Value: int64(0)},
		{Key: "totalCreated", Value: int64(40)}, {Key: "totalRefreshing", Value: refr0},
		{Key: "acquisitionWaitTimes", Value: waitTimes},
		{Key: "pools", Value: bson.D{
			{Key: "NetworkInterfaceTL-TaskExecutorPool-0", Value: pool(bson.E{Key: "shard1.example.net:27018", Value: hostPool(busy0, 0, 20, refr0)})},
			{Key: "NetworkInterfaceTL-TaskExecutorPool-1", Value: pool(bson.E{Key: "shard1.example.net:27018", Value: hostPool(busy1, 0, 18, 0)})},
			{Key: "NetworkInterfaceTL-ShardRegistry", Value: pool(
				bson.E{Key: "shard1.example.net:27018", Value: hostPool(1, 0, 1, 0)},
				bson.E{Key: "cfg1.example.net:27019", Value: hostPool(0, 1, 1, 0)})},
		}},
		{Key: "hosts", Value: bson.D{
			{Key: "shard1.example.net:27018", Value: hostPool(busy0+busy1+1, 0, 39+busy0, refr0)},
			{Key: "cfg1.example.net:27019", Value: hostPool(0, 1, 1, 0)},
		}},
		{Key: "ok", Value: 1.0},
	}
	raw, err := bson.Marshal(doc)
	if err != nil {
		panic(err)
	}
	return raw
}

// TestParseRouterPools: the task executor's pools are told from the
// router's other pools, each host counted once per pool that holds it,
// with the busiest pool's numbers; a histogram beside the hosts is no
// host; FTDC's form (empty host entries) gives the count of pools and no
// numbers; a reply without pools gives none.
func TestParseRouterPools(t *testing.T) {
	_, hosts, exec := parseConnPoolStats(routerPoolReply(8, 6, 2))
	e, ok := exec["shard1.example.net:27018"]
	if !ok || e.n != 2 || e.busiestInUse == nil || *e.busiestInUse != 8 || e.busiestRefresh == nil || *e.busiestRefresh != 2 {
		t.Fatalf("shard1's task-executor pools = %+v (ok %v), want 2 pools, busiest 8 in use and 2 refreshing", e, ok)
	}
	if _, ok := exec["cfg1.example.net:27019"]; ok {
		t.Error("the config server is counted in the task executor's pools; only the shard registry's pool holds it")
	}
	if _, ok := exec["acquisitionWaitTimes"]; ok {
		t.Error("the acquisitionWaitTimes histogram is read as a host")
	}
	if h := hosts["shard1.example.net:27018"]; h.inUse == nil || *h.inUse != 15 || h.refreshing == nil || *h.refreshing != 2 {
		t.Errorf("hosts entry = %+v, want 15 in use, 2 refreshing", h)
	}

	ftdc, _ := bson.Marshal(bson.D{{Key: "totalInUse", Value: int64(3)}, {Key: "pools", Value: bson.D{
		{Key: "NetworkInterfaceTL-TaskExecutorPool-0", Value: bson.D{{Key: "poolInUse", Value: int64(3)}, {Key: "shard1.example.net:27018", Value: bson.D{}}}}}}})
	_, _, exec = parseConnPoolStats(ftdc)
	if e := exec["shard1.example.net:27018"]; e.n != 1 || e.busiestInUse != nil {
		t.Errorf("FTDC's form = %+v, want 1 pool and its numbers not reported", e)
	}

	// The real 2020 reply lists only the shard registry's pool (to the
	// config servers); the manual's 8.0 example lists a task-executor
	// pool to its shard.
	if _, _, exec := parseConnPoolStats(loadCorpus(t, "connPoolStats.mongos-unknown-2020.json")); exec != nil {
		t.Errorf("the 2020 reply: task-executor pools %v from a reply that lists none", exec)
	}
	if _, _, exec := parseConnPoolStats(loadCorpus(t, "connPoolStats.mongos-8.0.manual.json")); len(exec) == 0 {
		t.Error("the manual's 8.0 reply: no task-executor pool read from its pools section")
	}
}

// TestRouterPoolWindow: a router's window keeps its pools to each shard
// host (not the config servers'): means of the counts, the growth of
// created, the pools' count and the busiest pool's mean, and the
// settings getParameter read.
func TestRouterPoolWindow(t *testing.T) {
	var snaps []snapshot
	at := time.Unix(1000, 0)
	for i, busy := range []int64{8, 10} {
		s := snapshot{at: at.Add(time.Duration(i) * time.Second)}
		s.addConnPoolStats(routerPoolReply(busy, 6, 2))
		if i == 0 {
			s.poolParams = &routerPoolParams{maxSize: p(10), maxConnecting: p(2), poolSize: p(2)}
		}
		snaps = append(snaps, s)
	}
	hw := summarizeHost(snaps, map[string]bool{"shard1.example.net:27018": true, "shard2.example.net:27018": true})
	cp := hw.sample.ConnPool
	if cp == nil || cp.InUse == nil || *cp.InUse != 16 || cp.Refreshing == nil || *cp.Refreshing != 2 {
		t.Fatalf("conn pool = %+v, want 16 in use (shard1 only) and 2 refreshing", cp)
	}
	h := cp.ShardHosts["shard1.example.net:27018"]
	if h == nil || h.Pools == nil || *h.Pools != 2 || *h.BusiestInUse != 9 || *h.BusiestRefreshing != 2 || *h.InUse != 16 {
		t.Fatalf("shard1 = %+v, want 2 pools, busiest 9 in use on average, 16 in use", h)
	}
	// Created grew with the busiest pool (47 → 49), and wasNeverUsed, a
	// quarter of created in the fixture, from 11 to 12.
	if *h.Created != 2 || h.WasNeverUsed == nil || *h.WasNeverUsed != 1 {
		t.Errorf("shard1 created %v, never used %v, want 2 and 1", *h.Created, h.WasNeverUsed)
	}
	if _, ok := cp.ShardHosts["shard2.example.net:27018"]; ok {
		t.Error("shard2, to which the router holds no pool, is listed")
	}
	if _, ok := cp.ShardHosts["cfg1.example.net:27019"]; ok {
		t.Error("the config server is listed among the shard hosts")
	}
	if s := cp.Settings; s == nil || *s.MaxSize != 10 || *s.MaxConnecting != 2 || *s.PoolSize != 2 {
		t.Errorf("settings = %+v, want max size 10, max connecting 2, 2 pools", s)
	}
	if m, ok := cp.Settings.MaxSizeLimit(); !ok || m != 10 {
		t.Errorf("MaxSizeLimit = %v, %v", m, ok)
	}
}

// TestViewHostPoolSettings: inspect's view of a router reads its pool
// settings from a getParameter reply: a MaxSize limit, or none (-1 before
// 5.0, 2^63-1 after, as the server gives it); without the reply they are
// not read.
func TestViewHostPoolSettings(t *testing.T) {
	cps := loadCorpus(t, "connPoolStats.mongos-8.0.manual.json")
	for _, tc := range []struct {
		name    string
		maxSize any
		read    bool
		limit   float64
	}{
		{"limit", int32(10), true, 10},
		{"no limit, 4.x", int32(-1), true, 0},
		{"no limit, 5.0+", int64(9223372036854775807), true, 0},
		{"no reply", nil, false, 0},
	} {
		replies := map[string]bson.Raw{"connPoolStats": cps}
		if tc.maxSize != nil {
			gp, _ := bson.Marshal(bson.D{{Key: "ShardingTaskExecutorPoolMaxSize", Value: tc.maxSize},
				{Key: "ShardingTaskExecutorPoolMaxConnecting", Value: int32(2)}, {Key: "taskExecutorPoolSize", Value: int32(1)}, {Key: "ok", Value: 1.0}})
			replies["getParameter"] = gp
		}
		v := ViewHost(replies)
		if v.PoolSettingsRead != tc.read || v.PoolMaxSize != tc.limit {
			t.Errorf("%s: read %v, max size %v; want %v, %v", tc.name, v.PoolSettingsRead, v.PoolMaxSize, tc.read, tc.limit)
		}
	}
}
