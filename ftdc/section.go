package ftdc

import "go.mongodb.org/mongo-driver/v2/bson"

// Section finds a collector's document (serverStatus, replSetGetStatus,
// connPoolStats …) in a sample: at the top level, or, in 8.0's role-based
// samples, under shard, router or common. Nil when the sample has none.
func Section(sample bson.Raw, collector string) bson.Raw {
	for _, at := range [][]string{{collector}, {"shard", collector}, {"router", collector}, {"common", collector}} {
		if v, err := sample.LookupErr(at...); err == nil {
			if d, ok := v.DocumentOK(); ok {
				return d
			}
		}
	}
	return nil
}
