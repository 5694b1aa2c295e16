package sim

import (
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// mongostatStatus is the shape mongostat (mongodb/mongo-tools,
// mongostat/status) decodes serverStatus into, in the fields that broke
// it against the simulator: uptime into an integer (a
// fractional double fails: "float64 can only be truncated to an integer
// type when truncation is enabled"), and mem and globalLock dereferenced
// (nil panics).
type mongostatStatus struct {
	Host     string `bson:"host"`
	Process  string `bson:"process"`
	Uptime   int64  `bson:"uptime"`
	UptimeMs int64  `bson:"uptimeMillis"`
	Mem      *struct {
		Bits      int64 `bson:"bits"`
		Resident  int64 `bson:"resident"`
		Virtual   int64 `bson:"virtual"`
		Supported bool  `bson:"supported"`
	} `bson:"mem"`
	Connections *struct {
		Current   int64 `bson:"current"`
		Available int64 `bson:"available"`
	} `bson:"connections"`
}

// TestMongostatShape decodes every server's serverStatus of every
// topology, run as serve --sim runs it, the way mongostat does, at an
// uptime with a fraction, and requires mem on every process.
func TestMongostatShape(t *testing.T) {
	for _, spec := range []string{"service=0s", "rs=3,service=0s", "shards=2,routers=2,service=0s", "shards=1,service=0s,version=8.2"} {
		d := startAlone(t, spec)
		d.started = d.started.Add(-1500 * 1e6) // 1.5 s up: a fraction to truncate
		for _, f := range d.listening() {
			t.Run(fmt.Sprintf("%s/%s-%s", spec, f.process(), f.host), func(t *testing.T) {
				raw := runCmd(t, f, "admin", bson.D{{Key: "serverStatus", Value: 1}}, nil)
				var st mongostatStatus
				if err := bson.Unmarshal(raw, &st); err != nil {
					t.Fatalf("decoding as mongostat does: %v", err)
				}
				if st.Mem == nil || !st.Mem.Supported || st.Mem.Resident <= 0 || st.Mem.Bits != 64 {
					t.Errorf("mem = %+v, want bits 64, a resident size, supported", st.Mem)
				}
				if st.Uptime != st.UptimeMs/1000 {
					t.Errorf("uptime %d s, uptimeMillis %d", st.Uptime, st.UptimeMs)
				}
			})
		}
	}
}
