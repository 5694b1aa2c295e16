package report

import (
	"bytes"
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/knee"
	"github.com/poolsweep/poolsweep/results"
)

var lookDir = flag.String("lookdir", "", "also write the reports here, to look at")

// fixture reads one of the plot package's recorded results (generated from
// known curves; see plot/gen_test.go).
func fixture(t *testing.T, name string) *results.Results {
	t.Helper()
	r, err := results.ReadResultsFile(filepath.Join("..", "plot", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// analyzed is the analysis of rs together, with analyze's defaults.
func analyzed(rs ...*results.Results) *analysis.Analysis {
	return analysis.Of(rs, knee.DefaultOptions())
}

// build is New's report, or the test fails.
func build(t *testing.T, rs []*results.Results, a *analysis.Analysis, ab *AB) (*Report, []string) {
	t.Helper()
	r, notes, err := New(rs, a, ab)
	if err != nil {
		t.Fatal(err)
	}
	return r, notes
}

func escapeHTML(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

var externalRef = regexp.MustCompile(`(?i)(src|href)\s*=\s*["']?\s*(https?:|//)`)

// selfContainedHTML is rep's HTML page, which must fetch nothing (no
// external reference, script, stylesheet or import) and leak no error
// sample's password.
func selfContainedHTML(t *testing.T, rep *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	if m := externalRef.FindString(h); m != "" {
		t.Errorf("external reference %q in the report", m)
	}
	for _, bad := range []string{"<script", "<link", "@import", "url(", "hunter2"} {
		if strings.Contains(h, bad) {
			t.Errorf("report contains %q", bad)
		}
	}
	return h
}
