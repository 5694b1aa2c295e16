package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/poolsweep/poolsweep/analysis"
	"github.com/poolsweep/poolsweep/analysis/curves"
	"github.com/poolsweep/poolsweep/analysis/fleet"
	"github.com/poolsweep/poolsweep/analysis/render"
	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/internal/runinfo"
	"github.com/poolsweep/poolsweep/plot"
	"github.com/poolsweep/poolsweep/results"
)

// reportView is everything the report templates show, as strings.
type reportView struct {
	Runs []runView
	// Analysis says how the knee analysis read the files, and Commands
	// the poolsweep analyze command lines that give the same verdicts;
	// both empty when the options are not known.
	Analysis string
	Commands []string
	Verdicts []verdictView
	// Curves are the deployments compared curve against curve (which
	// deployment, and by how much): the analysis's when the files hold
	// several targets, unless the A/B section (compare's own, when its
	// sides are two targets) already shows them.
	Curves  []curvesView
	Figures []figView
	Skipped []string
	AB      *abView // nil unless the report compares two runs
	Fleet   *fleetView
	// StepWarnings and StepNotes are what single steps' records say
	// beyond their numbers (analysis.StepNote).
	StepWarnings, StepNotes []string
}

// fleetView is the fleet plan's section: the plan's own sections
// (fleet.Plan.Sections), laid out as HTML or Markdown.
type fleetView struct {
	Intro    string
	Head     []string
	Sections []fleet.Section
}

type runView struct {
	Title    string
	Facts    [][2]string // label, value
	Targets  []targetView
	Notes    []string // the targets' notes, one per distinct note
	Table    stepTable
	Warnings []string
	// OpenTable is the open-loop steps (sweep --rate); empty without.
	OpenTable stepTable
	// ProfileTable is the profile steps (sweep --profile), each with its
	// summary; empty without.
	ProfileTable stepTable
	// EventTable is the profile steps' events (sweep --event), one row
	// each with its summary; empty without.
	EventTable stepTable
	// HostTable is the pools per server (replica-set members, mongos),
	// LagTable each secondary's replication lag; empty when the run has
	// none.
	HostTable, LagTable stepTable
	// RouterTable is the routers' pools to the shard hosts per step;
	// empty when no step sampled a router's pools.
	RouterTable stepTable
}

type targetView struct {
	Name, Topology, Server, Hosts, URI string
}

type verdictView struct {
	Name     string
	Summary  string
	Verdict  string
	Warnings []string
}

// curvesView is one curve comparison (analysis/curves) as the report
// shows it: its verdict, its figures, the latency at matched throughput
// and the seeds' table.
type curvesView struct {
	Title, Verdict string
	Facts          [][2]string
	Matched, Table stepTable
	Notes          []string
}

func curvesViews(cs []*curves.Comparison) []curvesView {
	var out []curvesView
	for _, c := range cs {
		v := curvesView{Title: c.Title(), Verdict: c.Verdict, Facts: render.DeploymentFacts(c), Notes: c.Notes}
		v.Matched.Head, v.Matched.Rows = render.MatchedTable(c)
		v.Table.Head, v.Table.Rows = render.SeedTable(c)
		out = append(out, v)
	}
	return out
}

type figView struct {
	Name, Title, Caption string
	SVG                  template.HTML
	PNG                  string
}

type stepTable struct {
	Head []string
	Rows [][]string
}

func buildView(r *Report, pngNames, abPNGNames []string, withSVG bool) (reportView, error) {
	var v reportView
	rs := r.Results
	multi := len(rs) > 1
	for i, res := range rs {
		rv := runViewOf(res, multi)
		if r.Comparison != nil && r.each() && len(rs) == 2 {
			// Which run is which side of the A/B, in the heading.
			rv.Title = [...]string{"Baseline", "Candidate"}[i] + ": " + rv.Title
		}
		v.Runs = append(v.Runs, rv)
	}
	kinds := map[string]string{}
	for _, res := range rs {
		for _, t := range res.Header.Targets {
			if n := runinfo.ServerKind(&t); n != "" {
				kinds[t.Name] = n
			}
		}
	}
	runOf := r.analysisRuns()
	for i, rep := range r.Analysis.Series {
		name := rep.Target + " · pool=" + rep.Pool
		if rep.Clients > 1 {
			name += " · clients=" + strconv.Itoa(rep.Clients)
		}
		if rep.Workload != "" {
			name += " · " + rep.Workload
		}
		if k := kinds[rep.Target]; k != "" {
			name += " (" + k + ")"
		}
		if runOf != nil {
			name = runOf[i] + ": " + name
		}
		v.Verdicts = append(v.Verdicts, verdictView{Name: name, Summary: render.KneeLine(rep), Verdict: rep.Verdict, Warnings: rep.Warnings})
	}
	v.Verdicts = append(v.Verdicts, openVerdicts(r.Analysis.Open, kinds)...)
	if r.Comparison == nil || len(r.Comparison.Curves) == 0 {
		// An A/B section of two targets shows its own (compare's Markdown).
		v.Curves = curvesViews(r.Analysis.Curves)
	}
	runName := map[string]string{}
	if multi {
		for i, res := range rs {
			runName[res.Path] = v.Runs[i].Title
		}
	}
	v.StepWarnings, v.StepNotes = stepNoteLines(r.Analysis.Counts.Notes, runName)
	v.Analysis, v.Commands = r.analysisText()
	fvs, err := figViews(r.Figures, pngNames, withSVG)
	if err != nil {
		return v, err
	}
	v.Figures = fvs
	for _, n := range r.Skipped {
		// "comparison: skipped: one target…" → "Not drawn: comparison — one target…"
		if name, why, ok := strings.Cut(n, ": skipped: "); ok {
			n = "Not drawn: " + name + " — " + why
		} else {
			n = "Note: " + n
		}
		v.Skipped = append(v.Skipped, n)
	}
	if r.Fleet != nil {
		v.Fleet = &fleetView{Head: fleet.TableHead, Sections: r.Fleet.Sections(),
			Intro: fmt.Sprintf("The pool budget for %d application instances, each with its own pool to every host, from the verdicts above (poolsweep fleet --instances %d). The model and its assumptions are in docs/fleet.md.", r.Fleet.Instances, r.Fleet.Instances)}
	}
	if r.Comparison != nil {
		if v.AB, err = abViewOf(r.Comparison, r.ABFigures, abPNGNames, withSVG); err != nil {
			return v, err
		}
	}
	return v, nil
}

// analysisRuns names the run of each series when each file was analysed
// on its own and two files hold the same target (else nil): two verdicts
// for "s · pool=match" need their runs to be told apart.
func (r *Report) analysisRuns() []string {
	if !r.each() || len(r.Analysis.PerFile) != len(r.Results) || !anyDuplicate(runinfo.SharedTargets(r.Results)) {
		return nil
	}
	var out []string
	for i, f := range r.Analysis.PerFile {
		for range f.Series {
			out = append(out, runinfo.RunName(r.Results[i]))
		}
	}
	return out
}

// each says every file was analysed on its own (analysis.Each).
func (r *Report) each() bool { return r.Analysis.PerFile != nil }

func anyDuplicate(m map[string]bool) bool {
	for _, v := range m {
		if v {
			return true
		}
	}
	return false
}

// analysisText says how the knee analysis read the files and gives the
// equivalent `poolsweep analyze` command lines, with the options used.
func (r *Report) analysisText() (string, []string) {
	o := r.Analysis.Options
	args := fmt.Sprintf("poolsweep analyze --plateau %g --min-gain %g", o.Plateau, o.MinGain)
	if o.SLOP99 > 0 {
		args += " --slo-p99 " + o.SLOP99.String()
	}
	var paths []string
	for _, res := range r.Results {
		paths = append(paths, res.Path)
	}
	switch {
	case r.each() && len(r.Results) > 1:
		var cmds []string
		for _, p := range paths {
			cmds = append(cmds, args+" "+p)
		}
		return "Each run is analysed on its own; the verdicts are what these commands give:", cmds
	case len(r.Results) > 1:
		return "The files' steps form series across files (a target's steps in several files are trials of one series); the verdicts are what this command gives:",
			[]string{args + " " + strings.Join(paths, " ")}
	}
	return "The verdicts are what this command gives:", []string{args + " " + strings.Join(paths, " ")}
}

// figViews renders figures for a report: inline SVG for HTML, the PNG
// file name pngNames[i] for Markdown.
func figViews(figs []plot.Figure, pngNames []string, withSVG bool) ([]figView, error) {
	var out []figView
	for i := range figs {
		f := &figs[i]
		title := f.Data.Title
		if title == "" {
			title = strings.ReplaceAll(f.Title, "\n", " ")
		}
		fv := figView{Name: f.Name, Title: title, Caption: f.Caption}
		if withSVG {
			// The page prints the caption under the figure, where it
			// wraps to the text column: the SVG leaves it out.
			bare := *f
			bare.Caption = ""
			var b bytes.Buffer
			if err := bare.WriteSVG(&b); err != nil {
				return nil, err
			}
			fv.SVG = template.HTML(inlineSVG(b.Bytes(), title)) //nolint:gosec // our own SVG; its text is escaped by vgsvg
		}
		if i < len(pngNames) {
			fv.PNG = pngNames[i]
		}
		out = append(out, fv)
	}
	return out, nil
}

var svgProlog = regexp.MustCompile(`(?s)^\s*<\?xml[^>]*\?>\s*(<!--.*?-->\s*)?`)

// inlineSVG strips the XML prolog and comment so the SVG can sit inside
// HTML, scales it to the text column, and names it for screen readers.
func inlineSVG(b []byte, title string) string {
	s := svgProlog.ReplaceAllString(string(b), "")
	return strings.Replace(s, "<svg ", `<svg role="img" aria-label="`+template.HTMLEscapeString(title)+`" style="width:100%;height:auto" `, 1)
}

// Report is everything a report shows: the runs' headers and step tables,
// their analysis with its figures, and optionally an A/B comparison with
// its own figures. New builds one; its fields may also be filled by hand.
type Report struct {
	Results []*results.Results
	// Analysis is the analysis of Results (analysis.Of, or analysis.Each
	// when each run is analysed on its own): the verdicts, and the
	// options stated with the analyze command that gives them.
	Analysis *analysis.Analysis
	Figures  []plot.Figure // plot.Figures of Results and Analysis
	// Skipped are the notes plot.Figures returned for the figures it left
	// out ("time-breakdown: skipped: …"), shown so a reader knows why.
	Skipped []string
	// Comparison, when not nil, adds an A/B section: compare's verdicts,
	// table and unmatched steps, and ABFigures (plot.ABFigures).
	Comparison *compare.Comparison
	ABFigures  []plot.Figure
	// Fleet, when not nil, adds the fleet section: the plan fleet.Make
	// made from Results and Analysis, shown as it decided it.
	Fleet *fleet.Plan
}

// WriteHTML writes one self-contained HTML page: every run's header
// (targets with topology, version and server kind; workload; plan; client
// machine), the A/B section if any, the verdict per analysed series, the
// figures as inline SVG, and the step table. It references no external
// asset, script or font.
func (r *Report) WriteHTML(w io.Writer) error {
	return r.write(w, htmlTmpl, nil, nil, true, "html report")
}

// writeMarkdown writes the same report as Markdown, linking each figure's
// PNG as figDir/NAME.png (figDir relative to the Markdown file, where
// plot.WriteFiles wrote them; "" for beside it).
func (r *Report) writeMarkdown(w io.Writer, figDir string) error {
	return r.write(w, mdTmpl, pngLinks(figDir, r.Figures), pngLinks(figDir, r.ABFigures), false, "markdown report")
}

// write renders the report's view through one of the two templates; html
// says the figures go inline as SVG rather than as links to PNGs.
func (r *Report) write(w io.Writer, tmpl interface{ Execute(io.Writer, any) error }, pngNames, abPNGNames []string, html bool, what string) error {
	if r.Analysis == nil {
		return fmt.Errorf("%s: no analysis", what)
	}
	v, err := buildView(r, pngNames, abPNGNames, html)
	if err == nil {
		err = tmpl.Execute(w, v)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// pngLinks are the links to figs' PNGs in the directory figDir, relative
// to the report, escaped for a Markdown link.
func pngLinks(figDir string, figs []plot.Figure) []string {
	out := make([]string, len(figs))
	for i, f := range figs {
		out[i] = url.PathEscape(f.Name + ".png")
		if figDir != "" {
			out[i] = url.PathEscape(figDir) + "/" + out[i]
		}
	}
	return out
}
