package plan

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/poolsweep/poolsweep/loadprofile"
	"github.com/poolsweep/poolsweep/results"
)

func profilePlan(t *testing.T, spec string) Plan {
	t.Helper()
	prof, err := loadprofile.Parse(spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	return Plan{Concurrency: []int{500}, Pool: PoolPlan{Sizes: []int{16, 64}, Given: "16,64"}, Clients: 1, Trials: 3,
		Duration: prof.Duration(), OpTimeout: time.Second, Arrivals: results.ArrivalsUniform, MaxInFlight: 500, Profile: &prof}
}

// A profile plan is one step per pool size for every setting (a workload
// series) and trial, trials outermost: within a trial every setting runs
// once, so that a drift of the machine falls on all of them alike. Every
// step carries the profile and a rate of its peak rounded up, and every
// key differs (resume tells them apart).
func TestProfilePlanSteps(t *testing.T) {
	p := profilePlan(t, "idle:2s,ramp:0:999.5:3s")
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	settings := []string{"read maxConnecting=2 cold", "read maxConnecting=16 cold"}
	steps := p.Steps([]string{"a"}, settings)
	if len(steps) != 2*2*3 {
		t.Fatalf("%d steps, want 12", len(steps))
	}
	keys := map[string]bool{}
	var order []string
	for i, s := range steps {
		if s.Profile != p.Profile || s.Rate != 1000 || s.Concurrency != 500 || s.Arrivals != results.ArrivalsUniform || s.Index != i {
			t.Errorf("step %d: %+v", i, s)
		}
		if keys[s.Key()] {
			t.Errorf("step %d: key %s twice", i, s.Key())
		}
		keys[s.Key()] = true
		order = append(order, fmt.Sprintf("%d/%s/%d", s.Trial, strings.Fields(s.Workload)[1], s.MaxPoolSize))
	}
	// Trials outer; within each, every setting at every pool size.
	want := []string{}
	for trial := 1; trial <= 3; trial++ {
		for _, w := range []string{"maxConnecting=2", "maxConnecting=16"} {
			for _, ps := range []int{16, 64} {
				want = append(want, fmt.Sprintf("%d/%s/%d", trial, w, ps))
			}
		}
	}
	if !slices.Equal(order, want) {
		t.Errorf("order\n%v\nwant\n%v", order, want)
	}
	if n := p.SeriesSteps([]string{"a"}); n*len(settings) != len(steps) {
		t.Errorf("SeriesSteps %d × %d series, but %d steps", n, len(settings), len(steps))
	}
}

// A profile step lasts its profile and the drain of its last calls: the
// run-time bound and the plan line count that, not a warm-up and window.
func TestProfilePlanLengths(t *testing.T) {
	p := profilePlan(t, "rate:100:90s")
	lo, hi := p.StepLengths()
	want := 90*time.Second + p.OpTimeout*5/4 + time.Second
	if lo != want || hi != want {
		t.Errorf("step lengths %s..%s, want %s", lo, hi, want)
	}
	steps := p.Steps([]string{"a"}, []string{"read"})
	if got := p.LongestS(steps); got < float64(len(steps))*want.Seconds() {
		t.Errorf("LongestS %gs, less than %d steps × %s", got, len(steps), want)
	}
	long := profilePlan(t, "rate:100:3h")
	long.Trials = 100
	if err := long.Validate(); err != nil {
		t.Fatal(err) // each step within the bound; the run is not
	}
	s := long.Steps([]string{"a"}, []string{"read"})
	if err := CheckRunTime("--profile, --pool and --trials", len(s), "steps", long.LongestS(s)); err == nil {
		t.Error("600 h of profiles passed the run-time bound")
	}
}

// Each refusal names the flag that contradicts the plan.
func TestProfilePlanValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(p *Plan)
		want   string
	}{
		{"a profile longer than a step may be", func(p *Plan) {
			prof, _ := loadprofile.Parse("rate:10:4h,rate:10:1s", nil)
			p.Profile = &prof
		}, "--profile: it lasts 4h0m1s"},
		{"a peak above one process", func(p *Plan) {
			// Parse refuses this rate itself; the plan holds the bound
			// for a profile built otherwise.
			p.Profile = &loadprofile.Profile{Spec: "rate:10000001:1s", Phases: []loadprofile.Phase{{Kind: loadprofile.KindRate, From: 10000001, To: 10000001, Duration: time.Second}}}
		}, "--profile: its peak: 10000001 calls/s"},
		{"a peak under a call a second per client", func(p *Plan) { p.Clients = 200 }, "--profile: its peak: 100 calls/s over 200 clients"},
		{"with rate", func(p *Plan) { p.Rate = []int{10} }, "--profile and --rate"},
		{"with search", func(p *Plan) { p.Search = &results.SearchPlan{Mode: results.SearchKnee} }, "--profile and --search"},
		{"pool match", func(p *Plan) { p.Pool = PoolPlan{Match: true, Given: "match"} }, "--pool: match"},
		{"cold min-pool above a pool", func(p *Plan) { p.PoolAxes = &PoolAxes{Cold: true, MinPool: []int{0, 32}} }, "--cold and --min-pool: 32 is above --pool 16"},
		{"min-pool above a pool", func(p *Plan) { p.PoolAxes = &PoolAxes{MinPool: []int{17}} }, "--min-pool: 17 is above --pool 16"},
		{"timeout above op-timeout", func(p *Plan) { p.PoolAxes = &PoolAxes{Timeout: []time.Duration{2 * time.Second}} }, "--timeout: 2s is above --op-timeout 1s"},
		{"cold without a profile", func(p *Plan) {
			p.Profile, p.PoolAxes, p.Rate = nil, &PoolAxes{Cold: true}, []int{100}
		}, "--cold: only with --profile"},
	}
	for _, tt := range tests {
		p := profilePlan(t, "rate:100:10s")
		tt.mutate(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want %q", tt.name, err, tt.want)
		}
	}
	// The limits themselves pass.
	p := profilePlan(t, "rate:100:10s")
	p.PoolAxes = &PoolAxes{Cold: true, MinPool: []int{0, 16}, Timeout: []time.Duration{time.Second}}
	if err := p.Validate(); err != nil {
		t.Errorf("min-pool at the smallest pool, timeout at --op-timeout: %v", err)
	}
}

// The axes' lists: what each takes, and the settings they cross into.
func TestPoolAxesParse(t *testing.T) {
	if got, err := ParseMinPool("64, 0,16"); err != nil || !slices.Equal(got, []int{0, 16, 64}) {
		t.Errorf("ParseMinPool: %v %v", got, err)
	}
	for _, bad := range []string{"", "1,,2", "-1", "100001", "x", "1.5", "3,3", strings.Repeat("1,", 40) + "1"} {
		if _, err := ParseMinPool(bad); err == nil {
			t.Errorf("ParseMinPool(%q) passed", bad)
		}
	}
	if got, err := ParseLengths("10s,0,500ms", time.Millisecond, MaxIdle, "never"); err != nil ||
		!slices.Equal(got, []time.Duration{0, 500 * time.Millisecond, 10 * time.Second}) {
		t.Errorf("ParseLengths: %v %v", got, err)
	}
	for _, bad := range []string{"0", "-1ms", "1500us", "2h", "1", "NaN", "1ms,1ms"} {
		if _, err := ParseLengths(bad, time.Millisecond, time.Hour, ""); err == nil {
			t.Errorf("ParseLengths(%q) without zero passed", bad)
		}
	}
	a := PoolAxes{MinPool: []int{0, 8}, MaxConnecting: []int{2, 16}, Timeout: []time.Duration{50 * time.Millisecond}, Cold: true}
	s := a.Settings()
	if len(s) != 4 || s[0] != (results.PoolOptions{MaxConnecting: 2, TimeoutMS: 50, Cold: true}) ||
		s[3] != (results.PoolOptions{MinPoolSize: 8, MaxConnecting: 16, TimeoutMS: 50, Cold: true}) {
		t.Errorf("settings %+v", s)
	}
	if got := results.PoolSeriesLabel("read", s[3], a.Swept()); got != "read minPool=8 maxConnecting=16 timeout=50ms cold" {
		t.Errorf("label %q", got)
	}
	if n := len((PoolAxes{}).Settings()); n != 1 {
		t.Errorf("no axes: %d settings, want 1", n)
	}

	// The driver's options: retry on before off, each combination once,
	// the heartbeat innermost.
	if got, err := ParseRetry("off,on"); err != nil || !slices.Equal(got, []bool{true, false}) {
		t.Errorf("ParseRetry: %v %v", got, err)
	}
	for _, bad := range []string{"", "yes", "on,on", "On", "on,,off"} {
		if _, err := ParseRetry(bad); err == nil {
			t.Errorf("ParseRetry(%q) passed", bad)
		}
	}
	d := PoolAxes{MaxConnecting: []int{2}, Retry: []bool{true, false}, ServerSelectionTimeout: []time.Duration{time.Second},
		Heartbeat: []time.Duration{500 * time.Millisecond, 10 * time.Second}}
	ds := d.Settings()
	if len(ds) != 4 || ds[1] != (results.PoolOptions{MaxConnecting: 2, RetryReads: "on", RetryWrites: "on", ServerSelectionTimeoutMS: 1000, HeartbeatMS: 10000}) ||
		ds[2] != (results.PoolOptions{MaxConnecting: 2, RetryReads: "off", RetryWrites: "off", ServerSelectionTimeoutMS: 1000, HeartbeatMS: 500}) {
		t.Errorf("driver settings %+v", ds)
	}
	if got := results.PoolSeriesLabel("read", ds[2], d.Swept()); got != "read maxConnecting=2 retry=off serverSelection=1s heartbeat=500ms" {
		t.Errorf("label %q", got)
	}
}
