package sim

import (
	"math"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestProcessShare: the servers of a sharded deployment share one
// process, and each reports, in extra_info, the share of the process's CPU
// time that its own work earned. By construction a routed find holds a
// router slot for router_cost (2 ms) and a shard slot for service (1 ms),
// so of the CPU the process spends while serving finds the router is given
// two thirds and the shard one third; what grew while neither worked is
// shared evenly; and the shares add up to the process's.
func TestProcessShare(t *testing.T) {
	d := startAlone(t, "shards=1,service=1ms,router_cost=2ms")
	router, shard := d.fronts[0], d.shardFronts[0]
	u0, s0 := d.processShare(router, rusage{userMicros: 1000, systemMicros: 400})
	if u0 != 500 || s0 != 200 {
		t.Errorf("before any work the router has %d µs user, %d µs system: want half the process's (500, 200)", u0, s0)
	}
	for i := range 20 {
		wantOK(t, runCmd(t, router, "db", bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: i}}}}, nil))
	}
	ru := rusage{userMicros: 1000 + 3000, systemMicros: 400 + 300}
	ur, sr := d.processShare(router, ru)
	us, ss := d.processShare(shard, ru)
	t.Logf("router %d+%d µs, shard %d+%d µs of the process's %d+%d", ur, sr, us, ss, ru.userMicros, ru.systemMicros)
	near := func(got, want int64) bool { return math.Abs(float64(got-want)) <= 2 }
	if !near(ur-u0, 2000) || !near(sr-s0, 200) || !near(us-u0, 1000) || !near(ss-s0, 100) {
		t.Errorf("growth router %d+%d, shard %d+%d µs; want 2000+200 and 1000+100 (router_cost 2 ms to service 1 ms)", ur-u0, sr-s0, us-u0, ss-s0)
	}
	if !near(ur+us, ru.userMicros) || !near(sr+ss, ru.systemMicros) {
		t.Errorf("shares add up to %d+%d µs, the process's %d+%d", ur+us, sr+ss, ru.userMicros, ru.systemMicros)
	}
	// A counter never goes back, even if getrusage did.
	if u, _ := d.processShare(router, rusage{userMicros: 10, systemMicros: 10}); u != ur {
		t.Errorf("router's user time went from %d to %d", ur, u)
	}
	// Each server reports its share, and mem split evenly, in serverStatus.
	for _, f := range []*frontend{router, shard} {
		st := runCmd(t, f, "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
		for _, p := range [][]string{{"extra_info", "user_time_us"}, {"mem", "resident"}, {"mem", "supported"}} {
			if _, err := st.LookupErr(p...); err != nil {
				t.Errorf("%s: %v missing", f.process(), p)
			}
		}
	}
}
