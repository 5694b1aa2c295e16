package report

import (
	"bytes"
	"html"
	"path/filepath"
	"strings"
	"testing"

	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/internal/testkit/golden"
	"github.com/poolsweep/poolsweep/results"
)

// recorded reads one of cmd/poolsweep's recorded simulator runs (its
// testdata/README.md says how each was made).
func recorded(t *testing.T, name string) *results.Results {
	t.Helper()
	r, err := results.ReadResultsFile(filepath.Join("..", "cmd", "poolsweep", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestFleetSection: a report given the fleet's plan shows it as the plan
// decided it — its table, recommendation, reasons and the storm's
// connection setup beside the knee — in HTML and Markdown, and the page
// still fetches nothing and leaks no error sample's password.
func TestFleetSection(t *testing.T) {
	run, storm := recorded(t, "sim-accept.jsonl"), recorded(t, "storm-accept.jsonl")
	// A storm's error sample is never shown.
	storm.Storms[0].ErrorSample = "connection(127.0.0.1:1) auth error: user u password hunter2"
	rs := []*results.Results{run}
	a := analyzed(rs...)
	plan, err := fleet.Make(rs, a, fleet.Options{Instances: 40, Storm: storm})
	if err != nil {
		t.Fatal(err)
	}
	rep, _ := build(t, rs, a, nil)
	rep.Fleet = plan
	sp := plan.Series[0]
	if sp.Setup == nil {
		t.Fatal("the recorded storm was not put beside the recorded run")
	}

	page := selfContainedHTML(t, rep)
	// html/template escapes more than escapeHTML ("+" too): compare the
	// page's text.
	h := html.UnescapeString(page)
	head := "<tr>"
	for _, c := range fleet.TableHead {
		head += "<th>" + c + "</th>"
	}
	for _, want := range []string{
		`<section id="fleet">`, "<h2>Fleet</h2>", head + "</tr>",
		"<strong>Recommendation:</strong> " + sp.Recommended.Statement,
		sp.Recommended.Reasons[0],
		sp.Setup.Saturations[0].Text(),
		"<h4>Connection setup</h4>", "a restart of the whole fleet takes about",
	} {
		if !strings.Contains(h, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	// One table row per row of the plan, the recommended one marked.
	section := h[strings.Index(h, `<section id="fleet">`):]
	section = section[:strings.Index(section, "</section>")]
	if n := strings.Count(section, "<tr><td>"); n != len(sp.Rows) {
		t.Errorf("%d fleet rows, the plan has %d", n, len(sp.Rows))
	}
	if !strings.Contains(section, "<td>recommended") {
		t.Error("no row marked recommended")
	}

	var m bytes.Buffer
	if err := rep.writeMarkdown(&m, ""); err != nil {
		t.Fatal(err)
	}
	md := m.String()
	if strings.Contains(md, "hunter2") {
		t.Error("the Markdown leaks the storm's error sample")
	}
	i, j := strings.Index(md, "## Fleet\n"), strings.Index(md, "## Figures\n")
	if i < 0 || j < i {
		t.Fatalf("no fleet section before the figures:\n%s", md)
	}
	fleetMD := md[i:j]
	for _, want := range []string{mdRow(fleet.TableHead), "**Recommendation:** " + mdEscape(sp.Recommended.Statement), "#### Connection setup"} {
		if !strings.Contains(fleetMD, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	golden.Check(t, filepath.Join("testdata", "fleet-section.md.golden"), []byte(fleetMD))
}

// A report without a plan has no fleet section.
func TestNoFleetSectionWithoutAPlan(t *testing.T) {
	rs := []*results.Results{recorded(t, "sim-accept.jsonl")}
	rep, _ := build(t, rs, analyzed(rs...), nil)
	h := selfContainedHTML(t, rep)
	var m bytes.Buffer
	if err := rep.writeMarkdown(&m, ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h, "Fleet") || strings.Contains(m.String(), "## Fleet") {
		t.Error("a fleet section without a plan")
	}
}
