package curves_test

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/poolsweep/poolsweep/analysis/curves"
	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
)

// TestGoldenRender renders the synthetic comparisons (both directions) as
// text and Markdown through analysis/render, the one renderer of the
// deployment verdict; refresh with go test ./analysis/curves -run Golden
// -update.
func TestGoldenRender(t *testing.T) {
	cs := curves.GoldenComparisons()
	var txt, md bytes.Buffer
	if err := render.Deployments(&txt, cs); err != nil {
		t.Fatal(err)
	}
	if err := render.DeploymentsMarkdown(&md, cs); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "curves.txt"), txt.Bytes())
	golden.Check(t, filepath.Join("testdata", "curves.md"), md.Bytes())
}
