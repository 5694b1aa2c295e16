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

// stepDownFig is a setting's step-down at 20 s as its steps recorded it
// (spread by ±2 % across trials).
type stepDownFig struct {
	recover         float64 // <0: did not recover
	errors, retried int64
	created         int64
	server, limit   int // the new primary's connections and its limit
}

// withStepDowns gives every step of r a step-down on h1 at 20 s, with the
// summary figs[maxConnecting] says.
func withStepDowns(r *results.Results, figs map[int]stepDownFig) *results.Results {
	for i := range r.Steps {
		st := &r.Steps[i]
		f := figs[st.PoolOptions.MaxConnecting]
		j := 1 + 0.02*float64(st.Trial%3-1)
		srv, limit, errs := int(float64(f.server)*j), f.limit, int64(float64(f.errors)*j)
		s := &results.EventSummary{
			Errors:    results.ErrorCounts{Server: errs, NotWritablePrimary: errs - 2, Network: 2, PoolCleared: 2},
			RetriedOK: f.retried, ConnectionsCreated: f.created, ConnectionsClosed: f.created, PoolClears: 1,
			PeakConnections: []results.HostPeak{{Host: "h1:27017", Peak: 40}, {Host: "h2:27017", Peak: 40, ServerPeak: &srv, Limit: &limit}},
			P99DuringMS:     new(1500 * j), DegradedAfter: new(f.recover < 0),
		}
		if f.recover >= 0 {
			s.TimeToRecoverS, s.TimeToRefillS = new(f.recover*j), new(0.8*f.recover*j)
		}
		st.Profile.Events = []results.StepEvent{{EventSpec: results.EventSpec{Spec: "20s=stepdown", AtS: 20, Action: results.EventStepDown},
			FiredS: 20.01, EndS: new(23.0), Via: results.EventViaStepDown, Host: "h1:27017", Summary: s}}
	}
	return r
}

func eventRun() *results.Results {
	return withStepDowns(profileSteps(5, coldDefaults, wideConnect, heldPool), map[int]stepDownFig{
		2:  {recover: 4.1, errors: 212, retried: 30, created: 40, server: 480, limit: 800},
		16: {recover: 1.2, errors: 60, retried: 35, created: 40, server: 520, limit: 800},
	})
}

// TestGoldenEvents renders a step-down under three settings as analyze
// prints it (text and JSON): the table, each setting against the
// baseline, the verdict in words, and the recommendation the events
// change. Refresh with go test ./analysis/render -run GoldenEvents
// -update.
func TestGoldenEvents(t *testing.T) {
	t.Parallel()
	a := analysis.Of([]*results.Results{eventRun()}, knee.DefaultOptions())
	var txt, js bytes.Buffer
	if err := Text(&txt, a); err != nil {
		t.Fatal(err)
	}
	if err := JSON(&js, a); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"events under load on sim", "after a step-down at 20 s on sim, minPoolSize 0 maxConnecting 2 recovers in 4.1 s [",
		"the new primary's (h2:27017) connections peak at 530 of 800"} {
		if !strings.Contains(txt.String(), want) {
			t.Errorf("text lacks %q", want)
		}
	}
	golden.Check(t, filepath.Join("testdata", "text-events.txt"), txt.Bytes())
	golden.Check(t, filepath.Join("testdata", "json-events.json"), js.Bytes())
}

// TestEventsJSON: analyze --format json carries "events", each setting's
// figures with their intervals and verdicts against the baseline, and
// the verdicts in words.
func TestEventsJSON(t *testing.T) {
	t.Parallel()
	a := analysis.Of([]*results.Results{eventRun()}, knee.DefaultOptions())
	var b bytes.Buffer
	if err := JSON(&b, a); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Events []struct {
			Event          string           `json:"event"`
			Baseline       bool             `json:"baseline"`
			TimeToRecoverS map[string]any   `json:"time_to_recover_s"`
			Versus         []map[string]any `json:"versus_baseline"`
		} `json:"events"`
		Verdicts []string `json:"event_verdicts"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Events) != 3 || !doc.Events[0].Baseline || doc.Events[1].TimeToRecoverS["low"] == nil || len(doc.Events[1].Versus) != len(analysis.EventMetrics) {
		t.Fatalf("events = %+v, want 3 settings with intervals, the first the baseline", doc.Events)
	}
	if len(doc.Verdicts) != 1 || !strings.HasPrefix(doc.Verdicts[0], "after a step-down at 20 s on sim") {
		t.Errorf("event_verdicts = %q", doc.Verdicts)
	}
}
