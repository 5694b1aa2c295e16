package knee

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// stepSeries is a knee at 8 (1000 → 8000 ops/s, flat after) with trials
// per level, each point labelled by bound(c, trial).
func stepSeries(trials int, bound func(c, trial int) string) Series {
	s := Series{Target: "sim", Pool: "match", Clients: 1}
	for _, c := range []int{1, 2, 4, 8, 16, 32, 64} {
		q := 1000.0 * float64(min(c, 8))
		for tr := range trials {
			s.Points = append(s.Points, Point{Concurrency: c, QPS: q * (1 + 0.002*float64(tr)), Trial: tr + 1, Bound: bound(c, tr)})
		}
	}
	return s
}

func TestLoadHostLimitedKnee(t *testing.T) {
	none := func(int, int) string { return "server" }
	past := func(c, _ int) string { // the load host limited 16–64
		if c >= 16 {
			return "client"
		}
		return "server"
	}
	oneOfThree := func(c, tr int) string { // a single trial per level: a minority
		if c >= 16 && tr == 0 {
			return "client"
		}
		return "server"
	}
	below := func(c, _ int) string { // the level under the knee
		if c == 4 {
			return "client"
		}
		return "server"
	}
	far := func(c, _ int) string { // only far below the knee: not its neighbours
		if c == 1 {
			return "client"
		}
		return "server"
	}
	tests := []struct {
		name     string
		trials   int
		bound    func(c, trial int) string
		conf     string // confidence wanted
		limited  []int  // Knee.LoadHostLimited wanted
		sentence string // must be in the statement ("" = no load-host note)
	}{
		// Untouched: 3 trials, a clean step, the server limited it.
		{"server-bound", 3, none, "high", nil, ""},
		// The steps that decided the knee were the load host's: at most low.
		{"client past the knee", 3, past, "low", []int{16, 32, 64},
			"low confidence: the load host limited steps 16–64, see bound_reason; rerun with --clients on more machines"},
		// One trial in three is a minority: the medians stand.
		{"client minority", 3, oneOfThree, "high", nil, ""},
		// The level below the knee is a neighbour too.
		{"client below the knee", 3, below, "low", []int{4}, "the load host limited step 4,"},
		// A level two doublings below the knee did not decide it.
		{"client far below", 3, far, "high", nil, ""},
		// One trial: unconfirmed stays (it is lower than low), with the note.
		{"unconfirmed and client", 1, past, "unconfirmed", []int{16, 32, 64}, "; the load host limited steps 16–64"},
	}
	for _, tt := range tests {
		r := Analyze(stepSeries(tt.trials, tt.bound), DefaultOptions())
		if !r.Knee.Found || r.Knee.Concurrency != 8 {
			t.Fatalf("%s: knee %+v, want 8", tt.name, r.Knee)
		}
		if r.Knee.Confidence != tt.conf || !slices.Equal(r.Knee.LoadHostLimited, tt.limited) {
			t.Errorf("%s: confidence %s limited %v, want %s %v", tt.name, r.Knee.Confidence, r.Knee.LoadHostLimited, tt.conf, tt.limited)
		}
		if tt.sentence == "" {
			if strings.Contains(r.Knee.Statement, "load host") {
				t.Errorf("%s: statement %q blames the load host", tt.name, r.Knee.Statement)
			}
			continue
		}
		for what, text := range map[string]string{"statement": r.Knee.Statement, "verdict": r.Verdict, "summary": Summary(r)} {
			if !strings.Contains(text, tt.sentence) {
				t.Errorf("%s: %s %q lacks %q", tt.name, what, text, tt.sentence)
			}
		}
	}
}

func TestLoadHostLimitedNoKnee(t *testing.T) {
	// Still rising at the top, where the load host ran out: the "test
	// higher concurrency" advice must say the top was the load host's.
	s := uslSeries(300, 0, 0, []int{1, 2, 4, 8, 16}, 3, 0, 1)
	for i := range s.Points {
		if s.Points[i].Concurrency >= 8 {
			s.Points[i].Bound = "client"
		}
	}
	r := Analyze(s, DefaultOptions())
	if r.Knee.Found {
		t.Fatalf("knee %d on a straight line", r.Knee.Concurrency)
	}
	want := "the load host limited steps 8–16"
	if !strings.Contains(r.Knee.Statement, want) || !strings.Contains(Summary(r), want) {
		t.Errorf("statement %q / summary %q lack %q", r.Knee.Statement, Summary(r), want)
	}
}

// decode renders reports as JSON and returns the first series as a map.
func decode(t *testing.T, r Report) map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteJSON(&buf, []Report{r}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Series []map[string]any `json:"series"`
	}
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Series[0]
}

func field(m map[string]any, path string) (any, bool) {
	var v any = m
	for _, p := range strings.Split(path, ".") {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = mm[p]; !ok {
			return nil, false
		}
	}
	return v, true
}

func TestJSONNullsForUnknowns(t *testing.T) {
	tests := []struct {
		name  string
		r     Report
		null  []string // keys that must be present and null
		value []string // keys that must be present and not null
	}{
		{"no knee", Analyze(uslSeries(300, 0, 0, []int{1, 2, 4, 8}, 1, 0, 1), DefaultOptions()),
			[]string{"knee.concurrency", "knee.low", "knee.high", "knee.qps", "methods.usl.lambda", "methods.usl.r2", "methods.usl.bound", "levels.connections"},
			[]string{"knee.found", "peak.concurrency", "peak.qps", "recommendation.concurrency"}},
		{"knee", Analyze(stepSeries(3, func(int, int) string { return "" }), DefaultOptions()),
			nil, []string{"knee.concurrency", "knee.low", "knee.high", "knee.qps", "methods.usl.lambda", "methods.usl.peak_qps"}},
		{"nothing measured", Analyze(Series{Target: "empty"}, DefaultOptions()),
			[]string{"peak.concurrency", "peak.qps", "recommendation.concurrency", "recommendation.max_pool_size", "knee.concurrency"}, nil},
		// κ = 0 with σ > 0: no finite peak, the asymptote instead.
		{"amdahl", Analyze(uslSeries(1000, 0.1, 0, geomGrid(512, false), 1, 0, 1), DefaultOptions()),
			[]string{"methods.usl.n_star", "methods.usl.peak_qps"}, []string{"methods.usl.asymptote_qps", "methods.usl.kappa"}},
	}
	for _, tt := range tests {
		m := decode(t, tt.r)
		if lv, ok := m["levels"].([]any); ok && len(lv) > 0 {
			m["levels"] = lv[0] // "levels.x" checks the first level
		}
		for _, k := range tt.null {
			if v, ok := field(m, k); !ok || v != nil {
				t.Errorf("%s: %s = %v (present %v), want null", tt.name, k, v, ok)
			}
		}
		for _, k := range tt.value {
			if v, ok := field(m, k); !ok || v == nil {
				t.Errorf("%s: %s = %v (present %v), want a value", tt.name, k, v, ok)
			}
		}
	}
}

func TestUSLWordsNoFinitePeak(t *testing.T) {
	tests := []struct {
		name        string
		sigma, kapp float64
		want        string
	}{
		{"coherency gives a peak", 0.05, 0.0002, "fitted peak "},
		{"amdahl approaches a level", 0.1, 0, "no finite peak (approaches 10,000 ops/s)"},
		{"a straight line", 0, 0, "no finite peak (linear)"},
	}
	for _, tt := range tests {
		r := Analyze(uslSeries(1000, tt.sigma, tt.kapp, geomGrid(512, false), 1, 0, 1), DefaultOptions())
		var buf bytes.Buffer
		if err := WriteText(&buf, []Report{r}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), tt.want) || strings.Contains(buf.String(), "fitted peak 0 ops/s") {
			t.Errorf("%s: usl line lacks %q:\n%s", tt.name, tt.want, buf.String())
		}
	}
}

func TestNoRecommendationOfZero(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteText(&buf, []Report{Analyze(Series{Target: "empty"}, DefaultOptions())}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "concurrency 0") || !strings.Contains(buf.String(), "recommendation: none") {
		t.Errorf("empty series:\n%s", buf.String())
	}
}
