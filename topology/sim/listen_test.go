package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/testkit/loopback"
)

// TestListenRestartOnSamePort is what a fault-injection test does: a
// deployment on a fixed port is stopped and another started on the same
// port, and a client made before the restart carries on.
func TestListenRestartOnSamePort(t *testing.T) {
	t.Parallel()
	addr := loopback.ClosedAddr(t)
	start := func() *Deployment {
		d, err := Start(t.Context(), Spec{Slots: 2}, Listen(addr))
		if err != nil {
			t.Fatal(err)
		}
		if h := d.Hosts(); len(h) != 1 || h[0] != addr {
			t.Fatalf("listening on %v, want %s", h, addr)
		}
		return d
	}
	d := start()
	coll := connect(t, "mongodb://"+addr+"/?serverSelectionTimeoutMS=5000", 2).Database("db").Collection("c")
	if _, err := coll.InsertOne(t.Context(), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d = start()
	defer d.Close()
	// The first op after the restart may meet the dead connection; the
	// driver retries a read once, and a second try must succeed.
	var err error
	for range 2 {
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		_, err = coll.EstimatedDocumentCount(ctx)
		cancel()
		if err == nil {
			break
		}
	}
	if err != nil {
		t.Fatalf("after restarting on %s: %v", addr, err)
	}
}

func TestListenAddressCount(t *testing.T) {
	sharded := Spec{Shards: 2, Slots: 2, Routers: 2, RouterSlots: 4}
	if d, err := Start(t.Context(), sharded, Listen(loopback.ClosedAddr(t))); err == nil || !strings.Contains(err.Error(), "one per router") {
		if d != nil {
			d.Close()
		}
		t.Fatalf("two routers, one address: %v", err)
	}
	sharded.Routers = 1
	addr := loopback.ClosedAddr(t)
	d, err := Start(t.Context(), sharded, Listen(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.URI() != "mongodb://"+addr+"/" {
		t.Errorf("URI %s, want the router on %s", d.URI(), addr)
	}
	// An address in use is an error, not a silent other port.
	if d2, err := Start(t.Context(), Spec{Slots: 1}, Listen(addr)); err == nil {
		d2.Close()
		t.Error("started on an address in use")
	}
}
