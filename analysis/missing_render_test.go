package analysis_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/results"
)

// TestMissingRendered: the missing steps end analyze's text with their
// line, and its JSON lists them with the same line as text.
func TestMissingRendered(t *testing.T) {
	concs := []int{1, 2, 4}
	r := analysis.Planned(results.PlanInfo{Concurrency: concs, Pool: "match", Trials: 1, Steps: 3}, []string{"sim"}, nil,
		&results.EndRecord{Status: "partial", Reason: "1 step(s) failed"}, analysis.Grid("sim", "read", "match", concs[:2], 1))
	rs := []*results.Results{r}
	ms := analysis.MissingSteps(rs)
	reports := knee.AnalyzeAll(knee.FromResults(rs), knee.DefaultOptions())
	var text, js strings.Builder
	if err := render.Text(&text, &analysis.Analysis{Series: reports, Missing: ms}); err != nil {
		t.Fatal(err)
	}
	if err := render.JSON(&js, &analysis.Analysis{Series: reports, Missing: ms}); err != nil {
		t.Fatal(err)
	}
	line := "missing: target=sim pool=match C=4; the run ended partial: 1 step(s) failed"
	if !strings.HasSuffix(text.String(), "\n\n"+line+"\n") {
		t.Errorf("text does not end with the missing line:\n%s", text.String())
	}
	var doc struct {
		Missing []analysis.Missing `json:"missing"`
	}
	if err := json.Unmarshal([]byte(js.String()), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Missing) != 1 || doc.Missing[0].Text != line || doc.Missing[0].Planned != 3 || doc.Missing[0].Measured != 2 {
		t.Errorf("json missing %+v", doc.Missing)
	}
}
