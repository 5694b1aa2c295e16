package sweep

import (
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/plan"
	"github.com/poolsweep/poolsweep/results"
	"github.com/poolsweep/poolsweep/workload"
)

// The header records the open-loop plan, and resuming with another rate
// list is refused by name.
func TestOpenPlanHeaderAndResume(t *testing.T) {
	p := plan.Plan{Concurrency: []int{100}, Pool: plan.PoolPlan{Sizes: []int{4, 16}, Given: "4,16"}, Clients: 1, Trials: 2,
		Duration: time.Second, OpTimeout: time.Second, Rate: []int{1000, 2000, 4000}, Arrivals: results.ArrivalsPoisson, MaxInFlight: 100}
	info := NewPlanInfo(p, 12)
	if len(info.Rate) != 3 || info.Arrivals != results.ArrivalsPoisson || info.MaxInFlight != 100 {
		t.Fatalf("plan info %+v", info)
	}
	w := workload.DefaultWorkload()
	h := newRunHeader("r", p, []workload.Workload{w}, []results.TargetHeader{{Name: "a"}}, 12)
	if err := checkResume(h, p, []workload.Workload{w}, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	q := p
	q.Rate = []int{1000}
	if err := checkResume(h, q, []workload.Workload{w}, []string{"a"}); err == nil || !strings.Contains(err.Error(), "--rate") {
		t.Errorf("resume with another rate list: %v", err)
	}
}

// TestOwnLevelsHeaderAndResume: a plan of levels per target is recorded
// in the header (each target's list, by name) and read back as written;
// --resume refuses another per-target plan, and a plan of one list for
// every target, by name; a file without the field reads as one list for
// every target.
func TestOwnLevelsHeaderAndResume(t *testing.T) {
	p := plan.Plan{Pool: plan.PoolPlan{Match: true, Given: "match"}, Clients: 3, Trials: 1, Duration: time.Second, OpTimeout: time.Second}
	p.SetTargetLevels(map[string][]int{"standalone": {64, 500, 1000}, "sharded": {32, 64, 128, 300}})
	w := workload.DefaultWorkload()
	names := []string{"standalone", "sharded"}
	h := newRunHeader("r", p, []workload.Workload{w}, []results.TargetHeader{{Name: "standalone"}, {Name: "sharded"}}, 7)
	path := filepath.Join(t.TempDir(), "results.jsonl")
	rw, err := results.CreateResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Write(h); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	r, err := results.ReadResultsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []results.TargetLevels{{Target: "sharded", Concurrency: []int{32, 64, 128, 300}}, {Target: "standalone", Concurrency: []int{64, 500, 1000}}}
	if got := r.Header.Plan; !reflect.DeepEqual(got.TargetConcurrency, want) || !slices.Equal(got.Concurrency, []int{32, 64, 128, 300, 500, 1000}) ||
		!slices.Equal(got.LevelsOf("standalone"), []int{64, 500, 1000}) {
		t.Fatalf("read back %+v", got)
	}
	if err := checkResume(r.Header, p, []workload.Workload{w}, names); err != nil {
		t.Fatal(err)
	}
	other := p
	other.SetTargetLevels(map[string][]int{"standalone": {64, 500, 1000}, "sharded": {32, 64, 128}})
	one := plan.Plan{Concurrency: p.Concurrency, Pool: p.Pool, Clients: 3, Trials: 1, Duration: time.Second, OpTimeout: time.Second}
	for name, q := range map[string]plan.Plan{"another per-target plan": other, "one list for every target": one} {
		err := checkResume(r.Header, q, []workload.Workload{w}, names)
		if err == nil || !strings.Contains(err.Error(), "--concurrency was sharded=32,64,128,300 standalone=64,500,1000") {
			t.Errorf("%s: %v", name, err)
		}
	}
	// A file from before levels per target: every target took its list.
	old := h
	old.Plan.TargetConcurrency = nil
	if l := old.Plan.LevelsOf("sharded"); !slices.Equal(l, old.Plan.Concurrency) {
		t.Errorf("levels of an older file's target: %v", l)
	}
}

// TestProfileHeaderAndResume: the header records the profile, --cold and
// the pool-option lists, writes and reads them back valid, and --resume
// refuses another profile or other axes by the flag's name.
func TestProfileHeaderAndResume(t *testing.T) {
	prof, err := loadprofile.Parse("idle:1s,rate:500:2s", nil)
	if err != nil {
		t.Fatal(err)
	}
	axes := &plan.PoolAxes{MinPool: []int{0, 8}, MaxConnecting: []int{2, 16}, MaxIdle: []time.Duration{0, 500 * time.Millisecond},
		Timeout: []time.Duration{50 * time.Millisecond}, Retry: []bool{true, false}, ServerSelectionTimeout: []time.Duration{time.Second},
		Heartbeat: []time.Duration{500 * time.Millisecond, 10 * time.Second}, Cold: true}
	p := plan.Plan{Concurrency: []int{100}, Pool: plan.PoolPlan{Sizes: []int{16}, Given: "16"}, Clients: 1, Trials: 2,
		Duration: prof.Duration(), OpTimeout: time.Second, Arrivals: results.ArrivalsUniform, MaxInFlight: 100, Profile: &prof, PoolAxes: axes,
		Events: []results.EventSpec{{Spec: "2s=stepdown", AtS: 2, Action: results.EventStepDown}}}
	ws := workload.WithPoolOptions([]workload.Workload{workload.DefaultWorkload()}, axes.Settings(), axes.Swept())
	h := newRunHeader("r", p, ws, []results.TargetHeader{{Name: "a"}}, len(p.Steps([]string{"a"}, []string{"x"}))*len(ws))
	path := filepath.Join(t.TempDir(), "results.jsonl")
	rw, err := results.CreateResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Write(h); err != nil {
		t.Fatal(err)
	}
	rw.Close()
	r, err := results.ReadResultsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := r.Header.Plan
	if got.Profile != "idle:1s,rate:500:2s" || !got.Cold || !slices.Equal(got.MinPool, []int{0, 8}) || !slices.Equal(got.MaxConnecting, []int{2, 16}) ||
		!slices.Equal(got.MaxIdleMS, []int64{0, 500}) || !slices.Equal(got.TimeoutMS, []int64{50}) || !slices.Equal(got.Retry, []string{"on", "off"}) ||
		!slices.Equal(got.ServerSelectionTimeoutMS, []int64{1000}) || !slices.Equal(got.HeartbeatMS, []int64{500, 10000}) ||
		!slices.Equal(got.Events, p.Events) {
		t.Fatalf("read back %+v", got)
	}
	if err := checkResume(r.Header, p, ws, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	other, _ := loadprofile.Parse("idle:1s,rate:900:2s", nil)
	for _, c := range []struct {
		flag   string
		mutate func(q *plan.Plan, a *plan.PoolAxes)
	}{
		{"--profile was", func(q *plan.Plan, _ *plan.PoolAxes) { q.Profile = &other }},
		{"--cold was given", func(_ *plan.Plan, a *plan.PoolAxes) { a.Cold = false }},
		{"--min-pool was", func(_ *plan.Plan, a *plan.PoolAxes) { a.MinPool = []int{0} }},
		{"--max-connecting was", func(_ *plan.Plan, a *plan.PoolAxes) { a.MaxConnecting = nil }},
		{"--max-idle was", func(_ *plan.Plan, a *plan.PoolAxes) { a.MaxIdle = []time.Duration{time.Second} }},
		{"--timeout was", func(_ *plan.Plan, a *plan.PoolAxes) { a.Timeout = nil }},
		{"--retry was on,off", func(_ *plan.Plan, a *plan.PoolAxes) { a.Retry = []bool{false} }},
		{"--server-selection-timeout was [1000] ms", func(_ *plan.Plan, a *plan.PoolAxes) { a.ServerSelectionTimeout = []time.Duration{2 * time.Second} }},
		{"--heartbeat was [500 10000] ms", func(_ *plan.Plan, a *plan.PoolAxes) { a.Heartbeat = nil }},
		{`--event was "2s=stepdown"`, func(q *plan.Plan, _ *plan.PoolAxes) { q.Events = nil }},
		{"--event was", func(q *plan.Plan, _ *plan.PoolAxes) {
			q.Events = []results.EventSpec{{Spec: "2s=slow=2:1s", AtS: 2, Action: results.EventSlow, Factor: 2, DurationS: 1}}
		}},
	} {
		q, a := p, *axes
		q.PoolAxes = &a
		c.mutate(&q, &a)
		if err := checkResume(r.Header, q, ws, []string{"a"}); err == nil || !strings.Contains(err.Error(), c.flag) {
			t.Errorf("resume with another setting: %v, want %q", err, c.flag)
		}
	}
	// The same event written otherwise is the same event.
	same := p
	same.Events = []results.EventSpec{{Spec: "2000ms=stepdown", AtS: 2, Action: results.EventStepDown}}
	if err := checkResume(r.Header, same, ws, []string{"a"}); err != nil {
		t.Errorf("resume with 2000ms=stepdown for 2s=stepdown: %v", err)
	}
	// A header that claims what no sweep writes is refused.
	bad := h
	bad.Plan.MaxConnecting = []int{0}
	if err := results.ValidateHeader(&bad); err == nil || !strings.Contains(err.Error(), "run.plan.max_connecting") {
		t.Errorf("max_connecting [0]: %v", err)
	}
	bad = h
	bad.Plan.Profile = ""
	if err := results.ValidateHeader(&bad); err == nil || !strings.Contains(err.Error(), "run.plan.cold") {
		t.Errorf("cold without a profile: %v", err)
	}
}
