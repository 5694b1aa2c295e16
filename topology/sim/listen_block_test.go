package sim

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/loopback"
)

// blockAddrs are n addresses on 127.0.0.1 from base on.
func blockAddrs(base, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("127.0.0.1:%d", base+i)
	}
	return out
}

// TestListenReplicaSetAndShards: a replica set's members and a cluster's
// shards listen where Listen and ListenShards say, and a member's hello
// names the set by those addresses, so a set started again there is the
// same set to a driver.
func TestListenReplicaSetAndShards(t *testing.T) {
	t.Parallel()
	base := loopback.FreeBlock(t, 3)
	addrs := blockAddrs(base, 3)
	for range 2 { // started, closed, started again on the same ports
		d, err := Start(t.Context(), Spec{Members: 3, Slots: 2, ReplWriters: 2}, Listen(addrs...))
		if err != nil {
			t.Fatal(err)
		}
		if h := d.Hosts(); !slices.Equal(h, addrs) {
			t.Errorf("members on %v, want %v", h, addrs)
		}
		if h := d.rs.hosts(); !slices.Equal(h, addrs) {
			t.Errorf("hello's hosts %v, want %v", h, addrs)
		}
		if err := d.Close(); err != nil {
			t.Fatal(err)
		}
	}

	base = loopback.FreeBlock(t, 4)
	all := blockAddrs(base, 4)
	d, err := Start(t.Context(), Spec{Shards: 2, Slots: 2, Routers: 2, RouterSlots: 4}, Listen(all[:2]...), ListenShards(all[2:]...))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if !slices.Equal(d.Hosts(), all[:2]) || !slices.Equal(d.ShardHosts(), all[2:]) {
		t.Errorf("routers on %v and shards on %v, want %v", d.Hosts(), d.ShardHosts(), all)
	}
}

// TestListenTakenPort: a taken port fails the start with a *ListenError
// naming the server, and the servers opened before it are closed again.
func TestListenTakenPort(t *testing.T) {
	t.Parallel()
	base := loopback.FreeBlock(t, 3)
	addrs := blockAddrs(base, 3)
	ln, err := net.Listen("tcp", addrs[1])
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d, err := Start(t.Context(), Spec{Members: 3, Slots: 2, ReplWriters: 2}, Listen(addrs...))
	var le *ListenError
	if !errors.As(err, &le) || le.Server != "member 2 of 3" || le.Addr != addrs[1] {
		if d != nil {
			d.Close()
		}
		t.Fatalf("member 2's port taken: %v", err)
	}
	if c, err := net.Dial("tcp", addrs[0]); err == nil {
		c.Close()
		t.Errorf("member 1 still listens on %s after the failed start", addrs[0])
	}
}
