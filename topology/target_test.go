package topology

import (
	"slices"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/corpus"
)

// TestReplicaSetMembers reads a captured replica-set primary's isMaster:
// its hosts, and a priority-0 member that hello lists under passives (no
// capture has one, so it is added here as the manual documents it), which
// the host list once dropped.
func TestReplicaSetMembers(t *testing.T) {
	raw, err := corpus.Load("isMaster.mongod-replset-primary-4.2.json")
	if err != nil {
		t.Fatal(err)
	}
	var hello bson.M
	if err := bson.Unmarshal(raw, &hello); err != nil {
		t.Fatal(err)
	}
	hosts := replicaSetMembers(hello)
	if len(hosts) == 0 || !slices.Contains(hosts, hello["me"].(string)) {
		t.Fatalf("members %v: want the capture's hosts, the primary among them", hosts)
	}
	hello["passives"] = bson.A{"backup-0.example.invalid:27017"}
	hello["arbiters"] = bson.A{"arbiter-0.example.invalid:27017"}
	got := replicaSetMembers(hello)
	if want := append(slices.Clone(hosts), "backup-0.example.invalid:27017"); !slices.Equal(got, want) {
		t.Errorf("members = %v, want %v (passives kept, arbiters left out)", got, want)
	}
}
