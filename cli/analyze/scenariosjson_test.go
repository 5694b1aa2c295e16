package analyze

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/results"
)

// TestAnalysisJSONKeepsScenarios: with threshold outcomes beside it,
// analyze's JSON still carries the profile settings, their events with
// the verdicts in words, and the pool options recommended (the
// re-encoding keeps every field the analysis wrote).
func TestAnalysisJSONKeepsScenarios(t *testing.T) {
	v := int64(40)
	a := &analysis.Analysis{
		Scenarios: []analysis.Scenario{{Target: "sim", Series: "api", MaxPoolSize: 100, Trials: 1}},
		Events:    []analysis.EventResult{{Target: "sim", Series: "api", MaxPoolSize: 100, Event: "10s=reset", Action: results.EventReset, AtS: 10}},
		Pool: []analysis.PoolRecommendation{{Target: "sim", PoolOptions: analysis.PoolOptionsRec{
			MinPoolSize: analysis.Choice{Value: &v, From: "scenarios", Why: "because"}}}},
	}
	var b bytes.Buffer
	outcomes := []results.ThresholdOutcome{{Threshold: "p99<20ms", Pass: true, Unit: "ms"}}
	if err := writeAnalysisJSON(&b, a, outcomes, nil); err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"scenarios", "events", "event_verdicts", "recommendation", "thresholds"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("analyze JSON lacks %q:\n%s", k, b.String())
		}
	}
}
