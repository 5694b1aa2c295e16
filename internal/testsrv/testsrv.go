// Package testsrv starts, for tests, the servers poolsweep measures: the
// calibrated simulator and embedded FerretDB, in-process on loopback
// ports, each stopped when its test ends, and connects driver clients to
// them. Starting a server is what makes a test slow, so both skip the test
// under -short. Only tests import this package (topology/sim's own tests
// cannot: it imports topology/sim).
package testsrv

import (
	"context"
	"net/url"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/topology/sim"
)

// Sim starts a simulated deployment from a spec in topology/sim's syntax
// ("slots=8,service=1ms"); a failure to close it fails the test.
func Sim(t testing.TB, spec string) *sim.Deployment {
	t.Helper()
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	s, err := sim.ParseSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	d, err := sim.Start(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Errorf("simulator %s: close: %v", spec, err)
		}
	})
	return d
}

var ferretStart sync.Mutex

// Ferret starts embedded FerretDB (SQLite, in the test's temporary
// directory) and returns its URI.
func Ferret(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts FerretDB")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// One start at a time: FerretDB's constructor writes a package
	// variable (its version's Package), a data race between parallel
	// tests under -race.
	ferretStart.Lock()
	srv, err := topology.StartEmbedded(ctx, topology.EmbeddedConfig{DataDir: t.TempDir()})
	ferretStart.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	return srv.URI
}

// Host is the host:port of a single-host URI such as Sim's or Ferret's.
func Host(t testing.TB, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// Connect opens a driver client on uri whose operations time out after
// 30 s; it is disconnected when the test ends.
func Connect(t testing.TB, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(30 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Disconnect(context.Background()) })
	return c
}
