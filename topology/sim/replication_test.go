package sim

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
)

// writeLoad runs n closed-loop w:1 inserters against the set for at least
// d, and on until enough says the primary has taken enough writes (nil:
// exactly d), at most maxLoad. It returns the set's per-member replication
// state halfway through d and at the end, and how long the load ran.
func writeLoad(t *testing.T, dep *Deployment, n int, d time.Duration, enough func(ran time.Duration, primaryWrites int64) bool) (mid, end []MemberStats, ran time.Duration) {
	t.Helper()
	c, _ := connectWatched(t, dep.URI(), uint64(n))
	coll := c.Database("db").Collection("c", options.Collection().SetWriteConcern(writeconcern.W1()))
	var stop atomic.Bool
	var wg sync.WaitGroup
	start := time.Now()
	for g := range n {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				if _, err := coll.InsertOne(t.Context(), bson.D{{Key: "_id", Value: fmt.Sprintf("%d-%d", g, i)}}); err != nil {
					t.Errorf("insert: %v", err)
					return
				}
			}
		})
	}
	time.Sleep(d / 2)
	mid = dep.Stats().Members
	time.Sleep(d / 2)
	for enough != nil && time.Since(start) < maxLoad && !enough(time.Since(start), dep.Stats().Shards[0].Writes.Acquired) {
		time.Sleep(100 * time.Millisecond)
	}
	stop.Store(true)
	ran = time.Since(start)
	wg.Wait()
	return mid, dep.Stats().Members, ran
}

// maxLoad bounds writeLoad on a load host too starved to drive the set.
const maxLoad = 15 * time.Second

// TestReplicaSetSecondaryFallsBehind: a secondary whose appliers are fewer
// than the primary's write slots cannot keep up with a write load the
// primary takes: its optime lag grows, and replSetGetStatus shows it. With
// as many appliers as write slots it keeps up. The claims are checked on
// the simulator's own accounting (how many writes the primary logged, how
// many each applier pool could apply), which a busy load host cannot bend.
func TestReplicaSetSecondaryFallsBehind(t *testing.T) {
	t.Parallel()
	const service = 5 * time.Millisecond
	slow := startSim(t, fmt.Sprintf("rs=3,write_slots=8,service=%s,repl_writers=1", service))
	// One applier of 5ms applies at most 200 writes/s. A busy load host
	// may drive the primary slower than the test needs (twice what the
	// applier can), so the load goes on until the primary's own count
	// says it did, not for a fixed time.
	const applierRate = 200.0
	outruns := func(ran time.Duration, primaryWrites int64) bool {
		return float64(primaryWrites) >= 2*applierRate*ran.Seconds()
	}
	mid, end, ran := writeLoad(t, slow, 16, 1200*time.Millisecond, outruns)
	primaryWrites := slow.Stats().Shards[0].Writes.Acquired
	capacity := applierRate * ran.Seconds()
	t.Logf("primary took %d writes in %v; a secondary applies at most %.0f/s; secondary lag %v halfway, %v at the end (%d pending)",
		primaryWrites, ran.Round(time.Millisecond), applierRate, mid[1].Behind, end[1].Behind, end[1].Pending)
	if !outruns(ran, primaryWrites) {
		t.Fatalf("in %v the load put only %d writes through the primary, not enough to outrun one applier (%.0f): the load host could not drive the test", ran.Round(time.Millisecond), primaryWrites, capacity)
	}
	for _, i := range []int{1, 2} {
		if end[i].Behind <= mid[i].Behind || end[i].Behind < 200*time.Millisecond || end[i].Pending == 0 {
			t.Errorf("secondary %d: lag %v halfway, %v at the end, %d writes pending; want a lag that grows past 200ms", i, mid[i].Behind, end[i].Behind, end[i].Pending)
		}
		if applied := end[i].Applier.Acquired - int64(end[i].Pending); float64(applied) > capacity*1.5 {
			t.Errorf("secondary %d applied %d writes, more than one 5ms applier can in the run", i, applied)
		}
	}
	// The primary's replSetGetStatus reports the secondaries' lag in their
	// optimes, as a real primary does.
	status := runCmd(t, slow.fronts[0], "admin", bson.D{{Key: "replSetGetStatus", Value: 1}}, nil)
	members, _ := status.Lookup("members").Array().Values()
	primaryWall := members[0].Document().Lookup("lastAppliedWallTime").Time()
	for _, i := range []int{1, 2} {
		m := members[i].Document()
		if behind := primaryWall.Sub(m.Lookup("lastAppliedWallTime").Time()); behind < 200*time.Millisecond {
			t.Errorf("replSetGetStatus: member %d's lastAppliedWallTime trails the primary's by %v, want the lag", i, behind)
		}
		st, si := m.Lookup("optime", "ts").Timestamp()
		pt, pi := members[0].Document().Lookup("optime", "ts").Timestamp()
		if (bson.Timestamp{T: st, I: si}).After(bson.Timestamp{T: pt, I: pi}) {
			t.Errorf("member %d's optime is ahead of the primary's", i)
		}
	}

	// Control: as many appliers as write slots keep up. Their lag does not
	// grow with the run, as one applier's does (about ran × (1 − 200/rate),
	// near a second here): a busy machine may delay an applier by tens of
	// milliseconds, never by a tenth of the run.
	keeps := startSim(t, fmt.Sprintf("rs=3,write_slots=8,service=%s,repl_writers=8", service))
	_, fast, ran := writeLoad(t, keeps, 16, 1200*time.Millisecond, nil)
	for _, i := range []int{1, 2} {
		if fast[i].Behind > ran/10 || 5*fast[i].Behind > end[i].Behind {
			t.Errorf("with 8 appliers secondary %d is %v behind at the end of %v (one applier: %v), want a lag that does not grow with the run", i, fast[i].Behind, ran.Round(time.Millisecond), end[i].Behind)
		}
	}
}
