// Package loopback gives tests loopback addresses. It imports nothing of
// poolsweep, so that every package's tests can use it, topology/sim's own
// included (which cannot import internal/testkit/testsrv).
package loopback

import (
	"net"
	"testing"
)

// ClosedAddr is a loopback host:port that nobody listens on: a server
// that is down, or a port to start one on.
func ClosedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
