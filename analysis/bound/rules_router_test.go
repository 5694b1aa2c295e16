package bound

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

func pint(v int) *int { return &v }

// routerStep is a sharded step: two routers in front of two idle shard
// primaries, each router holding 2 task-executor pools to each shard host
// with MaxSize 10 and MaxConnecting 2 read from getParameter, none of
// them busy.
func routerStep() *results.StepResult {
	s := baseStep()
	sampled := true
	shard := func(host string) *results.ShardSample {
		return &results.ShardSample{Host: host, Sample: &results.ServerSample{Version: "7.0.12",
			Tickets: tickets(sideOf(3, 0, 0), sideOf(3, 0, 0)), Cores: pi(8), CPUPct: p(100)}}
	}
	router := func() *results.ServerSample {
		hosts := map[string]*results.RouterPoolHost{}
		for _, h := range []string{"db1:27018", "db2:27018"} {
			hosts[h] = &results.RouterPoolHost{InUse: p(6), Available: p(8), Created: p(0), Refreshing: p(0), Pools: pint(2),
				BusiestInUse: p(4), BusiestRefreshing: p(0)}
		}
		return &results.ServerSample{Version: "7.0.12", CPUPct: p(200), Cores: pi(8),
			ConnPool: &results.ConnPoolCounts{InUse: p(12), Available: p(16), ShardHosts: hosts,
				Settings: &results.RouterPoolSettings{MaxSize: p(10), MaxConnecting: p(2), PoolSize: p(2)}}}
	}
	s.Server = &results.ServerTelemetry{
		Hosts:         map[string]*results.ServerSample{"m1:27017": router(), "m2:27017": router()},
		Shards:        []string{"rs0", "rs1"},
		ShardsSampled: &sampled,
		ShardHosts:    map[string]*results.ShardSample{"rs0": shard("db1:27018"), "rs1": shard("db2:27018")},
	}
	s.Server.Total = router()
	return s
}

// TestClassifyRouter: the router rules, each row with what it proves.
func TestClassifyRouter(t *testing.T) {
	m2 := func(s *results.StepResult) *results.ServerSample { return s.Server.Hosts["m2:27017"] }
	db2 := func(s *results.StepResult) *results.RouterPoolHost { return m2(s).ConnPool.ShardHosts["db2:27018"] }
	tests := []struct {
		name   string
		mut    func(s *results.StepResult)
		c      func(*Classifier)
		bound  string
		reason []string
	}{
		// Nothing full: none.
		{"idle", func(*results.StepResult) {}, nil, BoundNone, nil},
		// The busiest pool at MaxSize with none idle: router_pool, naming
		// the router, the shard host and the numbers.
		{"full", func(s *results.StepResult) {
			db2(s).BusiestInUse, db2(s).Available = p(9.8), p(0.2)
		}, nil, BoundRouterPool, []string{"router m2:27017's pools to db2:27018 full", "9.8 in use in its busiest of 2 task-executor pools", "MaxSize 10", "0.1 idle"}},
		// At MaxSize but connections idle in the other pool: a caller
		// would be handed one, so not full.
		{"full but idle", func(s *results.StepResult) {
			db2(s).BusiestInUse, db2(s).Available = p(10), p(6)
		}, nil, BoundNone, nil},
		// No MaxSize set (2^63-1, the default from 5.0; -1 before): the
		// pool never fills, whatever is in use.
		{"no limit", func(s *results.StepResult) {
			for _, h := range s.Server.Hosts {
				h.ConnPool.Settings.MaxSize = p(9.223372036854776e18)
			}
			db2(s).BusiestInUse, db2(s).Available = p(64), p(0)
		}, nil, BoundNone, nil},
		{"no limit before 5.0", func(s *results.StepResult) {
			for _, h := range s.Server.Hosts {
				h.ConnPool.Settings.MaxSize = p(-1)
			}
			db2(s).BusiestInUse, db2(s).Available = p(64), p(0)
		}, nil, BoundNone, nil},
		// A reply without pools (and FTDC's): the host's counts spread over
		// taskExecutorPoolSize pools.
		{"full from the host's counts", func(s *results.StepResult) {
			h := db2(s)
			h.Pools, h.BusiestInUse, h.BusiestRefreshing, h.InUse, h.Available = nil, nil, nil, p(19.6), p(0)
		}, nil, BoundRouterPool, []string{"9.8 in use in each of 2 task-executor pools on average"}},
		// No pools listed and 4.0's taskExecutorPoolSize 0 (one per core):
		// the host's count says nothing of one pool, so no verdict.
		{"pool count unknown", func(s *results.StepResult) {
			h := db2(s)
			h.Pools, h.BusiestInUse, h.BusiestRefreshing, h.InUse, h.Available = nil, nil, nil, p(40), p(0)
			m2(s).ConnPool.Settings.PoolSize = p(0)
		}, nil, BoundNone, nil},
		// Being opened at MaxConnecting, some created, none idle: creation
		// was the limit, though far below MaxSize.
		{"max connecting", func(s *results.StepResult) {
			h := db2(s)
			h.BusiestInUse, h.BusiestRefreshing, h.Available, h.Created = p(5), p(1.9), p(0), p(140)
		}, nil, BoundRouterPool, []string{"grew at ShardingTaskExecutorPoolMaxConnecting: 1.9 being opened in its busiest of 2 task-executor pools against 2 (getParameter)", "140 created"}},
		// The same without getParameter: the default 2, said so.
		{"max connecting not read", func(s *results.StepResult) {
			m2(s).ConnPool.Settings = &results.RouterPoolSettings{NotRead: "getParameter: Unauthorized"}
			h := db2(s)
			h.BusiestRefreshing, h.Available, h.Created = p(1.9), p(0), p(140)
		}, nil, BoundRouterPool, []string{"against 2 (the default, not read)"}},
		// Opening at the limit but nothing created: a stuck handshake, not
		// a pool growing.
		{"refreshing without creation", func(s *results.StepResult) {
			h := db2(s)
			h.BusiestRefreshing, h.Available, h.Created = p(2), p(0), p(0)
		}, nil, BoundNone, nil},
		// A router's CPU at 90% of its cores: router_cpu, not server.
		{"router cpu", func(s *results.StepResult) { m2(s).CPUPct = p(720) }, nil, BoundRouterCPU,
			[]string{"router m2:27017: CPU 720% is 90% of 8 cores (hostInfo"}},
		// A shard out of tickets goes first, though its router's pools to
		// it are full: the shard is why they are.
		{"shard before router", func(s *results.StepResult) {
			s.Server.ShardHosts["rs1"].Sample.Tickets = tickets(sideOf(3, 0, 0), sideOf(4, 0, 37))
			db2(s).BusiestInUse, db2(s).Available = p(10), p(0)
		}, nil, BoundServer, []string{"shard rs1 (db2:27018): write tickets exhausted"}},
		// The router's CPU before its pools: a full CPU slows every
		// connection's use.
		{"router cpu before pool", func(s *results.StepResult) {
			m2(s).CPUPct = p(720)
			db2(s).BusiestInUse, db2(s).Available = p(10), p(0)
		}, nil, BoundRouterCPU, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := routerStep()
			tc.mut(s)
			c := DefaultClassifier()
			if tc.c != nil {
				tc.c(&c)
			}
			bound, reason := c.Classify(s, nil)
			if bound != tc.bound {
				t.Fatalf("bound = %s (%s), want %s", bound, reason, tc.bound)
			}
			for _, w := range tc.reason {
				if !strings.Contains(reason, w) {
					t.Errorf("reason %q lacks %q", reason, w)
				}
			}
		})
	}
}
