package agents

import (
	"context"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/poolsweep/poolsweep/internal/testkit/testsrv"
	"github.com/poolsweep/poolsweep/results"
)

// TestAgentsLeaveForeignDocuments: documents another client put in
// poolsweep_agents with the run's run_id (and its kinds), but under _ids
// no agent writes, are still there after the run, whose own coordination
// documents are all gone: poolsweep deletes only what it wrote.
func TestAgentsLeaveForeignDocuments(t *testing.T) {
	t.Parallel()
	const run = "theirs"
	uri, ss := agentSessions(t, parallelSim, run, 2, 2, 20*time.Second)
	coll := testsrv.Connect(t, uri).Database("ps_agents").Collection(Collection)
	foreign := []any{
		bson.D{{Key: "run_id", Value: run}}, // an ObjectId _id
		bson.D{{Key: "_id", Value: "note"}, {Key: "run_id", Value: run}, {Key: "kind", Value: "step"}},
		bson.D{{Key: "_id", Value: run + "0"}, {Key: "run_id", Value: run}, {Key: "kind", Value: "batches"}, {Key: "seq", Value: 1}},
		bson.D{{Key: "_id", Value: run + "-x"}, {Key: "run_id", Value: run}},
	}
	if _, err := coll.InsertMany(context.Background(), foreign); err != nil {
		t.Fatal(err)
	}
	for i, r := range runAgents(bg(2), ss...) {
		if r.err != nil || r.out.Status != results.StatusComplete {
			t.Fatalf("agent %d: %+v %v", i, r.out, r.err)
		}
	}
	cur, err := coll.Find(context.Background(), bson.D{{Key: "run_id", Value: run}})
	if err != nil {
		t.Fatal(err)
	}
	var left []bson.M
	if err := cur.All(context.Background(), &left); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range left {
		if s, ok := d["_id"].(string); ok {
			ids = append(ids, s)
		} else {
			ids = append(ids, "(ObjectId)")
		}
	}
	slices.Sort(ids)
	if want := []string{"(ObjectId)", "note", run + "-x", run + "0"}; !slices.Equal(ids, want) {
		t.Errorf("left after the run: %v; want their documents, all of them, and none of the run's", ids)
	}
}
