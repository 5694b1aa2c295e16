package sim

import (
	"math"
	"time"
)

// The replica set's ground truth (see the package documentation for the
// derivation): reads by read preference, and writes by how many members
// must have applied them.

// Read preference modes, as drivers and connection strings name them.
const (
	readPrimary            = "primary"
	readPrimaryPreferred   = "primaryPreferred"
	readSecondary          = "secondary"
	readSecondaryPreferred = "secondaryPreferred"
	readNearest            = "nearest"
)

// readMembers is how many members serve reads of a read preference mode
// while the set has a primary: 1 for primary and primaryPreferred, the
// secondaries for secondary and secondaryPreferred (the primary when a
// secondaryPreferred set has none), every member for nearest; 1 for any
// mode on a spec that is not a replica set, and 0 for an unknown mode or
// secondary on a one-member set (no server can serve it).
func (s Spec) readMembers(mode string) int {
	if !s.ReplicaSet() {
		return 1
	}
	switch mode {
	case readPrimary, readPrimaryPreferred:
		return 1
	case readSecondary:
		return s.Members - 1
	case readSecondaryPreferred:
		return max(s.Members-1, 1)
	case readNearest:
		return s.Members
	}
	return 0
}

// readThroughput is the model's closed-loop reads/s at n connections
// reading with read preference mode, spread evenly over the k members that
// serve the mode (the driver sends each read to the less busy of two
// random eligible members), each with R read slots:
//
//	X(n) = k · min(n/k, R) / (service + conn_cost·n/k)
//
// which is Throughput(n, 1) for k = 1. The driver's monitoring connections
// are left out, as in Throughput.
func (s Spec) readThroughput(n int, mode string) float64 {
	k := s.readMembers(mode)
	if n <= 0 || k == 0 {
		return 0
	}
	m := float64(n) / float64(k)
	t := s.Service.Seconds() + s.ConnCost.Seconds()*m
	if t <= 0 {
		return math.Inf(1)
	}
	return float64(k) * math.Min(m, float64(s.readSlots())) / t
}

// writeLatency is the model's latency of one write acknowledged by w
// members on an idle set: the primary's service time t, and for w > 1 the
// replication lag and a secondary's apply time on top, since the write is
// acknowledged when the w-1 fastest secondaries have applied it:
//
//	L(1) = t,   L(w>1) = t + repl_lag + service
//
// with t = service + conn_cost·n for n connections to the primary.
func (s Spec) writeLatency(n, w int) time.Duration {
	t := s.Service + s.ConnCost*time.Duration(max(n, 0))
	if w <= 1 || !s.ReplicaSet() {
		return t
	}
	return t + s.ReplLag + s.Service
}

// writeThroughput is the model's closed-loop writes/s at n connections each
// waiting for w members (w = s.Majority() for w:"majority"). A write holds
// one of the primary's W write slots for t; each secondary applies it with
// one of its A = min(W, repl_writers) applier slots for service. A client
// waits L(w) (WriteLatency) per write, so
//
//	X(n) = min(n, W) / t                                   w = 1
//	X(n) = min(n / L(w), W / t, A / service)               w > 1
//
// With w = 1 the secondaries are not waited for: past A/service they fall
// behind without bound (their optime lag grows), as a real secondary whose
// appliers cannot keep up does. w beyond the set's size gives 0.
func (s Spec) writeThroughput(n, w int) float64 {
	if n <= 0 || (s.ReplicaSet() && w > s.Members) {
		return 0
	}
	t := s.writeLatency(n, 1).Seconds()
	if t <= 0 {
		return math.Inf(1)
	}
	writes := float64(s.writeSlots())
	x := math.Min(float64(n), writes) / t
	if w <= 1 || !s.ReplicaSet() {
		return x
	}
	x = math.Min(x, float64(n)/s.writeLatency(n, w).Seconds())
	if s.Service > 0 {
		x = math.Min(x, math.Min(writes, float64(s.ReplWriters))/s.Service.Seconds())
	}
	return x
}

// Majority is how many members a w:"majority" write waits for: a majority
// of the set's members (all vote and bear data); 1 for a spec that is not
// a replica set.
func (s Spec) Majority() int {
	if !s.ReplicaSet() {
		return 1
	}
	return s.Members/2 + 1
}
