package agents

import "go.mongodb.org/mongo-driver/v2/bson"

// own narrows filter to this run's own coordination documents before a
// delete: every document an agent writes has an _id under "<run id>/"
// (agentID, stepID, batchID), and the range "<run id>/" ≤ _id <
// "<run id>0" ('0' follows '/') holds exactly those strings. A document
// another client put in Collection with this run's run_id, under any
// other _id, is left alone. A range on _id is the one operator the
// simulator takes besides equality.
func (a *Agent) own(filter bson.D) bson.D {
	ids := bson.E{Key: "_id", Value: bson.D{{Key: "$gte", Value: a.RunID + "/"}, {Key: "$lt", Value: a.RunID + "0"}}}
	return append(bson.D{ids}, filter...)
}
