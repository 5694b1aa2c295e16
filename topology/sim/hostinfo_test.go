package sim

import (
	"runtime"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// hostInfoReply is the part of hostInfo poolsweep reads.
type hostInfoReply struct {
	System struct {
		Hostname string `bson:"hostname"`
		NumCores int32  `bson:"numCores"`
		CPUArch  string `bson:"cpuArch"`
		MemSize  *int64 `bson:"memSizeMB"`
	} `bson:"system"`
	OS struct {
		Type string `bson:"type"`
	} `bson:"os"`
}

func TestHostInfo(t *testing.T) {
	tests := []struct {
		spec  string
		cores int32
	}{
		{"slots=2,service=0s", int32(runtime.NumCPU())},      // default: this machine's
		{"slots=2,service=0s,cores=3", 3},                    // a standalone told its count
		{"shards=2,slots=2,service=0s,routers=2,cores=7", 7}, // routers answer it too
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			d := startSim(t, tt.spec)
			for _, h := range d.Hosts() {
				c := connect(t, "mongodb://"+h+"/?directConnection=true", 1)
				var r hostInfoReply
				if err := c.Database("admin").RunCommand(t.Context(), bson.D{{Key: "hostInfo", Value: 1}}).Decode(&r); err != nil {
					t.Fatalf("%s: hostInfo: %v", h, err)
				}
				if r.System.NumCores != tt.cores || r.System.CPUArch == "" || r.OS.Type == "" ||
					!strings.HasSuffix(r.System.Hostname, ":"+portOf(h)) {
					t.Errorf("%s: hostInfo = %+v, want numCores %d, an arch, an OS type and host:port", h, r, tt.cores)
				}
				if runtime.GOOS == "linux" && (r.System.MemSize == nil || *r.System.MemSize <= 0) {
					t.Errorf("%s: memSizeMB missing on Linux", h)
				}
			}
		})
	}
}
