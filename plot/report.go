package plot

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	texttemplate "text/template"
	"time"

	"github.com/poolsweep/poolsweep/compare"
	"github.com/poolsweep/poolsweep/sweep"
	"github.com/poolsweep/poolsweep/sweep/knee"
)

// PNGNames are the file names WriteFiles gives each figure's PNG, for
// linking from a Markdown report written into the same directory.
func PNGNames(figs []Figure) []string {
	out := make([]string, len(figs))
	for i, f := range figs {
		out[i] = f.Name + ".png"
	}
	return out
}

// reportView is everything the report templates show, as strings.
type reportView struct {
	Runs     []runView
	Analysis string // the knee options and how files were combined; "" when not known
	Verdicts []verdictView
	Figures  []figView
	AB       *abView // nil unless the report compares two runs
}

type runView struct {
	Title    string
	Facts    [][2]string // label, value
	Targets  []targetView
	Table    stepTable
	Warnings []string
}

type targetView struct {
	Name, Topology, Version, Kind, Hosts, URI, Note string
}

type verdictView struct {
	Name     string
	Summary  string
	Verdict  string
	Warnings []string
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

// serverKindLabel names a target's server so that nobody reads FerretDB's
// or the simulator's numbers as MongoDB's.
func serverKindLabel(h sweep.TargetHeader) string {
	switch h.ServerKind {
	case "ferretdb":
		return "embedded FerretDB (numbers are FerretDB's, not MongoDB's)"
	case "simulator":
		s := "simulator (calibrated instrument, not a database)"
		if h.SimSpec != "" {
			s += ": " + h.SimSpec
		}
		return s
	case "":
		return "unknown"
	}
	return h.ServerKind
}

func buildView(r *Report, withSVG bool) (reportView, error) {
	var v reportView
	rs := r.Results
	multi := len(rs) > 1
	for _, res := range rs {
		v.Runs = append(v.Runs, runViewOf(res, multi))
	}
	kinds := map[string]string{}
	for _, res := range rs {
		for _, t := range res.Header.Targets {
			if n := serverKindNote(&t); n != "" {
				kinds[t.Name] = n
			}
		}
	}
	runOf := r.analysisRuns()
	for i, rep := range r.Analyses {
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
		v.Verdicts = append(v.Verdicts, verdictView{Name: name, Summary: knee.Summary(rep), Verdict: rep.Verdict, Warnings: rep.Warnings})
	}
	v.Analysis = r.analysisText()
	fvs, err := figViews(r.Figures, r.PNGNames, withSVG)
	if err != nil {
		return v, err
	}
	v.Figures = fvs
	if r.Comparison != nil {
		if v.AB, err = abViewOf(r.Comparison, r.ABFigures, r.ABPNGNames, withSVG); err != nil {
			return v, err
		}
	}
	return v, nil
}

// analysisRuns names the run of each analysis when each file was analysed
// on its own and two files hold the same target (else nil): two verdicts
// for "s · pool=match" need their runs to be told apart.
func (r *Report) analysisRuns() []string {
	if !r.Each || !anyDuplicate(duplicateTargets(r.Results)) {
		return nil
	}
	var out []string
	for _, res := range r.Results {
		n := len(knee.FromResults([]*sweep.Results{res}))
		for range n {
			out = append(out, runName(res))
		}
	}
	if len(out) != len(r.Analyses) {
		return nil // not AnalyzeEach's reports: leave the names as they are
	}
	return out
}

func anyDuplicate(m map[string]bool) bool {
	for _, v := range m {
		if v {
			return true
		}
	}
	return false
}

// analysisText says which options the knee analysis used and how the files
// were read, as the equivalent `poolsweep analyze` command line.
func (r *Report) analysisText() string {
	if r.Options == nil {
		return ""
	}
	o := *r.Options
	args := fmt.Sprintf("--plateau %g --min-gain %g", o.Plateau, o.MinGain)
	if o.SLOP99 > 0 {
		args += " --slo-p99 " + o.SLOP99.String()
	}
	switch {
	case r.Each && len(r.Results) > 1:
		return "Each run is analysed on its own, as poolsweep analyze " + args + " RUN/results.jsonl gives it."
	case len(r.Results) > 1:
		return "The files' steps form series across files, as poolsweep analyze " + args + " with these files gives them."
	}
	return "As poolsweep analyze " + args + " gives it."
}

// figViews renders figures for a report: inline SVG for HTML, the PNG
// file name pngNames[i] for Markdown.
func figViews(figs []Figure, pngNames []string, withSVG bool) ([]figView, error) {
	var out []figView
	for i := range figs {
		f := &figs[i]
		title := f.Data.Title
		if title == "" {
			title = strings.ReplaceAll(f.Title, "\n", " ")
		}
		fv := figView{Name: f.Name, Title: title, Caption: f.Caption}
		if withSVG {
			var b bytes.Buffer
			if err := f.WriteSVG(&b); err != nil {
				return nil, err
			}
			fv.SVG = template.HTML(inlineSVG(b.Bytes())) //nolint:gosec // our own SVG; its text is escaped by vgsvg
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
// HTML, and lets it scale to the page width.
func inlineSVG(b []byte) string {
	s := svgProlog.ReplaceAllString(string(b), "")
	return strings.Replace(s, "<svg ", `<svg role="img" style="max-width:100%;height:auto" `, 1)
}

func runViewOf(r *sweep.Results, multi bool) runView {
	h := r.Header
	rv := runView{Title: "Run " + h.RunID}
	if h.RunID == "" {
		rv.Title = "Run " + runName(r)
	}
	add := func(k, v string) {
		if v != "" {
			rv.Facts = append(rv.Facts, [2]string{k, v})
		}
	}
	if multi {
		add("file", r.Path)
	}
	if !h.StartedAt.IsZero() {
		add("started", h.StartedAt.UTC().Format(time.RFC3339))
	}
	status := "no end record (the run was cut short)"
	if r.End != nil {
		status = r.End.Status
		if r.End.Reason != "" {
			status += " (" + r.End.Reason + ")"
		}
	}
	add("status", status)
	add("tool", h.ToolVersion)
	add("workload", workloadText(h.Workload))
	add("plan", planText(h.Plan))
	add("client machine", clientText(h.Client))
	for _, t := range h.Targets {
		tv := targetView{Name: t.Name, Topology: t.Topology, Version: t.ServerVersion, Kind: serverKindLabel(t),
			Hosts: strconv.Itoa(len(t.Hosts)), URI: t.URI, Note: t.Note}
		if len(t.Shards) > 0 {
			tv.Hosts += fmt.Sprintf(" (%d shards)", len(t.Shards))
		}
		if t.SetName != "" {
			tv.Topology += " " + t.SetName
		}
		rv.Targets = append(rv.Targets, tv)
	}
	rv.Table = stepTableOf(r)
	return rv
}

func workloadText(w sweep.WorkloadInfo) string {
	parts := []string{w.Name}
	if len(w.Mix) > 0 {
		keys := make([]string, 0, len(w.Mix))
		for k := range w.Mix {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var mix []string
		for _, k := range keys {
			mix = append(mix, fmt.Sprintf("%s %g", k, w.Mix[k]))
		}
		parts = append(parts, "mix "+strings.Join(mix, " : "))
	}
	if len(w.Mixes) > 0 {
		parts = append(parts, "mixes "+strings.Join(w.Mixes, ", "))
	}
	if w.OpsPerCall > 0 {
		parts = append(parts, fmt.Sprintf("%g ops per call", w.OpsPerCall))
	}
	if w.Distribution != "" {
		parts = append(parts, w.Distribution)
	}
	if w.Records > 0 {
		parts = append(parts, fmt.Sprintf("%d records × %d fields × %d B", w.Records, w.FieldCount, w.FieldLength))
	}
	return strings.Join(parts, ", ")
}

func planText(p sweep.PlanInfo) string {
	cs := make([]string, len(p.Concurrency))
	for i, c := range p.Concurrency {
		cs[i] = strconv.Itoa(c)
	}
	s := fmt.Sprintf("concurrency %s; pool %s; %d client(s); %d trial(s); warm-up %gs, window %gs, op timeout %gs; %d steps",
		strings.Join(cs, ","), p.Pool, max(p.Clients, 1), p.Trials, p.WarmupS, p.DurationS, p.OpTimeoutS, p.Steps)
	if p.Order != "" {
		s += "; order " + p.Order
	}
	return s
}

func clientText(c sweep.ClientInfo) string {
	var parts []string
	if c.Hostname != "" {
		parts = append(parts, c.Hostname)
	}
	if c.OS != "" || c.Arch != "" {
		parts = append(parts, c.OS+"/"+c.Arch)
	}
	if c.CPUs > 0 {
		parts = append(parts, fmt.Sprintf("%d CPUs", c.CPUs))
	}
	if c.GoVersion != "" {
		parts = append(parts, c.GoVersion)
	}
	if c.DriverVersion != "" {
		parts = append(parts, "driver "+c.DriverVersion)
	}
	return strings.Join(parts, ", ")
}

// stepTableOf is the seeds' table: one row per step, sorted by target, pool,
// concurrency and trial; RAL/WAL are the mean latencies of reads (find,
// scan) and writes (update, insert) in µs.
func stepTableOf(r *sweep.Results) stepTable {
	steps := make([]*sweep.StepResult, 0, len(r.Steps))
	targets, workloads, clients, calls := map[string]bool{}, map[string]bool{}, false, false
	for i := range r.Steps {
		s := &r.Steps[i]
		steps = append(steps, s)
		targets[s.Target] = true
		workloads[s.Workload] = true
		clients = clients || s.Clients > 1
		calls = calls || callsDiffer(s)
	}
	rank := map[string]int{}
	for i, t := range r.Header.Targets {
		rank[t.Name] = i
	}
	sort.SliceStable(steps, func(i, j int) bool {
		a, b := steps[i], steps[j]
		if a.Target != b.Target {
			return rankOf(rank, a.Target) < rankOf(rank, b.Target) || (rankOf(rank, a.Target) == rankOf(rank, b.Target) && a.Target < b.Target)
		}
		if a.Workload != b.Workload {
			return a.Workload < b.Workload
		}
		if pa, pb := poolRank(a.PoolSetting), poolRank(b.PoolSetting); pa != pb {
			return pa < pb
		}
		if a.Concurrency != b.Concurrency {
			return a.Concurrency < b.Concurrency
		}
		return a.Trial < b.Trial
	})
	var t stepTable
	if len(targets) > 1 {
		t.Head = append(t.Head, "target")
	}
	if len(workloads) > 1 {
		t.Head = append(t.Head, "workload")
	}
	t.Head = append(t.Head, "concurrency", "pool")
	if clients {
		t.Head = append(t.Head, "clients")
	}
	t.Head = append(t.Head, "connections", "trial", "throughput (ops/s)")
	if calls {
		t.Head = append(t.Head, "calls/s")
	}
	t.Head = append(t.Head, "RAL (µs)", "WAL (µs)", "p99 (ms)", "errors")
	for _, s := range steps {
		var row []string
		if len(targets) > 1 {
			row = append(row, s.Target)
		}
		if len(workloads) > 1 {
			row = append(row, s.Workload)
		}
		pool := s.PoolSetting
		if pool == "match" && s.MaxPoolSize > 0 {
			pool = "match (" + strconv.Itoa(s.MaxPoolSize) + ")"
		}
		row = append(row, strconv.Itoa(s.Concurrency), pool)
		if clients {
			row = append(row, strconv.Itoa(max(s.Clients, 1)))
		}
		conns := strconv.Itoa(s.Connections)
		if s.Connections == 0 {
			conns = fmt.Sprintf("%.0f (planned)", stepConnections(s))
		}
		trial := strconv.Itoa(s.Trial)
		if s.Interrupted {
			trial += " (interrupted)"
		}
		row = append(row, conns, trial, fmt.Sprintf("%.0f", s.OpsPerS))
		if calls {
			row = append(row, fmt.Sprintf("%.0f", s.CallsPerS))
		}
		row = append(row, usCell(avgLatencyUS(s, readOps)), usCell(avgLatencyUS(s, writeOps)),
			strconv.FormatFloat(s.Latency.P99, 'f', 2, 64), errorsCell(s.Errors))
		t.Rows = append(t.Rows, row)
	}
	return t
}

func usCell(v float64, ok bool) string {
	if !ok {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

func errorsCell(e sweep.ErrorCounts) string {
	if e.Total() == 0 {
		return "0"
	}
	var parts []string
	for _, p := range []struct {
		n    int64
		kind string
	}{{e.Timeout, "timeout"}, {e.Network, "network"}, {e.Server, "server"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.kind))
		}
	}
	return fmt.Sprintf("%d (%s)", e.Total(), strings.Join(parts, ", "))
}

// Report is everything a report shows: the runs' headers and step tables,
// the knee analysis of their series with its figures, and optionally an A/B
// comparison with its own figures.
type Report struct {
	Results []*sweep.Results
	// Analyses are the knee reports of the series: AnalyzeWith's, or
	// AnalyzeEach's with Each set.
	Analyses []knee.Report
	Each     bool
	// Options are the knee options behind Analyses, stated in the report;
	// nil states none.
	Options *knee.Options
	Figures []Figure // from Figures (FiguresEach with Each)
	// PNGNames name each figure's PNG beside a Markdown report (see
	// PNGNames); a figure without a name is left out of the Markdown.
	PNGNames []string
	// Comparison, when not nil, adds an A/B section: compare's verdicts,
	// table and unmatched steps, and ABFigures (from ABFigures), linked in
	// Markdown by ABPNGNames.
	Comparison *compare.Comparison
	ABFigures  []Figure
	ABPNGNames []string
}

// WriteHTML writes one self-contained HTML page: every run's header
// (targets with topology, version and server kind; workload; plan; client
// machine), the A/B section if any, the verdict per analysed series, the
// figures as inline SVG, and the step table. It references no external
// asset, script or font.
func (r *Report) WriteHTML(w io.Writer) error {
	v, err := buildView(r, true)
	if err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	if err := htmlTmpl.Execute(w, v); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// WriteMarkdown writes the same report as Markdown, linking each figure's
// PNG by its name in PNGNames (ABPNGNames for the A/B figures), relative
// to the Markdown file.
func (r *Report) WriteMarkdown(w io.Writer) error {
	v, err := buildView(r, false)
	if err != nil {
		return fmt.Errorf("markdown report: %w", err)
	}
	if err := mdTmpl.Execute(w, v); err != nil {
		return fmt.Errorf("markdown report: %w", err)
	}
	return nil
}

var htmlTmpl = template.Must(template.New("html").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>poolsweep report</title>
<style>
body{font-family:'Liberation Sans',Arial,Helvetica,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222;line-height:1.45}
h1,h2,h3{line-height:1.2}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:.92em}
th,td{border:1px solid #ccc;padding:.25em .6em;text-align:right;vertical-align:top}
th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}
table.facts td,table.targets td{text-align:left}
table.ab{font-size:.82em}
.scroll{overflow-x:auto}
figure{margin:1.5em 0}
figcaption{color:#555;font-size:.92em}
.summary{font-family:'Liberation Mono',Menlo,Consolas,monospace;font-size:.9em;color:#333}
.warn{color:#8a4b00}
.note{color:#555}
</style>
</head>
<body>
<h1>poolsweep report</h1>
{{range .Runs}}
<h2>{{.Title}}</h2>
<table class="facts">
{{range .Facts}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>
{{end}}</table>
<h3>Targets</h3>
<table class="targets">
<tr><th>target</th><th>topology</th><th>server version</th><th>server</th><th>hosts</th><th>URI (redacted)</th><th>note</th></tr>
{{range .Targets}}<tr><td>{{.Name}}</td><td>{{.Topology}}</td><td>{{.Version}}</td><td>{{.Kind}}</td><td>{{.Hosts}}</td><td>{{.URI}}</td><td>{{.Note}}</td></tr>
{{end}}</table>
{{end}}
{{with .AB}}<section id="ab">
{{.HTML}}
{{range .Figures}}<figure id="{{.Name}}">
{{.SVG}}
<figcaption>{{.Title}}. {{.Caption}}</figcaption>
</figure>
{{end}}</section>
{{end}}
{{if .Verdicts}}<h2>Verdicts</h2>
{{with .Analysis}}<p class="note">{{.}}</p>
{{end}}{{range .Verdicts}}<h3>{{.Name}}</h3>
<p>{{.Verdict}}</p>
<p class="summary">{{.Summary}}</p>
{{range .Warnings}}<p class="warn">⚠ {{.}}</p>
{{end}}{{end}}{{end}}
{{if .Figures}}<h2>Figures</h2>
{{range .Figures}}<figure id="{{.Name}}">
{{.SVG}}
<figcaption>{{.Title}}. {{.Caption}}</figcaption>
</figure>
{{end}}{{end}}
<h2>Steps</h2>
{{range .Runs}}{{if gt (len $.Runs) 1}}<h3>{{.Title}}</h3>{{end}}
<table class="steps">
<tr>{{range .Table.Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Table.Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}
<p><small>RAL/WAL: mean latency of reads (find, scan) and writes (update, insert) in µs. Throughput and latencies are measured by the client over each step's window after its warm-up.</small></p>
</body>
</html>
`))

var mdTmpl = texttemplate.Must(texttemplate.New("md").Funcs(texttemplate.FuncMap{"md": mdEscape, "row": mdRow}).Parse(`# poolsweep report
{{range .Runs}}
## {{md .Title}}

{{range .Facts}}- **{{index . 0}}**: {{md (index . 1)}}
{{end}}
| target | topology | server version | server | hosts | URI (redacted) |
|---|---|---|---|---|---|
{{range .Targets}}| {{md .Name}} | {{md .Topology}} | {{md .Version}} | {{md .Kind}} | {{md .Hosts}} | {{md .URI}} |
{{end}}{{end}}
{{with .AB}}
{{.Markdown}}
{{range .Figures}}{{if .PNG}}
![{{md .Title}}]({{.PNG}})

*{{md .Caption}}*
{{end}}{{end}}{{end}}
{{if .Verdicts}}## Verdicts
{{with .Analysis}}
{{md .}}
{{end}}{{range .Verdicts}}
### {{md .Name}}

{{md .Verdict}}

` + "`" + `{{.Summary}}` + "`" + `
{{range .Warnings}}
> ⚠ {{md .}}
{{end}}{{end}}{{end}}
{{if .Figures}}## Figures
{{range .Figures}}{{if .PNG}}
![{{md .Title}}]({{.PNG}})

*{{md .Caption}}*
{{end}}{{end}}{{end}}
## Steps
{{range .Runs}}{{if gt (len $.Runs) 1}}
### {{md .Title}}
{{end}}
{{row .Table.Head}}
|:---|{{range $i, $h := .Table.Head}}{{if $i}}---:|{{end}}{{end}}
{{range .Table.Rows}}{{row .}}
{{end}}{{end}}
RAL/WAL: mean latency of reads (find, scan) and writes (update, insert) in µs.
`))

// mdEscape keeps table cells and prose from turning into Markdown syntax;
// brackets too, because an A/B title's "[−19%, −14%]" would end an image's
// alt text.
func mdEscape(s string) string {
	r := strings.NewReplacer("|", `\|`, "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "`", "'", "<", "&lt;", ">", "&gt;", "\n", " ")
	return r.Replace(s)
}

func mdRow(cells []string) string {
	esc := make([]string, len(cells))
	for i, c := range cells {
		esc[i] = mdEscape(c)
	}
	return "| " + strings.Join(esc, " | ") + " |"
}
