package sweep

import (
	"reflect"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/internal/buildinfo"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/topology"
	"github.com/poolsweep/poolsweep/workload"
)

// A target's header is what detection found, under its name, with the
// URI's password redacted; the run's header records this build's version.
func TestNewTargetHeader(t *testing.T) {
	info := topology.Info{Topology: "sharded", ServerVersion: "7.0.12", ServerKind: "mongodb", Hosts: []string{"m1:27017", "m2:27017"},
		Shards: []string{"rs0", "rs1"}, Note: "n"}
	got := NewTargetHeader("prod", "mongodb://alice:s3cret@m1:27017,m2:27017/?authSource=admin", info)
	want := results.TargetHeader{Name: "prod", URI: got.URI, Topology: "sharded", ServerVersion: "7.0.12", ServerKind: "mongodb",
		Hosts: info.Hosts, Shards: info.Shards, Note: "n"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("header %+v, want %+v", got, want)
	}
	if strings.Contains(got.URI, "s3cret") || !strings.Contains(got.URI, "alice:***@m1:27017") {
		t.Errorf("URI %q is not redacted", got.URI)
	}
	p := plan.Plan{Concurrency: []int{1}, Pool: plan.PoolPlan{Match: true, Given: "match"}, Clients: 1, Trials: 1}
	if h := newRunHeader("r", p, []workload.Workload{workload.DefaultWorkload()}, []results.TargetHeader{got}, 1); h.ToolVersion != buildinfo.Version() {
		t.Errorf("tool_version %q, want %q", h.ToolVersion, buildinfo.Version())
	}
}
