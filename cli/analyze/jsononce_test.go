package analyze

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

// TestAnalysisJSONOneEncoding: analyze's JSON is one document encoded
// once, so the same analysis reads the same whatever is added to it: a
// label with HTML's characters (a pool of "a&b<c>") prints as it is with
// or without thresholds, and a document without thresholds has no
// "thresholds" key (never null).
func TestAnalysisJSONOneEncoding(t *testing.T) {
	o := knee.DefaultOptions()
	s := knee.Series{Target: "sim", Pool: "a&b<c>", Clients: 1, Hosts: 1}
	for _, c := range []int{1, 2, 4, 8} {
		s.Points = append(s.Points, knee.Point{Concurrency: c, Trial: 1, QPS: float64(100 * min(c, 4))})
	}
	a := &analysis.Analysis{Series: []knee.Report{knee.Analyze(s, o)}, Replays: []analysis.Replay{{Target: "sim", Pool: "a&b<c>"}}}
	outcomes := []results.ThresholdOutcome{{Threshold: "p99<20ms", Pass: true, Unit: "ms"}}
	for name, oc := range map[string][]results.ThresholdOutcome{"plain": nil, "thresholds": outcomes} {
		var b bytes.Buffer
		if err := writeAnalysisJSON(&b, a, oc, nil); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Contains(out, `\u0026`) || strings.Contains(out, `\u003c`) || !strings.Contains(out, `"pool": "a&b<c>"`) {
			t.Errorf("%s: HTML characters escaped, or the pool lost:\n%s", name, out)
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		if _, ok := doc["thresholds"]; ok != (oc != nil) {
			t.Errorf("%s: thresholds key present %v:\n%s", name, ok, out)
		}
		if _, ok := doc["replays"]; !ok {
			t.Errorf("%s: no replays:\n%s", name, out)
		}
	}
}
