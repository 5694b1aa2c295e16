package render

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// setting is a synthetic profile setting: its pool options and what each
// trial's summary says (spread by ±2 % across trials).
type setting struct {
	minPool, maxConn   int
	fill, worst, perS  float64
	steadyP99, created float64
	inUse              int
}

// profileSteps builds a results file of profile steps, trials
// interleaved as the sweep runs them: a burst of 500 calls/s after 10 s
// idle, then 20 s idle, then the burst again.
func profileSteps(trials int, ss ...setting) *results.Results {
	phases := []results.ProfilePhase{
		{Kind: "idle", StartS: 0, EndS: 10},
		{Kind: "rate", StartS: 10, EndS: 40, From: 500, To: 500},
		{Kind: "idle", StartS: 40, EndS: 60},
		{Kind: "rate", StartS: 60, EndS: 90, From: 500, To: 500},
	}
	r := &results.Results{Path: "burst.jsonl"}
	for n := 1; n <= trials; n++ {
		j := 1 + 0.02*float64(n%3-1)
		for _, s := range ss {
			f := func(v float64) *float64 { v *= j; return &v }
			o := results.PoolOptions{MinPoolSize: s.minPool, MaxConnecting: s.maxConn, Cold: true}
			r.Steps = append(r.Steps, results.StepResult{
				Kind: results.KindStep, Mode: results.ModeProfile, Target: "sim", Workload: "api", PoolSetting: "100",
				MaxPoolSize: 100, Clients: 1, Trial: n, PoolOptions: &o,
				Profile: &results.ProfileStats{
					Spec: "idle:10s,rate:500:30s,idle:20s,rate:500:30s", PeakRate: 500, Phases: phases,
					Timeline: results.Timeline{IntervalS: 0.1, Intervals: []results.TimelineInterval{{InUse: s.inUse, Open: s.inUse}}},
					Summary: results.ProfileSummary{
						TimeToFillS: f(s.fill), WorstP99MS: f(s.worst), FirstSecondP99MS: f(s.worst), TimeToSteadyS: f(s.fill + 0.5),
						SteadyPerS:         &results.Interval{Value: s.perS, Low: s.perS * 0.99, High: s.perS * 1.01},
						SteadyP99MS:        &results.Interval{Value: s.steadyP99, Low: s.steadyP99 * 0.95, High: s.steadyP99 * 1.05},
						ConnectionsCreated: int64(s.created * j), ConnectionsClosed: int64(s.created * j),
					},
				},
			})
		}
	}
	return r
}

var (
	coldDefaults = setting{minPool: 0, maxConn: 2, fill: 4, worst: 400, perS: 500, steadyP99: 5, created: 80, inUse: 40}
	wideConnect  = setting{minPool: 0, maxConn: 16, fill: 0.6, worst: 9, perS: 500, steadyP99: 5, created: 80, inUse: 40}
	heldPool     = setting{minPool: 40, maxConn: 2, fill: 0, worst: 6, perS: 500, steadyP99: 5, created: 40, inUse: 40}
)

// TestGoldenScenarios renders profile settings and the recommendation as
// analyze prints them, in both directions for minPoolSize: a setting
// that removes the burst's spike, and a rate above capacity that none
// removes. Refresh with go test ./analysis/render -run GoldenScenarios
// -update.
func TestGoldenScenarios(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		res  *results.Results
	}{
		// The defaults spike; maxConnecting 16 and minPoolSize 40 remove it.
		{"removed", profileSteps(5, coldDefaults, wideConnect, heldPool)},
		// 800 calls/s offered, 520 carried whatever the pool: the spike is
		// the server's.
		{"capacity", profileSteps(3,
			setting{minPool: 0, maxConn: 2, fill: 4, worst: 2000, perS: 520, steadyP99: 900, created: 100, inUse: 100},
			setting{minPool: 100, maxConn: 2, fill: 0, worst: 1900, perS: 520, steadyP99: 900, created: 100, inUse: 100})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "capacity" {
				for i := range tc.res.Steps {
					ph := tc.res.Steps[i].Profile.Phases
					ph[1].From, ph[1].To, ph[3].From, ph[3].To = 800, 800, 800, 800
				}
			}
			a := analysis.Of([]*results.Results{tc.res}, knee.DefaultOptions())
			var txt, sum bytes.Buffer
			if err := Text(&txt, a); err != nil {
				t.Fatal(err)
			}
			if err := Summary(&sum, tc.res, a); err != nil {
				t.Fatal(err)
			}
			// The sweep's end summary holds the same section.
			if !strings.Contains(sum.String(), strings.TrimSpace(txt.String())) {
				t.Errorf("the end summary lacks analyze's scenarios:\n%s", sum.String())
			}
			golden.Check(t, filepath.Join("testdata", "text-scenarios-"+tc.name+".txt"), txt.Bytes())
		})
	}
}

// TestScenariosJSON: analyze --format json carries "scenarios" and
// "recommendation.pool_options" with the five options, each driver's
// words beside its default.
func TestScenariosJSON(t *testing.T) {
	t.Parallel()
	a := analysis.Of([]*results.Results{profileSteps(3, coldDefaults, wideConnect, heldPool)}, knee.DefaultOptions())
	var b bytes.Buffer
	if err := JSON(&b, a); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Scenarios []struct {
			Series      string         `json:"series"`
			WorstP99MS  map[string]any `json:"worst_p99_ms"`
			Versus      []map[string]any
			PoolOptions map[string]any `json:"pool_options"`
		} `json:"scenarios"`
		Recommendation struct {
			PoolOptions map[string]struct {
				Value *int64 `json:"value"`
				Why   string `json:"why"`
			} `json:"pool_options"`
			Drivers []struct {
				Driver   string    `json:"driver"`
				Settings []Setting `json:"settings"`
			} `json:"drivers"`
		} `json:"recommendation"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Scenarios) != 3 || doc.Scenarios[0].WorstP99MS["low"] == nil {
		t.Fatalf("scenarios = %+v, want 3 with intervals", doc.Scenarios)
	}
	for _, k := range []string{"max_pool_size", "min_pool_size", "max_connecting", "max_idle_ms", "timeout_ms"} {
		c, ok := doc.Recommendation.PoolOptions[k]
		if !ok || c.Why == "" {
			t.Errorf("recommendation.pool_options.%s = %+v, want a choice with its reason", k, c)
		}
	}
	if len(doc.Recommendation.Drivers) != 5 {
		t.Fatalf("drivers = %d, want Go, Java, Node, Python and C#", len(doc.Recommendation.Drivers))
	}
	cs := doc.Recommendation.Drivers[4]
	if cs.Driver != "C#" || !hasSetting(cs.Settings, "MaxConnectionIdleTime = TimeSpan.FromMilliseconds(30000)", "10 minutes") {
		t.Errorf("C# settings = %+v, want the idle time with its 10-minute default", cs.Settings)
	}
}

func hasSetting(ss []Setting, code, def string) bool {
	for _, s := range ss {
		if s.Code == code && s.Default == def {
			return true
		}
	}
	return false
}
