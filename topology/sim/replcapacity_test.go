package sim

import (
	"math"
	"testing"
	"time"
)

// TestReplicaSetCapacityArithmetic holds the replica set's model formulas
// (package documentation) to hand-computed values.
func TestReplicaSetCapacityArithmetic(t *testing.T) {
	ms := time.Millisecond
	us := time.Microsecond
	rs3 := Spec{Members: 3, Slots: 8, Service: 2 * ms, ReplLag: ms, ElectionDelay: 300 * ms, ReplWriters: 16}
	rs5 := rs3
	rs5.Members = 5
	one := rs3
	one.Members = 1
	costly := rs3
	costly.ConnCost = 50 * us
	reads := []struct {
		name string
		spec Spec
		n    int
		mode string
		want float64
	}{
		{"primary reads: one member's slots/service", rs3, 64, readPrimary, 4000},
		{"primaryPreferred reads the primary while there is one", rs3, 64, readPrimaryPreferred, 4000},
		{"secondaryPreferred spreads over the two secondaries", rs3, 64, readSecondaryPreferred, 8000},
		{"secondary: the same two", rs3, 64, readSecondary, 8000},
		{"nearest: all three members", rs3, 64, readNearest, 12000},
		{"below the knee each member gets n/k", rs3, 8, readSecondaryPreferred, 4000},
		{"five members: four secondaries", rs5, 64, readSecondaryPreferred, 16000},
		{"a one-member set's secondaryPreferred reads the primary", one, 64, readSecondaryPreferred, 4000},
		{"a one-member set cannot serve secondary", one, 64, readSecondary, 0},
		{"an unknown mode serves nothing", rs3, 64, "fastest", 0},
		{"conn_cost charges n/k connections per member", costly, 32, readSecondaryPreferred, 2 * 8 / (2e-3 + 16*50e-6)},
		{"not a replica set: any mode is the one server", DefaultSpec(), 64, readNearest, 4000},
	}
	for _, tt := range reads {
		if got := tt.spec.readThroughput(tt.n, tt.mode); math.Abs(got-tt.want) > 1e-6*tt.want+1e-9 {
			t.Errorf("%s: ReadThroughput(%d, %s) = %g, want %g", tt.name, tt.n, tt.mode, got, tt.want)
		}
	}

	slowApply := rs3
	slowApply.ReplWriters = 2
	lagged := rs3
	lagged.ReplLag = 20 * ms
	writes := []struct {
		name string
		spec Spec
		n, w int
		want float64
	}{
		{"w:1 is the primary's write slots", rs3, 64, 1, 4000},
		{"w:1 is not held back by slow appliers", slowApply, 64, 1, 4000},
		// one client waits 2ms + 1ms + 2ms per majority write: 200/s.
		{"one majority writer waits service+lag+service", rs3, 1, 2, 200},
		{"majority writers scale until a pool binds", rs3, 20, 2, 4000},
		{"majority writes are held by the secondaries' appliers", slowApply, 64, 2, 1000},
		// 8 clients each waiting 2+20+2 = 24ms: 333/s.
		{"a long lag needs more clients", lagged, 8, 2, 8 / 24e-3},
		{"w beyond the set is unsatisfiable", rs3, 8, 4, 0},
	}
	for _, tt := range writes {
		if got := tt.spec.writeThroughput(tt.n, tt.w); math.Abs(got-tt.want) > 1e-6*tt.want+1e-9 {
			t.Errorf("%s: WriteThroughput(%d, w:%d) = %g, want %g", tt.name, tt.n, tt.w, got, tt.want)
		}
	}
	if got := rs3.writeLatency(0, rs3.Majority()); got != 5*ms {
		t.Errorf("majority latency on an idle rs=3 = %v, want 5ms (2ms + 1ms lag + 2ms apply)", got)
	}
	if got := rs3.writeLatency(0, 1); got != 2*ms {
		t.Errorf("w:1 latency = %v, want the service time 2ms", got)
	}
	for members, want := range map[int]int{1: 1, 2: 2, 3: 2, 4: 3, 5: 3, 7: 4} {
		s := rs3
		s.Members = members
		if got := s.Majority(); got != want {
			t.Errorf("rs=%d: majority %d, want %d", members, got, want)
		}
	}
}
