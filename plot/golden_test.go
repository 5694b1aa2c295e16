package plot

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// readTestdata reads testdata/name, a results file, or fails the test.
func readTestdata(t *testing.T, name string) *results.Results {
	t.Helper()
	r, err := results.ReadResultsFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// checkFigureData checks that figs are the figures named want, in order,
// and compares their data and the notes with testdata/golden/name.json:
// numbers rather than pixels. It returns the figures' data.
func checkFigureData(t *testing.T, name string, figs []Figure, notes, want []string) []figureData {
	t.Helper()
	var names []string
	var data []figureData
	for _, f := range figs {
		names = append(names, f.Name)
		data = append(data, f.Data)
	}
	if !slices.Equal(names, want) {
		t.Errorf("figures %v, want %v", names, want)
	}
	got, err := json.MarshalIndent(struct {
		Figures []figureData `json:"figures"`
		Notes   []string     `json:"notes"`
	}{data, notes}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "golden", name+".json"), got)
	return data
}
