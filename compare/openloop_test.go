package compare

import (
	"bytes"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/results"
)

// openResults is an open-loop run: the same max-in-flight (the steps'
// concurrency) and pool at every rate, three trials each.
func openResults(path string, rates []int, ops func(rate int) float64) *results.Results {
	r := &results.Results{Path: path, Header: results.RunHeader{Kind: results.KindRun, Schema: 1, Targets: []results.TargetHeader{{Name: "db"}}}}
	p := profile{read: 100, readMS: 2, serverCPU: -1, clientCPU: -1, noise: []float64{1, 1.01, 0.99}}
	for _, rate := range rates {
		for trial := 1; trial <= 3; trial++ {
			p.ops = ops(rate)
			s := fixtureStep("db", "read", 5000, trial, p)
			s.PoolSetting, s.MaxPoolSize = "16", 16
			s.Mode, s.Rate = results.ModeOpen, rate
			s.Open = &results.OpenLoopStats{OfferedPerS: float64(rate), AchievedPerS: s.CallsPerS}
			r.Steps = append(r.Steps, s)
		}
	}
	return r
}

// Open-loop steps pair on their rate: two rates are two steps, never
// trials of one; labels and unmatched steps name the rate, not the
// max-in-flight concurrency that every rate shares.
func TestMatchOpenLoop(t *testing.T) {
	base := openResults("base.jsonl", []int{1000, 2000, 4000}, func(r int) float64 { return float64(min(r, 3000)) })
	cand := openResults("cand.jsonl", []int{1000, 2000}, func(r int) float64 { return float64(min(r, 1500)) })
	c, err := Match([]*results.Results{base}, []*results.Results{cand}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Steps) != 2 || c.Steps[0].Rate != 1000 || c.Steps[1].Rate != 2000 || c.Steps[0].BaselineTrials != 3 {
		t.Fatalf("steps %+v", c.Steps)
	}
	if l := Label(c.Steps[1]); !strings.Contains(l, "rate=2000/s") || strings.Contains(l, "C=5000") {
		t.Errorf("label %q", l)
	}
	if m := c.Steps[1].Metrics[OpsPerS]; m == nil || m.DeltaPct == nil || *m.DeltaPct > -20 {
		t.Errorf("2000/s throughput change %+v, want about −25%%", m)
	}
	if len(c.Unmatched) != 1 || c.Unmatched[0].Rate != 4000 || !strings.Contains(c.Unmatched[0].Reason, "no rate=4000/s") {
		t.Errorf("unmatched %+v", c.Unmatched)
	}
	var text, js bytes.Buffer
	if err := WriteText(&text, c); err != nil {
		t.Fatal(err)
	}
	if err := WriteJSON(&js, c); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "rate=4000/s") || !strings.Contains(js.String(), `"rate": 2000`) {
		t.Errorf("text or JSON does not name the rates:\n%s\n%s", text.String(), js.String())
	}
	if h := c.Headline(); !strings.Contains(h.Text, "rate=") {
		t.Errorf("headline %q", h.Text)
	}
}
