package sim

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestStorageEngineName: every mongod of every version names wiredTiger
// (mongostat picks its columns by it; the conformance test holds the
// fields' presence and types to the captures), and a mongos reports no
// storageEngine, in every topology.
func TestStorageEngineName(t *testing.T) {
	for _, v := range versions {
		for _, spec := range []string{"service=0s", "rs=2,service=0s", "shards=1,service=0s"} {
			d := startSim(t, spec+",version="+v.name)
			for _, f := range d.listening() {
				st := runCmd(t, f, "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
				name, err := st.LookupErr("storageEngine", "name")
				switch {
				case f.router && err == nil:
					t.Errorf("%s %s: a mongos reports storageEngine", v.name, spec)
				case !f.router && (err != nil || name.StringValue() != "wiredTiger"):
					t.Errorf("%s %s %s: storageEngine.name %v, want wiredTiger", v.name, spec, f.host, name)
				}
			}
		}
	}
}
