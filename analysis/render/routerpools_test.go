package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// routerStepAt is a sharded step at concurrency c whose router m1 holds
// pools to one shard host: listed pools on 8.0 (in use per pool the
// busiest's) with MaxSize 10 read, or no pools listed and MaxSize not
// read (in use spread over taskExecutorPoolSize).
func routerStepAt(c int, listed bool) results.StepResult {
	s := closed("sharded", c)
	ph := &results.RouterPoolHost{InUse: f(18), Available: f(0.5), Created: f(3), Refreshing: f(0)}
	set := &results.RouterPoolSettings{MaxSize: f(10), MaxConnecting: f(2), PoolSize: f(2)}
	if listed {
		n := 2
		ph.Pools, ph.BusiestInUse = &n, f(9.5)
	} else {
		set = &results.RouterPoolSettings{PoolSize: f(2), NotRead: "getParameter: Unauthorized"}
	}
	s.Bound = "router_pool"
	s.Server = &results.ServerTelemetry{Hosts: map[string]*results.ServerSample{
		"m1:27017": {ConnPool: &results.ConnPoolCounts{InUse: f(18), ShardHosts: map[string]*results.RouterPoolHost{"db1:27018": ph}, Settings: set}},
	}}
	return s
}

// TestRouterPoolsShown: analyze's text and JSON show each step's router
// pools, per pool against MaxSize; a number not reported is n/r (null),
// MaxSize not read says why.
func TestRouterPoolsShown(t *testing.T) {
	res := run(routerStepAt(8, true), routerStepAt(16, false))
	a := analysis.Of([]*results.Results{res}, knee.Options{})
	if len(a.RouterPools) != 2 {
		t.Fatalf("router pools = %+v, want one row a step", a.RouterPools)
	}
	var b bytes.Buffer
	if err := Text(&b, a); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(b.String()), " ") // the columns' widths aside
	for _, want := range []string{"routers' pools to the shards, per step",
		"sharded 8 8 1 8 m1:27017 db1:27018 2 18.0 9.5 10 0.5 0.0 2 3 router_pool",
		"sharded 16 16 1 16 m1:27017 db1:27018 n/r 18.0 9.0 getParameter: Unauthorized 0.5 0.0 n/r 3 router_pool"} {
		if !strings.Contains(out, want) {
			t.Errorf("analyze text lacks %q:\n%s", want, out)
		}
	}
	var d struct {
		RouterPools []map[string]any `json:"router_pools"`
	}
	b.Reset()
	if err := JSON(&b, a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b.Bytes(), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.RouterPools) != 2 || d.RouterPools[0]["in_use_per_pool"] != 9.5 || d.RouterPools[1]["max_size"] != nil || d.RouterPools[1]["pools"] != nil {
		t.Errorf("router_pools = %v", d.RouterPools)
	}
}
