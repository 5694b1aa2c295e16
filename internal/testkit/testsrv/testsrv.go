// Package testsrv starts, for tests, the calibrated simulator in-process
// on loopback ports, stopped when its test ends, and connects driver
// clients to it and to any other test server (internal/testkit/testferret starts
// embedded FerretDB: a package of its own, so that only the tests that
// use FerretDB link it). Starting a server is what makes a test slow, so
// it skips the test under -short. Only tests import this package (topology/sim's own tests
// cannot: it imports topology/sim).
package testsrv

import (
	"context"
	"net/url"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

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
