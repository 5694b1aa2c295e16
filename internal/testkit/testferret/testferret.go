// Package testferret starts embedded FerretDB for tests: a package of its
// own, apart from internal/testkit/testsrv, so that only the test binaries that
// use FerretDB link it (it is most of a binary's size and link time).
package testferret

import (
	"context"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/topology/embedded"
)

// Start starts embedded FerretDB (SQLite, in the test's temporary
// directory), stopped when the test ends, and returns its URI. It skips
// the test under -short.
func Start(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts FerretDB")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	srv, err := embedded.Start(ctx, embedded.Config{DataDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Stop() })
	return srv.URI
}
