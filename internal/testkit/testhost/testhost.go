// Package testhost gives engine tests the load host's evidence the CLI's
// steps carry: a window observer that samples this host (and the server),
// so that package bound can say whether a step's numbers were this
// machine's rather than the server's. For tests only.
package testhost

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/poolsweep/poolsweep/telemetry"
)

// Observer samples, for each measured window, this load host and the
// server at uri (a mongodb:// URI of one host) as the CLI's observer does;
// childPID, when not 0, is that server's process on this machine. The
// test's end closes it.
func Observer(t testing.TB, uri string, childPID int) *telemetry.Observer {
	t.Helper()
	host, _, _ := strings.Cut(strings.TrimPrefix(uri, "mongodb://"), "/")
	cfg := telemetry.ObserverConfig{Hosts: []string{host}, Base: options.Client().ApplyURI(uri)}
	if childPID != 0 {
		cfg.ChildPID, cfg.ChildHost = childPID, host
	}
	o, err := telemetry.NewObserver(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { o.Close(context.Background()) })
	return o
}
