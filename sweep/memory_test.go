package sweep

import (
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/workload"
)

// TestCheckMemoryNamesTheDocumentSize: a plan too big
// for the machine names where the document size came from: the workload
// file whose keys set it, or poolsweep's defaults, not a key nobody wrote.
func TestCheckMemoryNamesTheDocumentSize(t *testing.T) {
	p := plan.Plan{Concurrency: []int{1000}, Pool: plan.PoolPlan{Match: true}, Clients: 1}
	fromFile := workload.DefaultWorkload()
	fromFile.File, fromFile.FieldLength = "w.props", 1<<20
	for _, tt := range []struct {
		name string
		ws   []workload.Workload
		want string
	}{
		{"the defaults", []workload.Workload{workload.DefaultWorkload()}, "(fieldcount × fieldlength, the defaults)"},
		{"a workload file", []workload.Workload{workload.DefaultWorkload(), fromFile}, "(fieldcount × fieldlength of w.props)"},
	} {
		err := CheckMemory(p, tt.ws, 1, 1<<20) // a machine of 1 MiB: every plan is too big
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	if err := CheckMemory(p, []workload.Workload{workload.DefaultWorkload()}, 1, 1<<40); err != nil {
		t.Errorf("a machine of 1 TiB: %v", err)
	}
}
