//go:build soak

package main

import "testing"

// The soak tier: agents against embedded FerretDB, whose throughput swings
// from window to window on a busy machine, so the comparison takes five
// rounds. The fast tier makes the same comparison against the simulator
// (TestSpawnAgentsSimulatedSharded).

// TestSpawnAgentsFerretDB is the same flow against embedded FerretDB, one
// server both sides share. FerretDB's own throughput swings by up to a
// factor of two from window to window on a busy 2-core machine, so the
// two sides alternate, five rounds each, at one level that saturates it.
func TestSpawnAgentsFerretDB(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns agents against embedded FerretDB")
	}
	uri, _ := startServe(t)
	compareAgentsWithClients(t, 5, true, false, []string{"--concurrency", "2", "--trials", "1", "--warmup", "300ms", "--duration", "3s", "--records", "200"}, "--uri", uri)
}
