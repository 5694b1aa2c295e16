package workload

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
)

// TestReplayCopyErrorsName: an error about a replay copy names the
// collection from the workload file as a token (its first runes and its
// length), never the whole name: here a collection of another client at
// the copy's name, whose name a file made 180 characters long.
func TestReplayCopyErrorsName(t *testing.T) {
	t.Parallel()
	c := testsrv.Connect(t, testsrv.Sim(t, "slots=4,service=0s").URI())
	ctx := context.Background()
	long := "u" + strings.Repeat("n", 180)
	f := readReplayFile(t)
	for i := range f.Shapes {
		f.Shapes[i].Collection = long
	}
	r, err := NewReplay(f, "replay.yaml", ReplayOptions{Database: "ps_replay"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Database("ps_replay").Collection(copyName("ps_replay", "app", long)).InsertOne(ctx, bson.D{{Key: "theirs", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	_, err = Prepare(ctx, c, Workload{Replay: r}, PrepareOptions{})
	if !errors.Is(err, ErrNotOurs) {
		t.Fatalf("prepare over another client's collection: %v, want ErrNotOurs", err)
	}
	if msg := err.Error(); strings.Contains(msg, strings.Repeat("n", 60)) || !strings.Contains(msg, "bytes)") {
		t.Errorf("the error holds the file's whole collection name (%d bytes): %s", len(msg), msg)
	}
}
