package telemetry

import (
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestEstablishmentWindow reads 8.2's connection admission from two
// serverStatus replies: the queue's mean length and the growth of the
// limiter's counters; a server that reports none of it (8.0) gives nil,
// "not reported", never zeros.
func TestEstablishmentWindow(t *testing.T) {
	reply := func(queued, attempted, admitted, added, rejected int64) snapshot {
		raw, err := bson.Marshal(bson.D{
			{Key: "connections", Value: bson.D{{Key: "current", Value: int32(1)},
				{Key: "queuedForEstablishment", Value: queued},
				{Key: "establishmentRateLimit", Value: bson.D{{Key: "rejected", Value: rejected}}}}},
			{Key: "queues", Value: bson.D{{Key: "ingressSessionEstablishment", Value: bson.D{
				{Key: "addedToQueue", Value: added}, {Key: "interruptedInQueue", Value: int64(0)},
				{Key: "rejectedAdmissions", Value: rejected}, {Key: "successfulAdmissions", Value: admitted},
				{Key: "attemptedAdmissions", Value: attempted}}}}},
		})
		if err != nil {
			t.Fatal(err)
		}
		return parseServerStatus(raw, time.Now())
	}
	e := establishmentWindow([]snapshot{reply(0, 10, 10, 0, 0), reply(3, 25, 18, 5, 4)})
	if e == nil {
		t.Fatal("nil")
	}
	for name, c := range map[string]struct {
		got  *float64
		want float64
	}{
		"queued_mean": {e.QueuedMean, 1.5}, "attempted": {e.Attempted, 15}, "admitted": {e.Admitted, 8},
		"queued": {e.Queued, 5}, "rejected": {e.Rejected, 4}, "interrupted": {e.Interrupted, 0},
	} {
		if c.got == nil || *c.got != c.want {
			t.Errorf("%s = %v, want %v", name, c.got, c.want)
		}
	}
	if !e.Limited() {
		t.Error("a window with queued and rejected connections is not Limited")
	}
	raw, _ := bson.Marshal(bson.D{{Key: "connections", Value: bson.D{{Key: "current", Value: int32(1)}}}})
	old := parseServerStatus(raw, time.Now())
	if e := establishmentWindow([]snapshot{old, old}); e != nil {
		t.Errorf("an 8.0 server's window has establishment %+v, want nil (not reported)", e)
	}
}
